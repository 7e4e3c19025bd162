#include "parsers/frameworks/driver_configs.h"

#include <algorithm>
#include <tuple>

namespace parlint {
namespace {

bool starts_with(const std::vector<std::string>& path, std::initializer_list<const char*> prefix) {
  if (path.size() < prefix.size()) return false;
  std::size_t i = 0;
  for (const char* p : prefix)
    if (path[i++] != p) return false;
  return true;
}

bool falsy(const std::string& s) {
  return s == "false" || s == "False" || s == "FALSE" || s == "0";
}

void replace_prefix(std::vector<std::string>& path, std::size_t drop,
                    std::initializer_list<const char*> with) {
  std::vector<std::string> out(with.begin(), with.end());
  out.insert(out.end(), path.begin() + static_cast<std::ptrdiff_t>(drop), path.end());
  path = std::move(out);
}

const DriverKey* find(const std::vector<DriverKey>& keys, std::initializer_list<const char*> path) {
  for (const auto& k : keys)
    if (k.path->size() == path.size() && starts_with(*k.path, path)) return &k;
  return nullptr;
}

}  // namespace

// A reward model or distillation teachers take GPUs too: then the policy's share is unknown.
ClusterShare split_non_colocated(const ClusterShareTerms& t) {
  ClusterShare out;
  if (t.other_consumers) return out;
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
  if (*nodes == 1) {
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
    if (*gpus - *rg <= 0) {
      out.refusal = "No enough GPUs for training, train_gpus_per_node:" + std::to_string(*gpus - *rg) +
                    " = cluster_config['gpus_per_node']:" + std::to_string(*gpus) +
                    " - inference_gpus_per_node:" + std::to_string(*rg);
      return out;
    }
    out.train_nodes = 1;
    out.train_gpus_per_node = *gpus - *rg;
    out.generation_gpus = *rg;
    out.nodes_from = "cluster.num_nodes";
    out.gpus_from = "cluster.gpus_per_node - policy.generation.colocated.resources.gpus_per_node";
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
  if (*nodes - *rn <= 0) {
    out.refusal = "Non-colocated mode requires train_nodes > 0 and inference_nodes > 0";
    return out;
  }
  out.train_nodes = *nodes - *rn;
  out.train_gpus_per_node = *gpus;
  out.generation_gpus = *rn * *rg;
  out.nodes_from = "cluster.num_nodes - policy.generation.colocated.resources.num_nodes";
  out.gpus_from = "cluster.gpus_per_node";
  out.generation_from =
      "policy.generation.colocated.resources.num_nodes x policy.generation.colocated.resources.gpus_per_node";
  return out;
}

std::vector<Fact> cluster_share_facts(const ClusterShareTerms& terms, const ClusterShare& share,
                                      const Location& fallback, std::vector<std::string>& notes) {
  std::vector<Fact> out;
  auto at = [&](const ClusterShareTerms::Term& t) { return t.written ? t.at : fallback; };
  Fact g;
  g.key = Key::kRolloutWorldSize;
  g.location = at(terms.generation_gpus_per_node);
  g.origin = Origin::kYaml;
  g.spelling = share.generation_gpus ? share.generation_from : "the generation's resources";
  g.value = share.generation_gpus
                ? Value::integer(*share.generation_gpus)
                : Value::unknown("generation is not colocated and its GPUs are not known from its config");
  out.push_back(std::move(g));
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
  notes.push_back("generation is not colocated: the policy trains on " + std::to_string(*share.train_nodes) +
                  " node(s) of " + std::to_string(*share.train_gpus_per_node) + " GPUs (" + share.nodes_from +
                  "; " + share.gpus_from + "), nemo_rl/algorithms/grpo.py:862-915");
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
    bool consumer = starts_with(p, {"env", "reward_model"}) || starts_with(p, {"on_policy_distillation"}) ||
                    starts_with(p, {"env", "nemo_gym"}) || starts_with(p, {"teacher"});
    if (consumer && !(off && (p.size() == 1 || (p.size() == 2 && p[0] == "env")))) t.other_consumers = true;
    bool size_key = !p.empty() && (p.back() == "num_nodes" || p.back() == "gpus_per_node");
    if (size_key && !starts_with(p, {"cluster"}) &&
        !starts_with(p, {"policy", "generation", "colocated", "resources"}))
      t.other_consumers = true;
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
  return t;
}

// How many devices a ROLL device_mapping names: `list(range(0,32))`, `list(range(8))`,
// `list([0,1,2,3])`, `[1]`, and sums of them; nullopt for anything else.
std::optional<std::int64_t> device_count(std::string_view text) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '"' || s.front() == '\'')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == '\'')) s.remove_suffix(1);
    return s;
  };
  auto number = [](std::string_view s) -> std::optional<std::int64_t> {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string_view::npos)
      return std::nullopt;
    return std::stoll(std::string(s));
  };
  std::int64_t total = 0;
  text = trim(text);
  while (!text.empty()) {
    std::size_t plus = text.find('+');
    std::string_view term = trim(text.substr(0, plus));
    text = plus == std::string_view::npos ? std::string_view{} : text.substr(plus + 1);
    if (term.starts_with("list(") && term.ends_with(")")) term = trim(term.substr(5, term.size() - 6));
    if (term.starts_with("range(") && term.ends_with(")")) {
      std::string_view args = term.substr(6, term.size() - 7);
      auto comma = args.find(',');
      auto a =
          comma == std::string_view::npos ? std::optional<std::int64_t>(0) : number(args.substr(0, comma));
      auto b = number(comma == std::string_view::npos ? args : args.substr(comma + 1));
      if (!a || !b || *b < *a) return std::nullopt;
      total += *b - *a;
    } else if (term.starts_with("[") && term.ends_with("]")) {
      std::string_view items = term.substr(1, term.size() - 2);
      for (std::size_t from = 0; from <= items.size();) {
        std::size_t comma = items.find(',', from);
        std::string_view item =
            items.substr(from, comma == std::string_view::npos ? items.size() - from : comma - from);
        if (!number(item)) return std::nullopt;
        ++total;
        if (comma == std::string_view::npos) break;
        from = comma + 1;
      }
    } else {
      return std::nullopt;
    }
  }
  return total > 0 ? std::optional<std::int64_t>(total) : std::nullopt;
}

