// The framework adapters of documents (parsers/frameworks): which documents each reads, what it says each
// key is, and the jobs a document that holds several splits into. Paths are never rewritten.
#include <gtest/gtest.h>

#include <list>
#include <utility>

#include "parsers/frameworks/adapters.h"

namespace parlint {
namespace {

// A document's keys as the YAML reader gives them: dotted paths and scalar values.
struct Document {
  std::list<std::vector<std::string>> paths;  // stable addresses for DriverKey::path
  std::vector<DriverKey> keys;
  explicit Document(std::initializer_list<std::pair<const char*, const char*>> entries) {
    int line = 1;
    for (auto [dotted, value] : entries) {
      std::vector<std::string> path;
      std::string_view rest = dotted;
      while (!rest.empty()) {
        auto dot = rest.find('.');
        path.emplace_back(rest.substr(0, dot));
        rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
      }
      paths.push_back(std::move(path));
      keys.push_back({&paths.back(), value, {"doc.yaml", {{line, 1}, {line, 2}}}});
      ++line;
    }
  }
  const DriverKey& key(std::string_view dotted) const {
    for (const auto& k : keys) {
      std::string d;
      for (const auto& p : *k.path) d += (d.empty() ? "" : ".") + p;
      if (d == dotted) return k;
    }
    throw std::runtime_error("no key " + std::string(dotted));
  }
};

std::vector<std::string> path(std::initializer_list<const char*> parts) {
  return {parts.begin(), parts.end()};
}

TEST(NemoRlAdapter, ReadsTheMegatronConfigAndTheClusterWithoutRewritingThem) {
  Document d({{"policy.model_name", "meta-llama/Llama-3.1-8B"},
              {"policy.megatron_cfg.enabled", "true"},
              {"policy.megatron_cfg.tensor_model_parallel_size", "2"},
              {"policy.train_global_batch_size", "64"},
              {"cluster.num_nodes", "2"},
              {"cluster.gpus_per_node", "8"},
              {"grpo.num_prompts_per_step", "32"}});
  auto c = framework_documents().read(d.keys);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->traits.name, "NeMo-RL");
  ASSERT_TRUE(c->traits.rollout);  // its vLLM generation's refusals (PL110)
  EXPECT_EQ(c->traits.rollout->refusals.size(), 3u);
  EXPECT_EQ(c->model, "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(d.key("policy.megatron_cfg.tensor_model_parallel_size").read_as,
            path({"model", "tensor_model_parallel_size"}));
  EXPECT_EQ(*d.key("policy.megatron_cfg.tensor_model_parallel_size").path,
            path({"policy", "megatron_cfg", "tensor_model_parallel_size"}));  // as written
  EXPECT_EQ(d.key("cluster.num_nodes").read_as, path({"trainer", "num_nodes"}));
  EXPECT_EQ(d.key("policy.train_global_batch_size").read_as, path({"train", "global_batch_size"}));
  EXPECT_TRUE(d.key("grpo.num_prompts_per_step").own_key);
  EXPECT_TRUE(framework_documents().roles(d.keys).empty());  // one job: the policy
}

TEST(NemoRlAdapter, NonColocatedGenerationGivesThePolicyItsShare) {
  Document d({{"policy.megatron_cfg.enabled", "true"},
              {"policy.generation.colocated.enabled", "false"},
              {"policy.generation.colocated.resources.num_nodes", "1"},
              {"policy.generation.colocated.resources.gpus_per_node", "8"},
              {"cluster.num_nodes", "3"},
              {"cluster.gpus_per_node", "8"}});
  auto c = framework_documents().read(d.keys);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->world_unknown);
  ASSERT_TRUE(c->inherited);  // what it completes from the configs it inherits
  std::optional<std::int64_t> nodes, generation;
  for (const Fact& f : c->facts) {
    if (f.key == Key::kNodes) nodes = f.value.as_int();
    if (f.key == Key::kRolloutWorldSize) generation = f.value.as_int();
  }
  EXPECT_EQ(nodes, 2);                                      // 3 nodes less the generation's 1
  EXPECT_EQ(generation, 8);                                 // 1 node x 8 GPUs
  EXPECT_TRUE(d.key("cluster.num_nodes").read_as.empty());  // not the policy's node count
}

