// PL404 vpp-microbatches: with VPP, number of microbatches GBS/(MBS*DP) not divisible by PP.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize,
                          Key::kPipelineModelParallelSize,
                          Key::kVirtualPipelineModelParallelSize,
                          Key::kNumLayersPerVirtualPipelineStage,
                          Key::kNumLayers,
                          Key::kContextParallelSize,
                          Key::kMicrobatchGroupSizePerVpStage,
                          Key::kGlobalBatchSize,
                          Key::kMicroBatchSize,
                          Key::kWorldSize};

constexpr RuleInfo kInfo{
    "PL404",
    "vpp-microbatches",
    Severity::kError,
    "with VPP, the microbatches per step GBS/(MBS*DP) do not fit the schedule's group size "
    "(microbatch_group_size_per_vp_stage, default PP)",
    R"md(# PL404 vpp-microbatches

## What it does
With the interleaved schedule (PP > 1 and VPP), checks the number of microbatches per step,
M = GBS / (MBS·DP), against the schedule's group size g (`microbatch_group_size_per_vp_stage`, default
PP): PP ≤ g ≤ M, and M % g is 0 or at least PP. VPP is the job's, or Megatron-LM's
`(num_layers / PP) / --num-layers-per-virtual-pipeline-stage`.

## Why
The interleaved schedule runs microbatches in groups of g per virtual stage. Megatron-Core raises at the
first step: "The number of contiguous micro-batches in a virtual pipeline stage should range in [PP, M]"
(ValueError) or "The remainder of M (the total micro-batches) divided by N ... should be 0, or larger than
or equal to the pipeline-parallel size" (RuntimeError), `megatron/core/pipeline_parallel/schedules.py:1160-1180@d98e8a64ddf3`.
With g = PP this is "M a multiple of PP"; a larger g allows more (GLM-5.2's recipe: PP 13, VPP 2, M 32,
g 16: 32 % 16 = 0 and 13 ≤ 16 ≤ 32, valid).

## Example
```yaml
trainer: {num_nodes: 1, devices: 8}
model:
  num_layers: 32
  pipeline_model_parallel_size: 4
  virtual_pipeline_model_parallel_size: 2
  global_batch_size: 12
  micro_batch_size: 1
```

## Fix
```yaml
trainer: {num_nodes: 1, devices: 8}
model:
  num_layers: 32
  pipeline_model_parallel_size: 4
  virtual_pipeline_model_parallel_size: 2
  global_batch_size: 16
  micro_batch_size: 1
```

`parlint check --fix --unsafe-fixes` sets the global batch size to the nearest multiple of MBS·DP·g (the
smaller one on a tie) where it is written: an **unsafe** fix, since the batch size changes the
optimisation.

## Framework behaviour
Fails at the first training step in every framework.

## References
- Megatron-LM `megatron/core/pipeline_parallel/schedules.py:1160-1180@d98e8a64ddf3` (PP <= g <= M, and a
  remainder M % g of 0 or at least PP)
- Megatron-LM `megatron/core/model_parallel_config.py:567-568@d98e8a64ddf3` (g defaults to PP)
- Megatron-Bridge `src/megatron/bridge/recipes/glm/h100/glm5.py:54-60@067f987df03b` (GLM-5.2 on 416 H100:
  PP 13, VPP 2, g 16; GBS 1024 at line 97)
)md",
    kReads,
    FixAvailability::kUnsafe};