// ROLL (alibaba/ROLL @ 8eb27cc2dc34): a document holding one Megatron role (the YAML reader splits the
// roles into runs). mcore_adapter takes what strategy_config leaves out from the checkpoint
// (mcore_adapter/src/mcore_adapter/models/model_config.py:137-158), so nothing else is a default.
std::optional<DriverConfig> roll(std::vector<DriverKey>& keys) {
  std::string role, strategy;
  for (const auto& k : keys)
    if (k.path->size() == 3 && (*k.path)[1] == "strategy_args" && (*k.path)[2] == "strategy_name" &&
        k.scalar.starts_with("megatron_")) {
      role = (*k.path)[0];
      strategy = k.scalar;
    }
  if (role.empty()) return std::nullopt;
  DriverConfig out{Framework::kUnknown, "ROLL " + role + " (" + strategy + ")", "", "", false, false};
  out.driver = Driver::kRoll;
  out.traits.name = "ROLL";
  // ROLL's mcore_adapter turns SP off at TP 1 (mcore_adapter/src/mcore_adapter/models/model_config.py:
  // 368-373@8eb27cc2dc34).
  out.traits.turns_sp_off_at_tp1 = true;
  out.from_checkpoint = true;
  for (auto& k : keys) {
    auto& p = *k.path;
    if (p.size() == 4 && p[0] == role && p[1] == "strategy_args" && p[2] == "strategy_config") {
      replace_prefix(p, 3, {"model"});
      k.quiet = true;  // mcore_adapter's own switches sit beside the Megatron-Core fields
    } else if (role == "actor_train" && p == std::vector<std::string>{"rollout_batch_size"}) {
      p = {"train", "global_batch_size"};  // the prompts of a step, which ROLL splits over DP (PL503)
    } else if (p.size() == 2 && p[0] == role && p[1] == "device_mapping") {
      out.world_size = device_count(k.scalar);
      out.world_from = role + ".device_mapping";
      out.world_spelling = "len(" + out.world_from + ")";
      k.own_key = true;
    } else {
      k.own_key = true;
    }
  }
  return out;
}

