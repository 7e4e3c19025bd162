// NeMo-RL (NVIDIA-NeMo/RL @ 7ea279abfbeb): policy.megatron_cfg.<field> (when megatron_cfg.enabled),
// cluster.num_nodes / gpus_per_node, policy.train_global_batch_size / train_micro_batch_size /
// max_total_sequence_length, policy.model_name; `defaults: parent.yaml` inherits another config.
// Megatron-Bridge runs it. With generation not colocated, or a reward model the data routes to, the policy
// trains on its share of the cluster.
#include "parsers/frameworks/nemo_rl.h"

#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <tuple>

#include "parsers/frameworks/adapters.h"
#include "parsers/frameworks/document_keys.h"

namespace parlint {

using namespace document_keys;

// Distillation teachers or environment servers take GPUs too: then the policy's share is unknown. A reward
// model the data routes to takes its GPUs of a single node, or its nodes of several (grpo.py:759-818).
ClusterShare split_cluster(const ClusterShareTerms& t) {
  ClusterShare out;
  out.colocated = !t.non_colocated();
  if (t.other_consumers) return out;
  // An env.reward_model section where no config says which environments the data uses: whether it runs
  // is not known.
  if (t.reward_block && !t.reward_env.written) return out;
  auto int_of = [](const ClusterShareTerms::Term& term) -> std::optional<std::int64_t> {
    const std::string& s = term.text;
    if (!term.written || s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoll(s);
  };
  auto nodes = int_of(t.nodes), gpus = int_of(t.gpus_per_node);
  auto rn = int_of(t.generation_nodes), rg = int_of(t.generation_gpus_per_node);
  auto is_null = [](const ClusterShareTerms::Term& k) {
    return !k.written || k.text.empty() || k.text == "null";
  };
  if (!nodes || !gpus) return out;
  // The reward model's share: GPUs of the one node, or whole nodes of several (grpo.py:759-779).
  const bool rm = t.reward_model_on();
  std::int64_t rm_nodes = 0, rm_gpus = 0;
  if (rm) {
    auto n = int_of(t.reward_nodes), g = int_of(t.reward_gpus_per_node);
    if (*nodes == 1 ? !g : !n) return out;
    rm_nodes = n.value_or(0);
    rm_gpus = g.value_or(0);
  }
  const std::int64_t policy_nodes = *nodes == 1 ? 1 : *nodes - rm_nodes;
  if (policy_nodes <= 0) {
    out.refusal = "policy_nodes must be > 0, but got policy_nodes:" + std::to_string(policy_nodes) +
                  " + rm_nodes:" + std::to_string(rm_nodes) + " = total_nodes:" + std::to_string(*nodes);
    return out;
  }
  const std::string policy_nodes_from =
      rm && *nodes > 1 ? "cluster.num_nodes - env.reward_model.resources.num_nodes" : "cluster.num_nodes";
  const std::int64_t rm_on_node = rm && *nodes == 1 ? rm_gpus : 0;  // the reward model's GPUs on the node
  const std::string rm_on_node_from = rm_on_node ? " - env.reward_model.resources.gpus_per_node" : "";
  if (out.colocated) {  // generation on the policy's GPUs: only the reward model takes some (grpo.py:811-818)
    const std::int64_t per_node = *gpus - rm_on_node;
    if (per_node <= 0) {
      out.refusal =
          "policy.generation.colocated.resources.gpus_per_node must be > 0 when cluster.num_nodes = 1, but "
          "got " +
          std::to_string(per_node) + ".";
      return out;
    }
    out.train_nodes = policy_nodes;
    out.train_gpus_per_node = per_node;
    out.nodes_from = policy_nodes_from;
    out.gpus_from = "cluster.gpus_per_node" + rm_on_node_from;
    return out;
  }
  if (policy_nodes == 1) {
    if (!rg || *rg <= 0) {
      if (is_null(t.generation_gpus_per_node))
        out.refusal =
            "policy.generation.colocated.resources.gpus_per_node must be explicitly set to a value > 0 "
            "when policy_nodes = 1 and inference is non-colocated";
      return out;
    }
    if (rn && *rn != 1) {
      out.refusal =
          "policy.generation.colocated.resources.num_nodes must be 1 or set to null when policy_nodes = "
          "1 and inference is non-colocated";
      return out;
    }
    if (*gpus - *rg - rm_on_node <= 0) {
      out.refusal =
          "No enough GPUs for training, train_gpus_per_node:" + std::to_string(*gpus - *rg - rm_on_node) +
          " = cluster_config['gpus_per_node']:" + std::to_string(*gpus) +
          " - inference_gpus_per_node:" + std::to_string(*rg) +
          (rm_on_node ? " - rm_gpus_per_node:" + std::to_string(rm_on_node) : "");
      return out;
    }
    out.train_nodes = 1;
    out.train_gpus_per_node = *gpus - *rg - rm_on_node;
    out.generation_gpus = *rg;
    out.nodes_from = policy_nodes_from;
    out.gpus_from =
        "cluster.gpus_per_node - policy.generation.colocated.resources.gpus_per_node" + rm_on_node_from;
    out.generation_from = "policy.generation.colocated.resources.gpus_per_node";
    return out;
  }
  if (!rn || *rn <= 0 || !rg) {
    if (t.generation_nodes.written && rn && *rn <= 0)
      out.refusal =
          "policy.generation.colocated.resources.num_nodes must be > 0 when cluster.num_nodes > 1 and "
          "inference is non-colocated";
    return out;
  }
  if (*rg != *gpus) {
    out.refusal =
        "policy.generation.colocated.resources.gpus_per_node must be explicitly set and equal to "
        "cluster.gpus_per_node when cluster.num_nodes > 1 and inference is non-colocated";
    return out;
  }
  if (policy_nodes - *rn <= 0) {
    out.refusal = "Non-colocated mode requires train_nodes > 0 and inference_nodes > 0";
    return out;
  }
  out.train_nodes = policy_nodes - *rn;
  out.train_gpus_per_node = *gpus;
  out.generation_gpus = *rn * *rg;
  out.nodes_from = policy_nodes_from + " - policy.generation.colocated.resources.num_nodes";
  out.gpus_from = "cluster.gpus_per_node";
  out.generation_from =
      "policy.generation.colocated.resources.num_nodes x policy.generation.colocated.resources.gpus_per_node";
  return out;
}

std::vector<Fact> cluster_share_facts(const ClusterShareTerms& terms, const ClusterShare& share,
                                      const Location& fallback, std::vector<std::string>& notes) {
  std::vector<Fact> out;
  auto at = [&](const ClusterShareTerms::Term& t) { return t.written ? t.at : fallback; };
  // Colocated, generation runs on the policy's GPUs and a reward model takes some of the cluster.
  if (share.colocated) {
    if (!share.train_nodes || !share.train_gpus_per_node) {
      notes.push_back(share.refusal.empty()
                          ? "the reward model takes GPUs of the cluster, and its share is not known: the "
                            "policy's GPU count is unknown"
                          : "the reward model takes GPUs of the cluster, and NeMo-RL refuses the split: \"" +
                                share.refusal + "\"");
      return out;
    }
  } else {
    Fact g;
    g.key = Key::kRolloutWorldSize;
    g.location = at(terms.generation_gpus_per_node);
    g.origin = Origin::kYaml;
    g.spelling = share.generation_gpus ? share.generation_from : "the generation's resources";
    g.value = share.generation_gpus
                  ? Value::integer(*share.generation_gpus)
                  : Value::unknown("generation is not colocated and its GPUs are not known from its config");
    out.push_back(std::move(g));
  }
  if (!share.train_nodes || !share.train_gpus_per_node) {
    notes.push_back(share.refusal.empty()
                        ? "generation is not colocated: the policy gets part of the cluster, so its GPU "
                          "count is unknown"
                        : "generation is not colocated, and NeMo-RL refuses the split: \"" + share.refusal +
                              "\"");
    return out;
  }
  for (auto [key, value, from] :
       {std::tuple{Key::kNodes, *share.train_nodes, share.nodes_from},
        std::tuple{Key::kGpusPerNode, *share.train_gpus_per_node, share.gpus_from}}) {
    Fact f;
    f.key = key;
    f.location = at(key == Key::kNodes ? terms.nodes : terms.gpus_per_node);  // where the cluster is written
    f.origin = Origin::kYaml;
    f.spelling = from;
    f.value = Value::integer(value);
    out.push_back(std::move(f));
  }
  notes.push_back(
      (share.colocated ? "the reward model takes GPUs of the cluster" : "generation is not colocated") +
      std::string(": the policy trains on ") + std::to_string(*share.train_nodes) + " node(s) of " +
      std::to_string(*share.train_gpus_per_node) + " GPUs (" + share.nodes_from + "; " + share.gpus_from +
      "), nemo_rl/algorithms/grpo.py:" + (share.colocated ? "759-818" : "759-915"));
  return out;
}

namespace {

// NeMo-RL's cluster terms as this file writes them (see ClusterShareTerms).
ClusterShareTerms cluster_terms(const std::vector<DriverKey>& keys) {
  ClusterShareTerms t;
  for (const auto& k : keys) {
    const auto& p = *k.path;
    // `on_policy_distillation: null` is the root config's way of saying "off".
    bool off = k.scalar.empty() || k.scalar == "null" || k.scalar == "~";
    bool section_off = off && (p.size() == 1 || (p.size() == 2 && p[0] == "env"));
    bool consumer = starts_with(p, {"on_policy_distillation"}) || starts_with(p, {"env", "nemo_gym"}) ||
                    starts_with(p, {"teacher"});
    if (consumer && !section_off) t.other_consumers = true;
    const bool reward = starts_with(p, {"env", "reward_model"});
    if (reward && !section_off) t.reward_block = true;
    bool size_key = !p.empty() && (p.back() == "num_nodes" || p.back() == "gpus_per_node");
    if (size_key && !starts_with(p, {"cluster"}) &&
        !starts_with(p, {"policy", "generation", "colocated", "resources"}) && !reward)
      t.other_consumers = true;
    // The environments the data routes its tasks to (nemo_rl/data/datasets/utils.py:291-311).
    if (p.size() >= 3 && p[0] == "data" && (p[1] == "train" || p[1] == "validation" || p[1] == "default") &&
        p.back() == "env_name" && !t.reward_env.text.starts_with("reward_model")) {
      t.reward_env.written = true;
      t.reward_env.text = k.scalar;
      t.reward_env.at = k.location;
    }
  }
  auto term = [&](std::initializer_list<const char*> path) {
    ClusterShareTerms::Term out;
    if (const DriverKey* k = find(keys, path)) {
      out.written = true;
      out.text = k->scalar.empty() ? "null" : k->scalar;
      out.at = k->location;
    }
    return out;
  };
  t.nodes = term({"cluster", "num_nodes"});
  t.gpus_per_node = term({"cluster", "gpus_per_node"});
  t.generation_nodes = term({"policy", "generation", "colocated", "resources", "num_nodes"});
  t.generation_gpus_per_node = term({"policy", "generation", "colocated", "resources", "gpus_per_node"});
  t.colocated = term({"policy", "generation", "colocated", "enabled"});
  t.reward_nodes = term({"env", "reward_model", "resources", "num_nodes"});
  t.reward_gpus_per_node = term({"env", "reward_model", "resources", "gpus_per_node"});
  return t;
}

// The cluster terms a config writes, completed from the configs it inherits (generation's resources, the
// cluster's GPUs per node, whether generation is colocated at all) before the policy's share is computed;
// a root config's cluster size is its own example run's and is not taken.
class ClusterTermsState final : public InheritedState {
 public:
  explicit ClusterTermsState(ClusterShareTerms terms) : terms_(std::move(terms)) {}

  void complete(RawJob& job, std::span<const InheritedState* const> inherited,
                const std::string& path) const override {
    ClusterShareTerms merged = terms_;
    for (std::size_t i = 0; i < inherited.size(); ++i)
      if (const auto* parent = dynamic_cast<const ClusterTermsState*>(inherited[i]))
        merged.inherit(parent->terms_, i + 1 < inherited.size());
    if (!merged.split()) return;
    const bool own_split = terms_.split();
    ClusterShare share = split_cluster(merged);
    if (own_split && !share.train_nodes && share.refusal.empty()) return;  // the file's own note stands
    if (own_split && split_cluster(terms_).train_nodes) return;            // computed already
    // Generation moved off the policy's GPUs by a parent, or completed by one: replace the world the file
    // alone gave (its cluster.* read as colocated, or unknown).
    std::erase_if(job.facts, [](const Fact& f) {
      return f.key == Key::kNodes || f.key == Key::kGpusPerNode || f.key == Key::kRolloutWorldSize;
    });
    std::erase_if(job.notes, [](const std::string& n) {
      return n.starts_with("generation is not colocated") || n.starts_with("the reward model takes");
    });
    Location fallback = job.facts.empty() ? Location{} : job.facts.front().location;
    fallback.path = path;
    auto facts = cluster_share_facts(merged, share, fallback, job.notes);
    job.facts.insert(job.facts.end(), facts.begin(), facts.end());
    job.cluster_split = true;
  }

 private:
  ClusterShareTerms terms_;
};

// The rollout key a NeMo-RL policy.generation.vllm_cfg field is read as, or nullptr.
const char* vllm_layout_key(std::string_view field) {
  if (field == "tensor_parallel_size") return "rollout_tensor_parallel_size";
  if (field == "pipeline_parallel_size") return "rollout_pipeline_parallel_size";
  if (field == "expert_parallel_size") return "rollout_expert_parallel_size";
  if (field == "async_engine") return "rollout_async_engine";
  return nullptr;
}

// Its vLLM generation: TP x PP divides the GPUs it runs on, the policy's when colocated, its own
// resources.* when not (nemo_rl/models/generation/vllm/vllm_generation.py:119-126,
// nemo_rl/algorithms/grpo.py:862-911@7ea279abfbeb); EP against TP and the async engine
// (vllm_generation.py:128-146@7ea279abfbeb).
RolloutTraits vllm_generation() {
  using When = RolloutRefusal::When;
  return RolloutTraits{
      {{When::kEpNotMultipleOfTp, Key::kRolloutExpertParallelSize,
        "vLLM's expert_parallel_size={ep} is not a multiple of its tensor_parallel_size={tp}; NeMo-RL "
        "asserts "
        "\"When EP > 1, EP must be a multiple of TP since vLLM's EP = DP * TP\" when it starts generation",
        "set policy.generation.vllm_cfg.expert_parallel_size to a multiple of {tp}",
        Key::kRolloutTensorParallelSize, "vLLM tensor_parallel_size={tp}"},
       {When::kEpNotTpWhenAsync, Key::kRolloutAsyncEngine,
        "vLLM's expert_parallel_size={ep} differs from its tensor_parallel_size={tp}, so vLLM runs "
        "data-parallel inside, which NeMo-RL refuses with async_engine: true (\"vLLM async_engine has some "
        "issues when using DP inside vLLM\")",
        "set policy.generation.vllm_cfg.async_engine=false, or expert_parallel_size={tp}",
        Key::kRolloutExpertParallelSize, "vLLM expert_parallel_size={ep}"},
       {When::kPipelineWithoutAsync, Key::kRolloutAsyncEngine,
        "vLLM's pipeline_parallel_size={pp} with async_engine: false; NeMo-RL asserts \"When "
        "pipeline_parallel_size > 1, async_engine must be set to True in the vLLM configuration\"",
        "set policy.generation.vllm_cfg.async_engine=true, or pipeline_parallel_size=1",
        Key::kRolloutPipelineParallelSize, "vLLM pipeline_parallel_size={pp}"}},
      "vLLM's TP·PP = {tp}·{pp} = {tppp} does not divide the {world} GPUs {gpus}; NeMo-RL asserts \"World "
      "size must be a multiple of model parallel size. Got world size {world} and model parallel size "
      "(TP * PP) {tppp}\" when it starts generation",
      "use a vllm_cfg tensor_parallel_size x pipeline_parallel_size that divides {world}",
      "use a vllm_cfg tensor_parallel_size x pipeline_parallel_size that divides {world}, or give generation "
      "more GPUs",
      "generation gets ({spelling})",
      "it shares with the policy",
      "generation's GPUs: {world}"};
}

class NemoRl final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "NeMo-RL"; }

  // PPO's value model (value.megatron_cfg, value.train_*_batch_size): a job of its own on the policy's
  // training cluster (nemo_rl/algorithms/ppo.py:776-784@7ea279abfbeb), read with the policy's schema;
  // `${policy.X}` among its keys is the policy's value. The document's own job is the policy.
  std::vector<DocumentRole> roles(const std::vector<DriverKey>& keys) const override {
    bool value_model = std::any_of(keys.begin(), keys.end(), [](const DriverKey& k) {
      return k.path->size() > 2 && (*k.path)[0] == "value" && (*k.path)[1] == "megatron_cfg";
    });
    if (!value_model) return {};
    std::map<std::string, std::size_t> policy;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (!keys[i].path->empty() && (*keys[i].path)[0] == "policy") policy[dotted(*keys[i].path)] = i;
    DocumentRole own, value{"value model", "NeMo-RL value model (megatron_cfg)", {}, false};
    for (std::size_t i = 0; i < keys.size(); ++i) {
      own.keys.push_back({i});
      const auto& p = *keys[i].path;
      if (p.empty()) continue;
      bool policy_own = p[0] == "policy" && !(p.size() > 1 && p[1] == "generation");
      if (policy_own) continue;
      DocumentRole::Key k{i};
      if (p[0] == "value") {
        k.path = p;
        k.path[0] = "policy";
        const std::string& text = keys[i].scalar;
        if (text.starts_with("${policy.") && text.ends_with("}"))
          if (auto it = policy.find(text.substr(2, text.size() - 3)); it != policy.end())
            k.value_from = it->second;
      }
      value.keys.push_back(std::move(k));
    }
    return {std::move(own), std::move(value)};
  }

  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    bool megatron = std::any_of(keys.begin(), keys.end(), [](const DriverKey& k) {
      return starts_with(*k.path, {"policy", "megatron_cfg"});
    });
    const DriverKey* defaults = find(keys, {"defaults"});
    bool base_yaml = defaults && (defaults->scalar.ends_with(".yaml") || defaults->scalar.ends_with(".yml"));
    // A child config that inherits everything Megatron from its parents (defaults: parent.yaml, then only
    // policy.generation or cluster keys of its own) is NeMo-RL's too.
    bool nemo_rl_sections = std::any_of(keys.begin(), keys.end(), [](const DriverKey& k) {
      return starts_with(*k.path, {"policy"}) || starts_with(*k.path, {"cluster"});
    });
    if (!megatron && !(base_yaml && nemo_rl_sections)) return std::nullopt;
    DriverConfig out{Framework::kMegatronBridge, "NeMo-RL policy (megatron_cfg)", "", "", false, false};
    out.traits.name = "NeMo-RL";
    // It passes Megatron-Bridge a batch it ignores and shards its own at the first training step: the
    // batch over DP, then each rank's share into micro-batches, which sequence packing or dynamic
    // batching (written where parlint may not look) replace; only the shards are judged
    // (distributed/batched_data_dict.py:537-543, 1010-1013@7ea279abfbeb).
    out.traits.batch =
        BatchCheck{BatchCheck::Divisor::kDp,
                   "policy.train_global_batch_size={gbs} is not a multiple of DP = {dp}; NeMo-RL "
                   "asserts \"Batch size ({gbs}) is not a multiple of shards ({dp})\" at the first "
                   "training step",
                   "", true};
    out.traits.rollout = vllm_generation();
    if (base_yaml) out.base = defaults->scalar;
    // megatron_cfg.enabled may be switched on by a config that inherits this one, so the keys stay; the
    // switch itself travels with the job (RawJob::megatron_on).
    const DriverKey* enabled = find(keys, {"policy", "megatron_cfg", "enabled"});
    if (enabled) out.megatron_on = !falsy(enabled->scalar);
    if (const DriverKey* m = find(keys, {"policy", "model_name"})) out.model = m->scalar;
    ClusterShareTerms terms = cluster_terms(keys);
    out.inherited = std::make_shared<const ClusterTermsState>(terms);
    out.world_unknown = terms.split();
    // Generation or a reward model on GPUs of their own: the policy's share of the cluster, placed where the
    // terms are written.
    if (out.world_unknown)
      out.facts = cluster_share_facts(terms, split_cluster(terms), keys.front().location, out.notes);
    for (auto& k : keys) {
      const auto& p = *k.path;
      if (starts_with(p, {"policy", "megatron_cfg"}) && p.size() > 2) {
        if (p[2] == "distributed_data_parallel_config")
          read_under(k, 3, {"ddp"});
        else if (p.size() == 3) {
          read_under(k, 2, {"model"});
          k.quiet = true;  // NeMo-RL's own switches (enabled, empty_unused_memory_level, ...) sit beside them
        } else
          k.own_key = true;  // optimizer, scheduler, env_vars, ... of NeMo-RL's own layout
      } else if (p == std::vector<std::string>{"cluster", "num_nodes"} && !out.world_unknown) {
        k.read_as = {"trainer", "num_nodes"};
      } else if (p == std::vector<std::string>{"cluster", "gpus_per_node"} && !out.world_unknown) {
        k.read_as = {"trainer", "devices"};
      } else if (p == std::vector<std::string>{"policy", "train_global_batch_size"}) {
        k.read_as = {"train", "global_batch_size"};
      } else if (p == std::vector<std::string>{"policy", "train_micro_batch_size"}) {
        k.read_as = {"train", "micro_batch_size"};
      } else if (p == std::vector<std::string>{"policy", "max_total_sequence_length"}) {
        k.read_as = {"model", "seq_length"};
      } else if (p.size() == 4 && p[0] == "policy" && p[1] == "generation" && p[2] == "vllm_cfg" &&
                 vllm_layout_key(p[3])) {
        // vLLM's layout (PL102): colocated, its TP x PP must divide the policy's GPUs; non-colocated, the
        // generation's own (the job's rollout_world_size).
        k.read_as = {"model", std::string(vllm_layout_key(p[3]))};
        k.quiet = true;
      } else {
        k.own_key = true;
      }
    }
    return out;
  }
};

}  // namespace

const DocumentAdapter& nemo_rl_adapter() {
  static const NemoRl adapter;
  return adapter;
}

}  // namespace parlint