// A child config that writes only its cluster size: the parent moved generation off the policy's GPUs, so
// the child's job is completed, through the state its adapter kept, into the policy's share.
TEST(NemoRlAdapter, InheritedGenerationSplitCompletesTheChildsWorld) {
  Document parent({{"policy.megatron_cfg.enabled", "true"},
                   {"policy.generation.colocated.enabled", "false"},
                   {"policy.generation.colocated.resources.num_nodes", "1"},
                   {"policy.generation.colocated.resources.gpus_per_node", "8"}});
  Document child({{"defaults", "parent.yaml"}, {"cluster.num_nodes", "4"}, {"cluster.gpus_per_node", "8"}});
  auto p = framework_documents().read(parent.keys);
  auto c = framework_documents().read(child.keys);
  ASSERT_TRUE(p && c && p->inherited && c->inherited);
  EXPECT_EQ(c->base, "parent.yaml");
  EXPECT_FALSE(c->world_unknown);  // alone, the child reads as colocated
  RawJob job;
  job.facts = c->facts;
  const InheritedState* chain[] = {p->inherited.get()};
  c->inherited->complete(job, chain, "child.yaml");
  EXPECT_TRUE(job.cluster_split);
  std::optional<std::int64_t> nodes, generation;
  for (const Fact& f : job.facts) {
    if (f.key == Key::kNodes) nodes = f.value.as_int();
    if (f.key == Key::kRolloutWorldSize) generation = f.value.as_int();
  }
  EXPECT_EQ(nodes, 3);       // 4 nodes less the generation's 1
  EXPECT_EQ(generation, 8);  // 1 node x 8 GPUs, from the parent
}

TEST(NemoRlAdapter, PpoValueModelIsARoleReadWithThePolicysSchema) {
  Document d({{"policy.megatron_cfg.enabled", "true"},
              {"policy.megatron_cfg.tensor_model_parallel_size", "4"},
              {"policy.generation.backend", "vllm"},
              {"value.megatron_cfg.enabled", "true"},
              {"value.megatron_cfg.tensor_model_parallel_size",
               "${policy.megatron_cfg.tensor_model_parallel_size}"}});
  auto roles = framework_documents().roles(d.keys);
  ASSERT_EQ(roles.size(), 2u);
  EXPECT_EQ(roles[0].keys.size(), d.keys.size());  // the policy: the document as written
  const DocumentRole& value = roles[1];
  EXPECT_EQ(value.role, "value model");
  bool tp = false, policy_own = false, generation = false;
  for (const auto& k : value.keys) {
    if (k.index == 4) {
      tp = true;
      EXPECT_EQ(k.path, path({"policy", "megatron_cfg", "tensor_model_parallel_size"}));
      EXPECT_EQ(k.value_from, std::optional<std::size_t>(1));
    }
    policy_own |= k.index == 1;
    generation |= k.index == 2;
  }
  EXPECT_TRUE(tp);
  EXPECT_FALSE(policy_own);  // the policy's own keys are not the value model's
  EXPECT_TRUE(generation);
}

