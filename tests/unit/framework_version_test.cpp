// What the frameworks' versions and their own semantics decide: a declared Megatron-Core version,
// Megatron-Bridge's distributed-optimizer switch kept on two objects, and PEFT's frozen weights.
#include <gtest/gtest.h>

#include "lint/engine/pipeline.h"
#include "lint/knowledge/core_version.h"
#include "lint/resolve/job.h"
#include "lint/resolve/memory_model.h"
#include "parsers/python/python_parser.h"
#include "test_support.h"

namespace parlint {
namespace {

TEST(CoreVersion, ReadsReleaseNamesAndRefusesTheRest) {
  auto v = parse_core_version("0.15.2");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->minor, 15);
  EXPECT_EQ(v->patch, 2);
  EXPECT_TRUE(v->before(0, 16));
  EXPECT_FALSE(parse_core_version("0.16")->before(0, 16));
  EXPECT_EQ(parse_core_version("core_v0.16.0rc1")->minor, 16);
  EXPECT_EQ(parse_core_version("1.0")->text(), "1.0.0");
  for (const char* bad : {"", "latest", "0", "0.", "x.16", "0.16.", "123456.1"})
    EXPECT_FALSE(parse_core_version(bad)) << bad;
}

const char* kGqa =
    "trainer: {num_nodes: 1, devices: 8}\nmodel:\n  num_layers: 32\n  hidden_size: 4096\n"
    "  num_attention_heads: 32\n  num_query_groups: 4\n  tensor_model_parallel_size: 8\n";

TEST(CoreVersion, Pl502FollowsTheDeclaredVersion) {
  EXPECT_TRUE(testing::codes(testing::lint(kGqa)).empty());  // 0.16 on: TP a multiple of G is fine
  EngineOptions old = testing::default_options();
  old.lint.megatron_core = parse_core_version("0.15");
  old.lint.megatron_core->source = "a test";
  auto findings = testing::lint(kGqa, old);
  ASSERT_EQ(testing::codes(findings), std::vector<std::string>{"PL502"});
  EXPECT_NE(findings[0].message.find("Megatron-Core 0.15.0 (before 0.16, per a test)"), std::string::npos)
      << findings[0].message;
  // TP dividing the query groups passes on every version.
  std::string divisor = kGqa;
  divisor.replace(divisor.find("tensor_model_parallel_size: 8"), 29, "tensor_model_parallel_size: 2");
  EXPECT_TRUE(testing::codes(testing::lint(divisor, old)).empty());
}

Job python_job(const std::string& text, const std::string& function) {
  SourceText source(text);
  ParsedFile pf = parse_python("recipe.py", source, FileReader::disk());
  for (const auto& raw : pf.jobs)
    if (raw.function == function) return Job("recipe.py", raw, {});
  ADD_FAILURE() << "no job for " << function;
  return Job("recipe.py", RawJob{}, {});
}

TEST(BridgeDistributedOptimizer, EitherObjectTurnsItOnForBoth) {
  // The optimizer keeps its True although ddp is set False afterwards (training/config.py:2101-2123).
  Job on = python_job(
      "def my_pretrain_config():\n    cfg = make()\n    cfg.optimizer.use_distributed_optimizer = True\n"
      "    cfg.ddp.use_distributed_optimizer = False\n    return cfg\n",
      "my_pretrain_config");
  EXPECT_EQ(on.get_bool(Key::kUseDistributedOptimizer), true);
  Job off = python_job(
      "def my_pretrain_config():\n    cfg = make()\n    cfg.ddp.use_distributed_optimizer = False\n"
      "    cfg.optimizer.use_distributed_optimizer = False\n    return cfg\n",
      "my_pretrain_config");
  EXPECT_EQ(off.get_bool(Key::kUseDistributedOptimizer), false);
  // Only one side known: the other came from a function parlint did not read, or from a constructor's
  // keyword whose object may since have been replaced (cfg.optimizer = muon()).
  const char* unknown_cases[] = {
      "def my_pretrain_config():\n    cfg = make()\n    cfg.ddp.use_distributed_optimizer = False\n"
      "    return cfg\n",
      "def my_pretrain_config():\n"
      "    cfg = ConfigContainer(optimizer=OptimizerConfig(use_distributed_optimizer=True))\n"
      "    cfg.optimizer = muon()\n    cfg.ddp.use_distributed_optimizer = False\n    return cfg\n"};
  for (const char* text : unknown_cases) {
    Job unknown = python_job(text, "my_pretrain_config");
    const Fact* f = unknown.fact(Key::kUseDistributedOptimizer);
    ASSERT_NE(f, nullptr);
    EXPECT_FALSE(f->value.is_known()) << text;
  }
}

TEST(MemoryModel, PeftCountsFrozenWeightsOnly) {
  std::string base =
      "def qwen_peft_1gpu_h100_bf16_config():\n    cfg = make()\n    cfg.model.num_layers = 48\n    "
      "cfg.model.hidden_size = 4096\n"
      "    cfg.model.ffn_hidden_size = 12288\n    cfg.model.num_attention_heads = 32\n"
      "    cfg.model.vocab_size = 151936\n    cfg.model.seq_length = 2048\n    cfg.train.micro_batch_size = "
      "1\n"
      "    cfg.model.tensor_model_parallel_size = 1\n    cfg.optimizer.use_distributed_optimizer = True\n"
      "    cfg.ddp.use_distributed_optimizer = True\n";
  auto full = estimate_memory(python_job(base + "    return cfg\n", "qwen_peft_1gpu_h100_bf16_config"));
  auto peft = estimate_memory(
      python_job(base + "    cfg.peft = LoRA(dim=8)\n    return cfg\n", "qwen_peft_1gpu_h100_bf16_config"));
  ASSERT_TRUE(full);
  ASSERT_TRUE(peft);
  EXPECT_NEAR(peft->weights_optimizer_gib, full->weights_optimizer_gib * 2 / 18, 0.01);  // one GPU: 18 -> 2
  EXPECT_NE(peft->terms[0].find("frozen weights"), std::string::npos) << peft->terms[0];
}

}  // namespace
}  // namespace parlint