class VppMicrobatches final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.trains()) return;  // a generation, serving or conversion run: no training to tune or fail
    auto pp = job.get_int(Key::kPipelineModelParallelSize),
         vpp = job.get_int(Key::kVirtualPipelineModelParallelSize);
    // Megatron-LM's --num-layers-per-virtual-pipeline-stage: VPP = (layers / PP) / layers per chunk
    // (megatron/training/arguments.py, validate_args).
    const Fact* per_chunk = job.fact(Key::kNumLayersPerVirtualPipelineStage);
    if ((!vpp || *vpp <= 1) && pp && *pp > 1 && per_chunk && per_chunk->location.in_file()) {
      auto per = per_chunk->value.as_int();
      auto layers = job.get_int(Key::kNumLayers);
      if (per && *per > 0 && layers && *layers % *pp == 0 && (*layers / *pp) % *per == 0)
        vpp = *layers / *pp / *per;
    }
    auto gbs = job.get_int(Key::kGlobalBatchSize), mbs = job.get_int(Key::kMicroBatchSize);
    if (!pp || *pp <= 1 || !vpp || *vpp <= 1 || !gbs || !mbs || *mbs <= 0) return;
    auto dp = job.data_parallel();
    if (!dp || *dp <= 0 || *gbs % (*mbs * *dp) != 0) return;  // PL503 reports the batch split
    std::int64_t m = *gbs / (*mbs * *dp);
    // The schedule runs microbatches in groups of g per virtual stage (default g = PP): it needs
    // PP <= g <= M and a last group that is empty or at least PP long (schedules.py:1160-1180).
    std::int64_t g = *pp;
    const Fact* g_fact = job.fact(Key::kMicrobatchGroupSizePerVpStage);
    if (g_fact) {
      if (g_fact->value.is_unknown()) return;
      if (auto v = g_fact->value.as_int()) g = *v;
    }
    std::int64_t rest = g > 0 ? m % g : 0;
    bool range_ok = g >= *pp && g <= m;
    if (range_ok && (rest == 0 || rest >= *pp)) return;
    const Fact* gbs_fact = job.fact(Key::kGlobalBatchSize);
    std::string group = g_fact && g_fact->location.in_file()
                            ? fmt::format("microbatch_group_size_per_vp_stage={}", g)
                            : fmt::format("the default group of PP={} microbatches", g);
    Finding f;
    const Fact* vpp_fact = job.fact(Key::kVirtualPipelineModelParallelSize);
    if (!vpp_fact || !vpp_fact->location.in_file()) vpp_fact = per_chunk ? per_chunk : vpp_fact;
    f.location = gbs_fact->location.in_file() ? gbs_fact->location : vpp_fact->location;
    if (!range_ok)
      f.message = fmt::format(
          "the interleaved schedule (PP={}, VPP={}) runs {} per virtual stage, but a step has only "
          "GBS/(MBS·DP) = {}/({}·{}) = {} microbatches; Megatron-Core raises \"The number of contiguous "
          "micro-batches in a virtual pipeline stage should range in [PP={} , M={}]\" at the first step",
          *pp, *vpp, group, *gbs, *mbs, *dp, m, *pp, m);
    else
      f.message = fmt::format(
          "the interleaved schedule (PP={}, VPP={}) runs {}; GBS/(MBS·DP) = {}/({}·{}) = {} microbatches "
          "leave a last group of {}, fewer than PP; Megatron-Core raises \"The remainder of M ... should be "
          "0, "
          "or larger than or equal to the pipeline-parallel size\" at the first step",
          *pp, *vpp, group, *gbs, *mbs, *dp, m, rest);
    std::int64_t step = *mbs * *dp * g;
    f.help = fmt::format("use a global batch size that is a multiple of MBS·DP·{} = {} ({} or {})",
                         g == *pp ? "PP" : "g", step, std::max<std::int64_t>(step, *gbs / step * step),
                         (*gbs / step + 1) * step);
    if (g_fact && g_fact->location.in_file()) f.related.push_back({g_fact->location, "group size set here"});
    // Unsafe (the batch size changes the optimisation): the nearest multiple, the smaller one on a tie.
    std::int64_t below = *gbs / step * step, above = (*gbs / step + 1) * step;
    std::int64_t to = below >= step && *gbs - below <= above - *gbs ? below : above;
    if (gbs_fact->location.in_file() && !gbs_fact->weak)
      f.fix = FixRequest{FixApplicability::kUnsafe,
                         fmt::format("set global_batch_size to {}", to),
                         {set_value(*gbs_fact, Value::integer(to))}};
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(VppMicrobatches);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
