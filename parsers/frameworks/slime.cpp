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
