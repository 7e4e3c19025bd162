// PL503 batch-divisibility: global_batch_size % (micro_batch_size * DP) != 0.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize,
                          Key::kContextParallelSize,     Key::kGlobalBatchSize,
                          Key::kMicroBatchSize,          Key::kWorldSize,
                          Key::kRolloutStepBatchSize,    Key::kRolloutSamples,
                          Key::kRolloutGroupSize};

constexpr RuleInfo kInfo{"PL503",
                         "batch-divisibility",
                         Severity::kError,
                         "global_batch_size % (micro_batch_size * DP) != 0",
                         R"md(# PL503 batch-divisibility

## What it does
Checks that the global batch splits into whole microbatches on every data-parallel rank. When the world
size (so DP) is not known, a global batch the micro-batch size itself does not divide is still reported:
`micro_batch_size·DP` divides no such batch, whatever DP turns out to be.

For verl's Megatron actor the batch is `data.train_batch_size x actor_rollout_ref.rollout.n` and the
micro-batch `ppo_micro_batch_size_per_gpu`: verl's own `validate_config` refuses the run before starting
its workers when one does not split into the other over DP (`verl/utils/config.py:87-113@b178a3cd56f5`;
not checked with `use_dynamic_bsz`).

ROLL checks `rollout_batch_size` (the prompts of a step) against `actor_train`'s DP, computed from the
sizes its `strategy_config` writes and 1 for the others (`roll/utils/config_utils.py:74-98@8eb27cc2dc34`).

slime with `--num-steps-per-rollout S` sets the global batch itself, `--rollout-batch-size x
--n-samples-per-prompt // S`, and asserts that a `--global-batch-size` written beside it is that number
(`slime/utils/arguments.py:1972-1980@624b824a898a`); the batch it sets is then checked like any other,
since slime builds Megatron-Core's microbatch calculator with it
(`slime/backends/megatron_utils/initialize.py:78-86@624b824a898a`).

ChatLearn's GRPO (`chatlearn/entrypoint.py grpo --config-file X.yaml key=value ...`) checks its own batch
settings before it starts Ray, as written in the launch's overrides or its config file:
`runtime_args.sample_per_episode` (the samples one episode generates) must be a multiple of
`models.policy.num_inference_per_prompt` (the responses per prompt;
`chatlearn/algorithm/grpo.py:140-141@b7af31a972eb`) and of `runtime_args.train_global_batch_size`, whose
quotient is the number of training steps of an episode
(`chatlearn/configs/runtime_config.py:211-216@b7af31a972eb`). Only values written in both places are
compared: a default (32 responses per prompt) never is.

## Why
The microbatch calculator asserts "global batch size (GBS) is not divisible by micro batch size (MBS)
times data parallel size (DP)" (Megatron-LM, Megatron-Bridge and NeMo all use it).

## Example
```yaml
trainer: {num_nodes: 2, devices: 8}
model:
  tensor_model_parallel_size: 2
  global_batch_size: 100
  micro_batch_size: 2
```

## Fix
```yaml
trainer: {num_nodes: 2, devices: 8}
model:
  tensor_model_parallel_size: 2
  global_batch_size: 96
  micro_batch_size: 2
```

`parlint check --fix --unsafe-fixes` sets the global batch size to the nearest multiple of
micro_batch_size·DP (the smaller one on a tie) where it is written: an **unsafe** fix, because the batch
size changes the optimisation (learning rate schedules are often tuned to it).

## Framework behaviour
Refused at start-up (unless `decrease_batch_size_if_needed`, which silently rounds GBS down).

## References
- Megatron-LM `megatron/core/num_microbatches_calculator.py:381-391@d98e8a64ddf3` (GBS % (MBS·DP)
  asserted, then at least one microbatch)
- Megatron-LM `megatron/core/num_microbatches_calculator.py:368-379@d98e8a64ddf3`
  (`decrease_batch_size_if_needed` rounds GBS down)
- ChatLearn `chatlearn/algorithm/grpo.py:140-141@b7af31a972eb` (sample_per_episode against
  num_inference_per_prompt) and `chatlearn/configs/runtime_config.py:211-216@b7af31a972eb`
  (sample_per_episode against train_global_batch_size)
- Megatron-Bridge `src/megatron/bridge/training/initialize.py:115@067f987df03b` and NeMo
  `nemo/lightning/megatron_init.py:183@8cfedd720346` (both use this calculator)
)md",
                         kReads,
                         FixAvailability::kUnsafe};