// ChatLearn (alibaba/ChatLearn @ b7af31a972eb): the GRPO trainer's model (models.policy_trainer), on
// models.policy_trainer.num_gpu GPUs (one replica: configs/megatron_config.py:352-366). ChatLearn hands
// the fields to Megatron-LM's parse_args and initialize_megatron (models/megatron_module.py:69-110), so
// Megatron-LM's checks apply; the model's dimensions come from its checkpoint.
std::optional<DriverConfig> chatlearn(std::vector<DriverKey>& keys) {
  bool trainer = false;
  const DriverKey* backend = nullptr;
  for (const auto& k : keys) {
    if (starts_with(*k.path, {"models", "policy_trainer"})) trainer = true;
    if (*k.path == std::vector<std::string>{"runtime_args", "train_backend"}) backend = &k;
  }
  bool runtime = std::any_of(keys.begin(), keys.end(),
                             [](const DriverKey& k) { return starts_with(*k.path, {"runtime_args"}); });
  if (!trainer || !runtime) return std::nullopt;
  if (backend && backend->scalar != "megatron") {
    for (auto& k : keys) k.own_key = true;  // the FSDP back end
    return DriverConfig{
        Framework::kMegatronLM, "ChatLearn policy_trainer (not Megatron)", "", "", false, true};
  }
  DriverConfig out{Framework::kMegatronLM, "ChatLearn policy_trainer (Megatron)", "", "", false, false};
  out.driver = Driver::kChatLearn;
  out.traits.name = "ChatLearn";
  out.traits.turns_sp_off_at_tp1 = true;  // its template's SP for every TP (template/grpo_megatron.yaml)
  const DriverKey* policy_gpus = find(keys, {"models", "policy", "num_gpu"});
  const bool policy_on_trainer_gpus =
      policy_gpus && policy_gpus->scalar == "${models.policy_trainer.num_gpu}";
  out.from_checkpoint = true;
  for (auto& k : keys) {
    auto& p = *k.path;
    if (p.size() == 3 && p[0] == "models" && p[1] == "policy_trainer" && p[2] == "num_gpu") {
      // A config file's GPU count is its template's placeholder (template/grpo_megatron.yaml: 1): the
      // launch gives the real one (models.policy_trainer.num_gpu=...), so the file alone has none.
      k.own_key = true;
    } else if (p.size() == 3 && p[0] == "models" && p[1] == "policy_trainer") {
      replace_prefix(p, 2, {"model"});
      k.quiet = true;  // ChatLearn's own switches (trainable, packing, ...) sit beside Megatron's fields
    } else if (p == std::vector<std::string>{"runtime_args", "train_global_batch_size"}) {
      p = {"train", "global_batch_size"};
    } else if (p == std::vector<std::string>{"models", "policy", "tensor_model_parallel_size"} &&
               policy_on_trainer_gpus) {
      // The rollout engine on the trainer's GPUs (models.policy.num_gpu: ${models.policy_trainer.num_gpu}).
      p = {"model", "rollout_tensor_parallel_size"};
      k.quiet = true;
    } else if (p.size() == 3 && p[0] == "models" && p[1] == "policy" &&
               (p[2] == "expert_model_parallel_size" || p[2] == "pipeline_model_parallel_size")) {
      // The rollout supports neither (chatlearn/configs/policy_config.py:89-90@b7af31a972eb): PL102.
      p = {"model", p[2] == "expert_model_parallel_size" ? "rollout_expert_parallel_size"
                                                         : "rollout_pipeline_parallel_size"};
      k.quiet = true;
    } else {
      k.own_key = true;
    }
  }
  return out;
}

// The rollout key a NeMo-RL policy.generation.vllm_cfg field is read as, or nullptr.
const char* vllm_layout_key(std::string_view field) {
  if (field == "tensor_parallel_size") return "rollout_tensor_parallel_size";
  if (field == "pipeline_parallel_size") return "rollout_pipeline_parallel_size";
  if (field == "expert_parallel_size") return "rollout_expert_parallel_size";
  if (field == "async_engine") return "rollout_async_engine";
  return nullptr;
}

