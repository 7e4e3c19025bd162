// slime (THUDM/slime @ 624b824a898a): train.py / train_async.py with its own cluster flags beside
// Megatron-LM's. Megatron-LM's parse_args and validate_args read the Megatron flags
// (slime/backends/megatron_utils/arguments.py:195), with world_size = --actor-num-nodes x
// --actor-num-gpus-per-node (:206); Ray places one actor per GPU (slime/ray/actor_group.py:58).
#include <algorithm>

#include "parsers/args/argument_words.h"
#include "parsers/frameworks/adapters.h"

namespace parlint {
namespace {

// slime's training step with --num-steps-per-rollout S: each rollout's --rollout-batch-size R prompts x
// --n-samples-per-prompt N samples, split into S steps, so the global batch is R x N // S; a
// --global-batch-size written beside it must equal that (slime/utils/arguments.py:1972-1980@624b824a898a).
void step_batch(std::span<const Word> args, RawJob& job) {
  // A count as written: its flag (null when not written) and its value (nullopt when not a positive
  // number, e.g. known only at run time: the batch is then unknown).
  struct Count {
    const Word* flag = nullptr;
    std::optional<std::int64_t> value;
  };
  auto count = [&](std::string_view name) {
    Count c;
    if (auto v = last_flag_value(args, name)) {
      c.flag = v->flag;
      auto n = word_value(*v->value, v->text, KeyType::kInt, false).as_int();
      if (n && *n > 0) c.value = n;
    }
    return c;
  };
  Count steps = count("--num-steps-per-rollout");
  if (!steps.flag) return;
  Count prompts = count("--rollout-batch-size"), samples = count("--n-samples-per-prompt");
  if (!steps.value || !prompts.value || (samples.flag && !samples.value)) return;
  const std::int64_t per_prompt = samples.flag ? *samples.value : 1;
  Fact f;
  f.key = Key::kRolloutStepBatchSize;
  f.origin = Origin::kLauncherFlag;
  f.location = steps.flag->location;
  f.spelling = samples.flag ? "--rollout-batch-size x --n-samples-per-prompt // --num-steps-per-rollout"
                            : "--rollout-batch-size // --num-steps-per-rollout";
  f.value = Value::integer(*prompts.value * per_prompt / *steps.value);
  f.written_at.push_back({prompts.flag->location, "--rollout-batch-size=" + std::to_string(*prompts.value)});
  if (samples.flag)
    f.written_at.push_back({samples.flag->location, "--n-samples-per-prompt=" + std::to_string(per_prompt)});
  bool batch_written = std::any_of(job.facts.begin(), job.facts.end(),
                                   [](const Fact& g) { return g.key == Key::kGlobalBatchSize; });
  if (!batch_written) {  // slime sets the global batch itself
    Fact g = f;
    g.key = Key::kGlobalBatchSize;
    job.facts.push_back(std::move(g));
  }
  job.facts.push_back(std::move(f));
}

// Its SGLang rollout: --rollout-num-gpus-per-engine GPUs per engine, split into SGLang's TP x PP
// (slime/backends/sglang_utils/arguments.py:173-184@624b824a898a), and as many engines as the rollout GPUs
// hold, counted by floor division (slime/ray/rollout.py:1031-1035@624b824a898a).
RolloutTraits sglang_rollout() {
  using When = RolloutRefusal::When;
  RolloutTraits t;
  t.refusals = {
      {When::kEngineGpusNotMultipleOfPp, Key::kRolloutPipelineParallelSize,
       "--rollout-num-gpus-per-engine {engine_gpus} is not a multiple of SGLang's pipeline-parallel size "
       "{pp}; "
       "slime asserts \"rollout_num_gpus_per_engine ({engine_gpus}) must be divisible by "
       "sglang_pipeline_parallel_size ({pp})\" when it parses its arguments",
       "use a --rollout-num-gpus-per-engine that is a multiple of {pp} (each engine runs TP = "
       "--rollout-num-gpus-per-engine / {pp})",
       Key::kRolloutGpusPerEngine, "--rollout-num-gpus-per-engine {engine_gpus}"},
      {When::kDataParallelWithoutDpAttention, Key::kRolloutDataParallelSize,
       "--sglang-dp-size {dp} without --sglang-enable-dp-attention; slime asserts sglang_enable_dp_attention "
       "(a bare assert, an AssertionError with no message) when it parses its arguments",
       "add --sglang-enable-dp-attention, or drop --sglang-dp-size"}};
  t.idle_gpus_warning =
      "the {world} rollout GPUs are not a multiple of --rollout-num-gpus-per-engine {engine_gpus}: slime "
      "counts its SGLang engines by floor division, so it starts {engines} engine(s) and leaves {idle} "
      "GPU(s) "
      "idle, without a message";
  t.idle_gpus_help =
      "give the rollout a multiple of {engine_gpus} GPUs, or a --rollout-num-gpus-per-engine that divides "
      "{world}";
  return t;
}

// The rollout's sizes as the launch writes them: its engines' GPUs and SGLang's PP and DP, whether DP
// attention is on (known off only when every argument is known), and the rollout's GPUs — --rollout-num-gpus,
// else the actor's under --colocate (slime/utils/arguments.py:1951-1952@624b824a898a) — where each engine
// fits on a node (--num-gpus-per-node, default 8) and slime starts the engines itself (no --sglang-config,
// no prefill servers, no external engines).
void rollout_sizes(std::span<const Word> args, bool arguments_complete, RawJob& job) {
  auto has = [&](std::string_view name) {
    return std::any_of(args.begin(), args.end(), [&](const Word& a) {
      std::string_view t = a.text;
      return t == name || (t.starts_with(name) && t.size() > name.size() && t[name.size()] == '=');
    });
  };
  struct Written {
    const Word* flag = nullptr;
    std::optional<FlagValue> value;
    Value v;
  };
  // The last of a flag's spellings written, with its value.
  auto written = [&](std::initializer_list<std::string_view> names) {
    Written out;
    for (std::string_view name : names)
      if (auto v = last_flag_value(args, name); v && (!out.flag || v->flag > out.flag)) {
        out.flag = v->flag;
        out.value = v;
        out.v = word_value(*v->value, v->text, KeyType::kInt, false);
      }
    return out;
  };
  auto fact = [&](Key key, const Written& w, std::string spelling) {
    Fact f;
    f.key = key;
    f.origin = Origin::kLauncherFlag;
    f.value = w.v;
    f.location = span(w.flag->location, w.value->value->location);
    f.spelling = std::move(spelling);
    f.written_at = w.value->value->written_at;
    job.facts.push_back(std::move(f));
  };
  Written per_engine = written({"--rollout-num-gpus-per-engine"});
  if (per_engine.flag) fact(Key::kRolloutGpusPerEngine, per_engine, "--rollout-num-gpus-per-engine");
  Written pp = written({"--sglang-pp-size", "--sglang-pipeline-parallel-size"});
  if (pp.flag)
    fact(Key::kRolloutPipelineParallelSize, pp,
         std::string(pp.flag->text.substr(0, pp.flag->text.find('='))));
  Written dp = written({"--sglang-dp-size", "--sglang-data-parallel-size"});
  if (dp.flag)
    fact(Key::kRolloutDataParallelSize, dp, std::string(dp.flag->text.substr(0, dp.flag->text.find('='))));
  const bool dp_attention = has("--sglang-enable-dp-attention");
  if (dp_attention || arguments_complete) {
    Fact f;
    f.key = Key::kRolloutDpAttention;
    f.origin = Origin::kLauncherFlag;
    f.value = Value::boolean(dp_attention);
    f.spelling = dp_attention ? "--sglang-enable-dp-attention" : "--sglang-enable-dp-attention (not given)";
    job.facts.push_back(std::move(f));
  }

  // The rollout's GPUs, where slime starts one group of engines on them.
  if (!per_engine.flag || has("--sglang-config") || has("--prefill-num-servers") ||
      has("--rollout-external-engine-addrs"))
    return;
  Written node = written({"--num-gpus-per-node"});
  auto per_node = node.flag            ? node.v.as_int()
                  : arguments_complete ? std::optional<std::int64_t>(8)
                                       : std::nullopt;
  auto g = per_engine.v.as_int();
  if (!per_node || !g || *g > *per_node) return;  // an engine over several nodes is counted per node
  Written rollout = written({"--rollout-num-gpus"});
  if (rollout.flag) {
    fact(Key::kRolloutWorldSize, rollout, "--rollout-num-gpus");
    return;
  }
  if (!has("--colocate")) return;
  Written nodes = written({"--actor-num-nodes"}), gpus = written({"--actor-num-gpus-per-node"});
  if (!nodes.flag || !gpus.flag) return;  // the actor's GPUs as written, not slime's defaults
  auto n = nodes.v.as_int(), m = gpus.v.as_int();
  if (!n || !m) return;
  Fact f;
  f.key = Key::kRolloutWorldSize;
  f.origin = Origin::kLauncherFlag;
  f.value = Value::integer(*n * *m);
  f.location = span(gpus.flag->location, gpus.value->value->location);
  f.spelling = "--actor-num-nodes x --actor-num-gpus-per-node (--colocate)";
  job.facts.push_back(std::move(f));
}

class Slime final : public LaunchAdapter {
 public:
  std::string_view name() const override { return "slime"; }

