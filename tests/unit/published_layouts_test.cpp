// Layouts that ran in public (tests/data/published_layouts.yaml): no error or warning may fire.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "lint/knowledge/model_table.h"
#include "test_support.h"

namespace parlint {
namespace {

TEST(PublishedLayouts, NoErrorOrWarning) {
  YAML::Node root = YAML::LoadFile(std::string(PARLINT_SOURCE_DIR) + "/tests/data/published_layouts.yaml");
  int count = 0;
  for (const auto& l : root["layouts"]) {
    ++count;
    std::ostringstream y;
    std::int64_t gpus = l["gpus"].as<std::int64_t>();
    std::string fw = l["framework"].as<std::string>();
    std::int64_t per_node = std::min<std::int64_t>(gpus, 8);
    y << "trainer:\n  num_nodes: " << gpus / per_node << "\n  devices: " << per_node << "\nmodel:\n";
    if (l["model"]) {
      const ModelInfo* m = find_model(l["model"].as<std::string>());
      ASSERT_NE(m, nullptr) << l["model"].as<std::string>();
      y << "  num_layers: " << m->layers << "\n  hidden_size: " << m->hidden
        << "\n  num_attention_heads: " << m->heads << "\n  num_query_groups: " << m->groups << "\n";
      if (m->is_moe())
        y << "  num_moe_experts: " << m->experts << "\n  moe_router_topk: " << m->topk
          << "\n  moe_ffn_hidden_size: " << m->moe_ffn << "\n";
      if (m->ffn) y << "  ffn_hidden_size: " << m->ffn << "\n";
      if (m->kv_channels) y << "  kv_channels: " << m->kv_channels << "\n";
      // With the vocabulary the memory estimate (PL601) runs on every layout too.
      y << "  vocab_size: " << m->vocab << "\n";
      if (fw == "megatron-bridge") y << "  use_distributed_optimizer: true\n";
      y << "  add_bias_linear: false\n";
    } else {
      y << "  num_layers: " << l["arch"]["layers"] << "\n  hidden_size: " << l["arch"]["hidden"]
        << "\n  num_attention_heads: " << l["arch"]["heads"] << "\n";
    }
    auto put = [&](const char* from, const char* key) {
      if (l[from]) y << "  " << key << ": " << l[from].as<std::string>() << "\n";
    };
    put("tp", "tensor_model_parallel_size");
    put("pp", "pipeline_model_parallel_size");
    put("vpp", "virtual_pipeline_model_parallel_size");
    put("cp", "context_parallel_size");
    put("ep", "expert_model_parallel_size");
    put("etp", "expert_tensor_parallel_size");
    put("sp", "sequence_parallel");
    put("seq", "encoder_seq_length");
    put("gbs", "global_batch_size");
    put("mbs", "micro_batch_size");
    put("first_stage", "num_layers_in_first_pipeline_stage");
    put("last_stage", "num_layers_in_last_pipeline_stage");
    put("account_for_embedding", "account_for_embedding_in_pipeline_split");
    put("account_for_loss", "account_for_loss_in_pipeline_split");
    put("mtp", "mtp_num_layers");
    if (l["layout"]) y << "  pipeline_model_parallel_layout: \"" << l["layout"].as<std::string>() << "\"\n";

    EngineOptions o = testing::default_options();
    o.lint.framework = *framework_from_id(fw);
    if (l["cluster"]) o.lint.cluster = find_cluster_profile(l["cluster"].as<std::string>());
    for (const auto& d : testing::lint(y.str(), o, "layout.yaml")) {
      if (d.severity == Severity::kInfo) continue;
      ADD_FAILURE() << l["source"].as<std::string>() << ": " << d.code << " " << d.message << "\n" << y.str();
    }
  }
  EXPECT_GE(count, 20);
}

}  // namespace
}  // namespace parlint