TEST(RollAdapter, EachMegatronWorkerIsAJobOnItsDevices) {
  Document d({{"actor_train.strategy_args.strategy_name", "megatron_train"},
              {"actor_train.strategy_args.strategy_config.tensor_model_parallel_size", "2"},
              {"actor_train.device_mapping", "list(range(0,16))"},
              {"actor_infer.strategy_args.strategy_name", "vllm"},
              {"reference.strategy_args.strategy_name", "megatron_infer"},
              {"reference.device_mapping", "list(range(0,8))"},
              {"rollout_batch_size", "64"}});
  auto roles = framework_documents().roles(d.keys);
  ASSERT_EQ(roles.size(), 2u);  // actor_train and reference; vLLM's actor_infer is not Megatron
  std::vector<DriverKey> actor;
  for (const auto& k : roles[0].keys) actor.push_back(d.keys[k.index]);
  auto c = framework_documents().read(actor);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->traits.name, "ROLL");
  EXPECT_FALSE(c->traits.rollout);
  EXPECT_TRUE(c->traits.turns_sp_off_at_tp1);
  ASSERT_EQ(c->facts.size(), 1u);
  EXPECT_EQ(c->facts[0].key, Key::kWorldSize);
  EXPECT_EQ(c->facts[0].value.as_int(), 16);
  EXPECT_EQ(c->facts[0].spelling, "len(actor_train.device_mapping)");
  EXPECT_EQ(actor[1].read_as, path({"model", "tensor_model_parallel_size"}));
  EXPECT_EQ(actor.back().read_as, path({"train", "global_batch_size"}));  // rollout_batch_size
}

TEST(ChatLearnConfigAdapter, TheTemplatesGpuCountIsAPlaceholder) {
  Document d({{"runtime_args.train_backend", "megatron"},
              {"models.policy_trainer.num_gpu", "1"},
              {"models.policy_trainer.tensor_model_parallel_size", "4"},
              {"models.policy.num_gpu", "${models.policy_trainer.num_gpu}"},
              {"models.policy.tensor_model_parallel_size", "2"}});
  auto c = framework_documents().read(d.keys);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->traits.name, "ChatLearn");
  EXPECT_TRUE(c->traits.rollout);
  EXPECT_TRUE(d.key("models.policy_trainer.num_gpu").own_key);
  EXPECT_EQ(d.key("models.policy_trainer.tensor_model_parallel_size").read_as,
            path({"model", "tensor_model_parallel_size"}));
  EXPECT_EQ(d.key("models.policy.tensor_model_parallel_size").read_as,
            path({"model", "rollout_tensor_parallel_size"}));  // the rollout on the trainer's GPUs
}

TEST(VerlConfigAdapter, FsdpConfigsAreNoMegatronJob) {
  Document fsdp({{"actor_rollout_ref.actor.strategy", "fsdp"}, {"trainer.nnodes", "2"}});
  auto c = framework_documents().read(fsdp.keys);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->not_megatron);
  Document megatron(
      {{"actor_rollout_ref.actor.megatron.tensor_model_parallel_size", "2"}, {"trainer.nnodes", "2"}});
  auto m = framework_documents().read(megatron.keys);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->not_megatron);
  EXPECT_TRUE(m->traits.turns_sp_off_at_tp1);
  EXPECT_EQ(megatron.key("trainer.nnodes").read_as, path({"trainer", "num_nodes"}));
}

TEST(GptNeoxAdapter, ItsDocumentsAreNotRead) {
  Document d({{"pipe_parallel_size", "2"}, {"model_parallel_size", "4"}});
  auto c = framework_documents().read(d.keys);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->not_megatron);
}

TEST(FlagScaleAdapter, SystemSettingsAreMegatronLmArguments) {
  Document d({{"system.tensor_model_parallel_size", "2"}, {"experiment.runner.nnodes", "4"}});
  auto c = framework_documents().read(d.keys);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->framework, Framework::kMegatronLM);
  EXPECT_EQ(d.key("system.tensor_model_parallel_size").read_as,
            path({"model", "tensor_model_parallel_size"}));
  EXPECT_EQ(d.key("experiment.runner.nnodes").read_as, path({"trainer", "num_nodes"}));
}

TEST(DocumentAdapters, APlainMegatronDocumentIsNoFrameworksOwn) {
  Document d({{"model.tensor_model_parallel_size", "2"}, {"trainer.num_nodes", "2"}});
  EXPECT_FALSE(framework_documents().read(d.keys));
  for (const auto& k : d.keys) EXPECT_TRUE(k.read_as.empty() && !k.own_key && !k.quiet);
}

}  // namespace
}  // namespace parlint
