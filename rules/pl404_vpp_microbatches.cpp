// PL404 vpp-microbatches: with VPP, number of microbatches GBS/(MBS*DP) not divisible by PP.
#include <fmt/format.h>

#include "lint/describe.h"
#include "lint/rule.h"

namespace parlint {
namespace {

constexpr RuleInfo kInfo{"PL404", "vpp-microbatches", Severity::kError,
                         "with VPP, number of microbatches GBS/(MBS*DP) not divisible by PP",
                         R"md(# PL404 vpp-microbatches

## What it does
With the interleaved schedule (PP > 1 and VPP), checks that the number of microbatches per step,
GBS / (MBS·DP), is at least PP and a multiple of PP.

## Why
The interleaved schedule runs microbatches in groups of PP (`microbatch_group_size_per_vp_stage`
defaults to PP). Megatron-Core raises at the first step: "The number of contiguous micro-batches in a
virtual pipeline stage should range in [PP, M]" or "The remainder of M ... should be 0".

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

## Framework behaviour
Fails at the first training step in every framework.

## References
- reference/megatron-rules.md §5, rule P14
)md"};

class VppMicrobatches final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto pp = job.get_int(Key::kPipelineModelParallelSize),
         vpp = job.get_int(Key::kVirtualPipelineModelParallelSize);
    auto gbs = job.get_int(Key::kGlobalBatchSize), mbs = job.get_int(Key::kMicroBatchSize);
    if (!pp || *pp <= 1 || !vpp || *vpp <= 1 || !gbs || !mbs || *mbs <= 0) return;
    auto dp = job.data_parallel();
    if (!dp || *dp <= 0 || *gbs % (*mbs * *dp) != 0) return;  // PL503 reports the batch split
    std::int64_t m = *gbs / (*mbs * *dp);
    if (m >= *pp && m % *pp == 0) return;
    const Fact* gbs_fact = job.fact(Key::kGlobalBatchSize);
    Finding f;
    f.location = gbs_fact->location.in_file() ? gbs_fact->location
                                              : job.fact(Key::kVirtualPipelineModelParallelSize)->location;
    f.message = fmt::format(
        "the interleaved schedule (PP={}, VPP={}) needs the microbatches per step, GBS/(MBS·DP) = "
        "{}/({}·{}) = {}, to be a multiple of PP; Megatron-Core raises at the first step",
        *pp, *vpp, *gbs, *mbs, *dp, m);
    std::int64_t step = *mbs * *dp * *pp;
    f.help = fmt::format("use a global batch size that is a multiple of MBS·DP·PP = {} ({} or {})", step,
                         std::max<std::int64_t>(step, *gbs / step * step), (*gbs / step + 1) * step);
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(VppMicrobatches);

}  // namespace
}  // namespace parlint