class BatchDivisibility final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  // A framework's own refusal or help, filled in with the batch's numbers.
  struct BatchTerms {
    std::int64_t gbs, mbs, dp, unit;
    std::string spelling, near;
  };
  static std::string fill(const std::string& text, const BatchTerms& t) {
    return fmt::format(fmt::runtime(text), fmt::arg("gbs", t.gbs), fmt::arg("mbs", t.mbs),
                       fmt::arg("dp", t.dp), fmt::arg("unit", t.unit), fmt::arg("spelling", t.spelling),
                       fmt::arg("near", t.near));
  }

  // A framework that checks the batch against the DP of the sizes its config writes (1 for the others)
  // before it starts, whatever the micro-batch (ROLL's rollout_batch_size against actor_train's DP).
  static void written_sizes_batch(const Job& job, const BatchCheck& check, std::int64_t gbs,
                                  std::vector<Finding>& out) {
    auto size = [&](Key k) { return job.is_written(k) ? job.get_int(k) : std::optional<std::int64_t>(1); };
    auto world = job.get_int(Key::kWorldSize);
    auto tp = size(Key::kTensorModelParallelSize), pp = size(Key::kPipelineModelParallelSize),
         cp = size(Key::kContextParallelSize);
    if (!world || !tp || !pp || !cp || *tp * *pp * *cp <= 0 || *world % (*tp * *pp * *cp) != 0) return;
    std::optional<std::int64_t> dp = *world / (*tp * *pp * *cp);
    const Fact* at = job.fact(Key::kGlobalBatchSize);
    if (!dp || *dp <= 1 || gbs % *dp == 0 || !at->location.in_file()) return;
    BatchTerms terms{gbs, 0, *dp, *dp, at->spelling, ""};
    Finding f;
    f.location = at->location;
    f.message = fill(check.refusal, terms);
    f.help = fill(check.help, terms);
    out.push_back(std::move(f));
  }

  // slime with --num-steps-per-rollout: a --global-batch-size written beside it must be the rollout's
  // samples over the steps (slime/utils/arguments.py:1972-1980@624b824a898a).
  static bool slime_step_batch(const Job& job, std::int64_t gbs, std::vector<Finding>& out) {
    const Fact* step = job.fact(Key::kRolloutStepBatchSize);
    const Fact* written = job.fact(Key::kGlobalBatchSize);
    if (!step || !step->value.as_int() || !written || !written->location.in_file()) return false;
    const std::int64_t s = *step->value.as_int();
    if (s == gbs || written->location.range == step->location.range) return false;
    Finding f;
    f.location = written->location;
    f.message = fmt::format(
        "--global-batch-size={} but {} = {}; slime asserts \"global_batch_size {} is not equal to "
        "rollout_batch_size ... // num_steps_per_rollout ...\" when it parses its arguments",
        gbs, step->spelling, s, gbs);
    f.help = fmt::format("remove --global-batch-size (slime sets it to {}), or change the rollout terms", s);
    f.related.push_back({step->location, fmt::format("{} = {}", step->spelling, s)});
    for (const auto& w : step->written_at) f.related.push_back(w);
    out.push_back(std::move(f));
    return true;
  }

  // The framework's own divisibilities between two of its batch settings, both written (a default is
  // never compared).
  static void own_divisibility(const Job& job, const DivisibilityCheck& check, std::vector<Finding>& out) {
    auto written = [&](Key k) -> const Fact* {
      const Fact* f = job.fact(k);
      return f && f->location.in_file() && !f->weak ? f : nullptr;
    };
    const Fact* of = written(check.of);
    const Fact* by = written(check.by);
    if (!of || !by) return;
    auto a = of->value.as_int(), b = by->value.as_int();
    if (!a || !b || *a <= 0 || *b <= 0 || *a % *b == 0) return;
    std::vector<std::int64_t> near;
    if (*a / *b > 0) near.push_back(*a / *b * *b);
    near.push_back((*a / *b + 1) * *b);
    auto fill_in = [&](const std::string& text) {
      return fmt::format(fmt::runtime(text), fmt::arg("of", *a), fmt::arg("by", *b),
                         fmt::arg("of_spelling", of->spelling), fmt::arg("by_spelling", by->spelling),
                         fmt::arg("near", join_numbers(near, " or ")));
    };
    Finding f;
    f.location = of->location;
    f.message = fill_in(check.refusal);
    f.help = fill_in(check.help);
    f.related.push_back({by->location, fmt::format("{}={} set here", by->spelling, *b)});
    out.push_back(std::move(f));
  }

  // With DP unknown: a global batch the micro-batch does not divide is refused at every DP, since
  // micro_batch_size·DP must divide it (Megatron's microbatch calculator; a framework with a batch check
  // of its own decides for itself).
  static void micro_batch_only(const Job& job, std::int64_t gbs, std::int64_t mbs, bool own,
                               std::vector<Finding>& out) {
    if (own || gbs % mbs == 0) return;
    const Fact* gbs_fact = job.fact(Key::kGlobalBatchSize);
    const Fact* mbs_fact = job.fact(Key::kMicroBatchSize);
    if (!gbs_fact->location.in_file() || !mbs_fact->location.in_file()) return;
    Finding f;
    f.location = gbs_fact->location;
    f.message = fmt::format(
        "global_batch_size={} is not a multiple of micro_batch_size={}, so no data-parallel size makes "
        "it a multiple of micro_batch_size·DP; the microbatch calculator asserts \"global batch size ({}) is "
        "not divisible by micro batch size ({}) times data parallel size (DP)\" whatever the world size",
        gbs, mbs, gbs, mbs);
    std::vector<std::int64_t> near;
    if (gbs / mbs > 0) near.push_back(gbs / mbs * mbs);
    near.push_back((gbs / mbs + 1) * mbs);
    f.help = fmt::format("use a global batch size that is a multiple of {} ({}) and of micro_batch_size·DP",
                         mbs, join_numbers(near, " or "));
    f.related.push_back({mbs_fact->location, fmt::format("micro_batch_size={} set here", mbs)});
    out.push_back(std::move(f));
  }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    for (const DivisibilityCheck& check : job.driver_traits().divisibility) own_divisibility(job, check, out);
    auto gbs = job.get_int(Key::kGlobalBatchSize), mbs = job.get_int(Key::kMicroBatchSize);
    // A framework that builds Megatron itself may check the batch first, its own way (its adapter says).
    const std::optional<BatchCheck>& own = job.driver_traits().batch;
    if (gbs && own && own->divisor == BatchCheck::Divisor::kDpOfWrittenSizes)
      return written_sizes_batch(job, *own, *gbs, out);
    if (gbs && slime_step_batch(job, *gbs, out)) return;
    if (!gbs || !mbs || *mbs <= 0) return;
    auto dp = job.data_parallel();
    if (!dp || *dp <= 0) return micro_batch_only(job, *gbs, *mbs, own.has_value(), out);
    std::int64_t unit = *mbs * *dp;
    if (*gbs % unit == 0 && *gbs >= unit) return;
    const Fact* gbs_fact = job.fact(Key::kGlobalBatchSize);
    Finding f;
    f.location = gbs_fact->location.in_file() ? gbs_fact->location : job.fact(Key::kMicroBatchSize)->location;
    if (!f.location.in_file()) return;
    f.weak = job.fact(Key::kWorldSize)->weak;
    f.message = fmt::format(
        "global_batch_size={} is not a multiple of micro_batch_size·DP = {}·{} = {}; the microbatch "
        "calculator asserts \"global batch size ({}) is not divisible by micro batch size ({}) times "
        "data parallel size ({})\"",
        *gbs, *mbs, *dp, unit, *gbs, *mbs, *dp);
    // A framework that shards the batch over DP itself asks only that DP divide it.
    if (own && own->divisor == BatchCheck::Divisor::kDp && *gbs % *dp == 0) return;
    std::vector<std::int64_t> near;
    if (*gbs / unit > 0) near.push_back(*gbs / unit * unit);
    near.push_back((*gbs / unit + 1) * unit);
    f.help = fmt::format("use a global batch size of {}", join_numbers(near, " or "));
    // Unsafe: the batch size changes the optimisation. The nearest multiple, the smaller one on a tie.
    std::int64_t to = near.back();
    if (near.size() == 2 && *gbs - near.front() <= near.back() - *gbs) to = near.front();
    if (own) {
      BatchTerms terms{*gbs, *mbs, *dp, unit, gbs_fact->spelling, join_numbers(near, " or ")};
      if (!own->refusal.empty()) f.message = fill(own->refusal, terms);
      if (!own->help.empty()) f.help = fill(own->help, terms);
    }
    // slime's own global batch, computed from its rollout terms: those are what to change.
    const Fact* step = job.fact(Key::kRolloutStepBatchSize);
    const bool slime_sets_it = step && step->location.range == gbs_fact->location.range;
    if (slime_sets_it) {
      f.message = fmt::format(
          "slime's global batch {} = {} is not a multiple of micro_batch_size·DP = {}·{} = {}; Megatron-LM's "
          "microbatch calculator asserts \"global batch size ({}) is not divisible by micro batch size ({}) "
          "times data parallel size ({})\"",
          step->spelling, *gbs, *mbs, *dp, unit, *gbs, *mbs, *dp);
      f.help = fmt::format(
          "choose --rollout-batch-size and --n-samples-per-prompt so that {} is a multiple of {} "
          "(e.g. {})",
          step->spelling, unit, join_numbers(near, " or "));
      for (const auto& w : step->written_at) f.related.push_back(w);
    }
    if (gbs_fact->location.in_file() && !f.weak && (!own || own->fix) && !slime_sets_it)
      f.fix = FixRequest{FixApplicability::kUnsafe,
                         fmt::format("set global_batch_size to {}", to),
                         {set_value(*gbs_fact, Value::integer(to))}};
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(BatchDivisibility);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