  bool claims(const LaunchCommand& launch) const override {
    std::string_view script = entry_file_name(launch.entry);
    if (script != "train.py" && script != "train_async.py") return false;
    return std::any_of(launch.args.begin(), launch.args.end(), [](const Word& a) {
      std::string_view t = a.text;
      return t.starts_with("--actor-num-nodes") || t.starts_with("--actor-num-gpus-per-node") ||
             t.starts_with("--rollout-num-gpus");
    });
  }

  // One job, the actor: Megatron-LM's flags as Megatron-LM reads them.
  std::vector<RoleLaunch> roles(const LaunchCommand& launch) const override {
    RoleLaunch actor;
    actor.settings = parse_training_args(launch.args);
    return {std::move(actor)};
  }

  void complete(const LaunchCommand& launch, const RoleLaunch&, RawJob& job) const override {
    job.framework = Framework::kMegatronLM;
    job.launch = LaunchKind::kNone;  // one driver process; Ray starts the actors
    job.description = "slime actor (train.py, Megatron-LM, Ray)";
    auto flag = [&](std::string_view name, Key key, std::int64_t fallback) {
      Fact f;
      f.key = key;
      f.origin = Origin::kLauncherFlag;
      f.spelling = std::string(name);
      f.value = Value::integer(fallback);
      f.spelling += " (slime default)";
      if (auto v = last_flag_value(launch.args, name)) {
        f.value = word_value(*v->value, v->text, KeyType::kInt, false);
        f.location = span(v->flag->location, v->value->location);
        f.spelling = std::string(name);
        f.written_at = v->value->written_at;
      }
      job.facts.push_back(std::move(f));
    };
    flag("--actor-num-nodes", Key::kNodes, 1);                // slime/utils/arguments.py:39
    flag("--actor-num-gpus-per-node", Key::kGpusPerNode, 8);  // :40-42
    step_batch(launch.args, job);
    rollout_sizes(launch.args, job.arguments_complete, job);
    job.driver_traits.name = "slime";
    job.driver_traits.rollout = sglang_rollout();
    job.notes.push_back(
        "slime trains on --actor-num-nodes x --actor-num-gpus-per-node GPUs (rollout GPUs are its own, "
        "shared with --colocate)");
  }
};

}  // namespace

const LaunchAdapter& slime_adapter() {
  static const Slime adapter;
  return adapter;
}

}  // namespace parlint
