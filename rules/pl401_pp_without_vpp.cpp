// PL401 pp-without-vpp: PP > 1, no VPP and no layout, and layers per stage >= 2.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kPipelineModelParallelSize, Key::kVirtualPipelineModelParallelSize,
                          Key::kPipelineModelParallelLayout, Key::kNumLayersPerVirtualPipelineStage,
                          Key::kNumLayers};

constexpr RuleInfo kInfo{"PL401",
                         "pp-without-vpp",
                         Severity::kInfo,
                         "PP > 1, no VPP and no layout, and layers per stage >= 2",
                         R"md(# PL401 pp-without-vpp

## What it does
Advice: with pipeline parallelism and at least two layers per stage, an interleaved schedule (VPP)
shrinks the pipeline bubble.

## Why
The 1F1B bubble is (PP-1)/microbatches of the step; splitting each stage into VPP chunks divides it by
VPP at the cost of more point-to-point messages.

## Example
```yaml
model:
  num_layers: 32
  pipeline_model_parallel_size: 4
```

## Fix
```yaml
model:
  num_layers: 32
  pipeline_model_parallel_size: 4
  virtual_pipeline_model_parallel_size: 2
```

## Framework behaviour
Runs; this is throughput advice. Megatron-DeepSpeed is not checked: DeepSpeed's pipeline engine has no
interleaved schedule.

## References
- Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM", arXiv:2104.04473 (interleaved schedule: the bubble shrinks by the number of chunks)
- Megatron-LM `megatron/core/pipeline_parallel/schedules.py:161-165@d98e8a64ddf3` (with PP > 1 the
  interleaved schedule runs only when VPP is set)
)md",
                         kReads};

class PpWithoutVpp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.trains()) return;  // a generation, serving or conversion run: no training to tune or fail
    auto pp = job.get_int(Key::kPipelineModelParallelSize), layers = job.get_int(Key::kNumLayers);
    if (!pp || *pp <= 1 || !layers || job.framework() == Framework::kMegatronDeepSpeed) return;
    if (job.fact(Key::kVirtualPipelineModelParallelSize) || job.fact(Key::kPipelineModelParallelLayout) ||
        job.fact(Key::kNumLayersPerVirtualPipelineStage))
      return;
    if (*layers % *pp != 0 || *layers / *pp < 2) return;
    const Fact* pp_fact = job.fact(Key::kPipelineModelParallelSize);
    if (!pp_fact->location.in_file()) return;
    std::int64_t per_stage = *layers / *pp;
    std::vector<std::int64_t> ok;
    for (auto d : divisors(per_stage))
      if (d > 1 && d <= 8) ok.push_back(d);
    if (ok.empty()) return;
    Finding f;
    f.location = pp_fact->location;
    f.message = fmt::format(
        "PP={} with {} layers per stage and no virtual pipeline: an interleaved schedule divides "
        "the pipeline bubble by VPP",
        *pp, per_stage);
    // In the file's own syntax (a flag, an override, a Python attribute, a YAML key), as PL205 says it.
    std::vector<std::int64_t> others(ok.begin() + 1, ok.end());
    f.help =
        setting_phrase(job, Key::kVirtualPipelineModelParallelSize, Value::integer(ok.front()), pp_fact) +
        (others.empty() ? fmt::format(" (it must divide the {} layers per stage)", per_stage)
                        : fmt::format(" (or {}: it must divide the {} layers per stage)",
                                      join_numbers(others, " or "), per_stage));
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(PpWithoutVpp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