std::optional<DriverConfig> nemo_rl(std::vector<DriverKey>& keys) {
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
  out.driver = Driver::kNemoRl;
  out.traits.name = "NeMo-RL";
  if (base_yaml) out.base = defaults->scalar;
  // megatron_cfg.enabled may be switched on by a config that inherits this one, so the keys stay; the
  // switch itself travels with the job (RawJob::megatron_on).
  const DriverKey* enabled = find(keys, {"policy", "megatron_cfg", "enabled"});
  if (enabled) out.megatron_on = !falsy(enabled->scalar);
  if (const DriverKey* m = find(keys, {"policy", "model_name"})) out.model = m->scalar;
  out.cluster_terms = cluster_terms(keys);
  out.world_unknown = out.cluster_terms.non_colocated();
  if (out.world_unknown) out.share = split_non_colocated(out.cluster_terms);
  for (auto& k : keys) {
    auto& p = *k.path;
    if (starts_with(p, {"policy", "megatron_cfg"}) && p.size() > 2) {
      if (p[2] == "distributed_data_parallel_config")
        replace_prefix(p, 3, {"ddp"});
      else if (p.size() == 3) {
        replace_prefix(p, 2, {"model"});
        k.quiet = true;  // NeMo-RL's own switches (enabled, empty_unused_memory_level, ...) sit beside them
      } else
        k.own_key = true;  // optimizer, scheduler, env_vars, ... of NeMo-RL's own layout
    } else if (p == std::vector<std::string>{"cluster", "num_nodes"} && !out.world_unknown) {
      p = {"trainer", "num_nodes"};
    } else if (p == std::vector<std::string>{"cluster", "gpus_per_node"} && !out.world_unknown) {
      p = {"trainer", "devices"};
    } else if (p == std::vector<std::string>{"policy", "train_global_batch_size"}) {
      p = {"train", "global_batch_size"};
    } else if (p == std::vector<std::string>{"policy", "train_micro_batch_size"}) {
      p = {"train", "micro_batch_size"};
    } else if (p == std::vector<std::string>{"policy", "max_total_sequence_length"}) {
      p = {"model", "seq_length"};
    } else if (p.size() == 4 && p[0] == "policy" && p[1] == "generation" && p[2] == "vllm_cfg" &&
               vllm_layout_key(p[3])) {
      // vLLM's layout (PL102): colocated, its TP x PP must divide the policy's GPUs; non-colocated, the
      // generation's own (the job's rollout_world_size).
      p = {"model", std::string(vllm_layout_key(p[3]))};
      k.quiet = true;
    } else {
      k.own_key = true;
    }
  }
  return out;
}

// verl turns sequence parallelism off itself at TP 1 (verl/workers/config/engine.py:133-135@b178a3cd56f5).
DriverTraits verl_traits() {
  DriverTraits t;
  t.name = "verl";
  t.turns_sp_off_at_tp1 = true;
  return t;
}

std::optional<DriverConfig> verl(std::vector<DriverKey>& keys) {
  bool megatron = std::any_of(keys.begin(), keys.end(), [](const DriverKey& k) {
    return starts_with(*k.path, {"actor_rollout_ref", "actor", "megatron"});
  });
  // verl's own config pieces name their dataclass: `_target_: verl.workers.config.McoreEngineConfig`.
  const DriverKey* target = nullptr;
  for (const auto& k : keys)
    if (k.path->size() == 1 && (*k.path)[0] == "_target_" && k.scalar.starts_with("verl.")) target = &k;
  if (target) {
    bool mcore = target->scalar.find("Mcore") != std::string::npos ||
                 target->scalar.find("Megatron") != std::string::npos;
    DriverConfig piece{Framework::kVerl,
                       "verl " + target->scalar.substr(target->scalar.rfind('.') + 1),
                       "",
                       "",
                       false,
                       !mcore};
    piece.traits = verl_traits();
    // Megatron-Core fields at the top of an engine config are read as they are; the rest is verl's own.
    for (auto& k : keys) {
      if (mcore && k.path->size() == 1)
        k.quiet = true;
      else
        k.own_key = true;
    }
    return piece;
  }
  if (!megatron) {
    bool ppo = std::any_of(keys.begin(), keys.end(),
                           [](const DriverKey& k) { return starts_with(*k.path, {"actor_rollout_ref"}); });
    if (!ppo) return std::nullopt;
    for (auto& k : keys) k.own_key = true;  // an FSDP (or other backend) verl config
    return DriverConfig{Framework::kVerl, "verl trainer (not Megatron)", "", "", false, true};
  }
  const DriverKey* strategy = find(keys, {"actor_rollout_ref", "actor", "strategy"});
  bool off = strategy && strategy->scalar != "megatron";
  DriverConfig out{Framework::kVerl, "verl actor (actor_rollout_ref.actor.megatron)", "", "", false, false};
  out.traits = verl_traits();
  if (const DriverKey* m = find(keys, {"actor_rollout_ref", "model", "path"})) out.model = m->scalar;
  for (auto& k : keys) {
    auto& p = *k.path;
    if (starts_with(p, {"actor_rollout_ref", "actor", "megatron"}) && p.size() == 4) {
      if (off) k.dropped = true;
      replace_prefix(p, 3, {"model"});
      k.quiet = true;  // verl's own engine switches sit beside the Megatron-Core fields
    } else if (p == std::vector<std::string>{"trainer", "nnodes"}) {
      p = {"trainer", "num_nodes"};
    } else if (p == std::vector<std::string>{"trainer", "n_gpus_per_node"}) {
      p = {"trainer", "devices"};
    } else {
      k.own_key = true;  // rollout, critic, ref, data, ... (verl's own)
    }
  }
  out.not_megatron = off;
  return out;
}

std::optional<DriverConfig> flagscale(std::vector<DriverKey>& keys) {
  auto parallel = [](const DriverKey& k) {
    return k.path->size() == 2 && (*k.path)[0] == "system" &&
           ((*k.path)[1] == "tensor_model_parallel_size" || (*k.path)[1] == "pipeline_model_parallel_size");
  };
  bool system = std::any_of(keys.begin(), keys.end(), parallel);
  bool runner = find(keys, {"experiment", "runner", "nnodes"}) ||
                find(keys, {"experiment", "runner", "nproc_per_node"});
  bool task = find(keys, {"experiment", "task", "backend"}) != nullptr;
  if (!system && !(runner && task)) return std::nullopt;
  DriverConfig out{
      Framework::kMegatronLM, "FlagScale (Megatron-LM arguments under system/model)", "", "", false, false};
  for (auto& k : keys) {
    auto& p = *k.path;
    if (p.size() == 2 && p[0] == "system") {
      replace_prefix(p, 1, {"model"});
      k.quiet = true;  // FlagScale's own system switches sit beside Megatron-LM's arguments
    } else if (p.size() == 2 && p[0] == "model") {
      k.quiet = true;  // Megatron-LM arguments, and FlagScale's own model keys
    } else if (p == std::vector<std::string>{"experiment", "runner", "nnodes"}) {
      p = {"trainer", "num_nodes"};
    } else if (p == std::vector<std::string>{"experiment", "runner", "nproc_per_node"}) {
      p = {"trainer", "devices"};
    } else {
      k.own_key = true;  // system.precision.*, system.logging.*, experiment.*, data.*, ...
    }
  }
  return out;
}

// GPT-NeoX (EleutherAI): a Megatron fork on DeepSpeed with its own configuration keys and checks
// (megatron/neox_arguments/neox_args.py:60,65@ea7aefd8f8e1: pipe_parallel_size, model_parallel_size at
// the top level) and no context or expert-tensor parallelism. Read as Megatron-Core YAML its layout
// would be the defaults (TP 1, PP 1) and every check and suggestion built on them wrong: no job.
std::optional<DriverConfig> gpt_neox(std::vector<DriverKey>& keys) {
  bool neox = std::any_of(keys.begin(), keys.end(), [](const DriverKey& k) {
    return k.path->size() == 1 &&
           ((*k.path)[0] == "pipe_parallel_size" || (*k.path)[0] == "model_parallel_size");
  });
  if (!neox) return std::nullopt;
  for (auto& k : keys) k.own_key = true;
  return DriverConfig{Framework::kUnknown, "GPT-NeoX config (not read)", "", "", false, true};
}

}  // namespace

std::optional<DriverConfig> rewrite_driver_keys(std::vector<DriverKey>& keys) {
  if (auto c = nemo_rl(keys)) return c;
  if (auto c = verl(keys)) return c;
  if (auto c = roll(keys)) return c;
  if (auto c = chatlearn(keys)) return c;
  if (auto c = gpt_neox(keys)) return c;
  return flagscale(keys);
}

}  // namespace parlint
