// PL403 vpp-without-pp: interleaved pipeline (VPP) with PP = 1.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kPipelineModelParallelSize, Key::kVirtualPipelineModelParallelSize,
                          Key::kOverlapP2pComm, Key::kNumLayersPerVirtualPipelineStage};

constexpr RuleInfo kInfo{"PL403",
                         "vpp-without-pp",
                         Severity::kError,
                         "VPP set (> 1) with PP = 1 (in Megatron-LM without p2p overlap: PP <= 2)",
                         R"md(# PL403 vpp-without-pp

## What it does
Reports a virtual pipeline size (interleaved schedule) on a job without pipeline parallelism, and in
Megatron-LM a virtual pipeline over two ranks with the p2p overlap turned off
(`--no-overlap-p2p-communication`).

## Why
Virtual pipeline stages interleave chunks of layers across pipeline ranks; with one rank there is
nothing to interleave. `parallel_state.initialize_model_parallel` raises
"pipeline-model-parallel size should be greater than 1 with interleaved schedule". Without the p2p overlap,
Megatron-LM also refuses PP = 2: the two ranks would exchange several sends and receives per
communication batch ("When interleaved schedule is used and p2p communication overlap is disabled,
pipeline-model-parallel size should be greater than 2 ...").

## Example
```yaml
model:
  pipeline_model_parallel_size: 1
  virtual_pipeline_model_parallel_size: 2
```

## Fix
```yaml
model:
  pipeline_model_parallel_size: 4
  virtual_pipeline_model_parallel_size: 2
```

`parlint check --fix` removes `--no-overlap-p2p-communication` when Megatron-LM refuses it with a virtual
pipeline over PP = 2 (a **safe** fix: the overlap is the default). With `--unsafe-fixes` it unsets a
virtual pipeline size that has no pipeline (`None` in Python, `null` in YAML and overrides, the flag and
its value removed from a command line): **unsafe**, because a pipeline (PP > 1) may have been what was
meant.

## Framework behaviour
Megatron-Core raises RuntimeError. Megatron-LM and NeMo 1 treat VPP = 1 as unset; Megatron-Bridge
passes even VPP = 1 through and fails.

## References
- Megatron-LM `megatron/core/parallel_state.py:827-831@d98e8a64ddf3` (RuntimeError: VPP set with PP <= 1)
- Megatron-LM `megatron/training/arguments.py:978-979@d98e8a64ddf3` (VPP = 1 becomes unset)
- Megatron-LM `megatron/training/arguments.py:1000-1009@d98e8a64ddf3` (VPP with PP <= 2 and no p2p overlap)
- NeMo `nemo/collections/nlp/models/language_modeling/megatron_base_model.py:1061-1062@8cfedd720346`
  (NeMo 1: VPP = 1 becomes unset)
- Megatron-Bridge `src/megatron/bridge/training/initialize.py:808@067f987df03b` (VPP is passed to
  `initialize_model_parallel` as set)
)md",
                         kReads,
                         FixAvailability::kSafeOrUnsafe};

class VppWithoutPp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto vpp = job.get_int(Key::kVirtualPipelineModelParallelSize),
         pp = job.get_int(Key::kPipelineModelParallelSize);
    const Fact* per_stage = job.fact(Key::kNumLayersPerVirtualPipelineStage);
    const bool interleaved = (vpp && *vpp > 1) || (per_stage && per_stage->value.as_int());
    if (pp && *pp == 2 && interleaved) return two_ranks_without_overlap(job, out);
    if (!vpp || !pp || *pp > 1) return;
    bool bridge_one = *vpp == 1 && job.framework() == Framework::kMegatronBridge;
    if (*vpp <= 1 && !bridge_one) return;
    const Fact* vpp_fact = job.fact(Key::kVirtualPipelineModelParallelSize);
    if (!vpp_fact->location.in_file()) return;
    Finding f;
    f.location = vpp_fact->location;
    f.message = fmt::format(
        "virtual_pipeline_model_parallel_size={} with PP={}: there is no pipeline to interleave; "
        "initialize_model_parallel raises \"pipeline-model-parallel size should be greater than 1 "
        "with interleaved schedule\"",
        *vpp, *pp);
    f.help = "remove the virtual pipeline size, or use PP > 1";
    f.related = related_locations(*job.fact(Key::kPipelineModelParallelSize), "PP set here");
    // Unsafe: the other answer, a pipeline, may have been meant. Unset: None, null, or the flag removed.
    f.fix = FixRequest{
        FixApplicability::kUnsafe, "remove the virtual pipeline size", {set_value(*vpp_fact, Value::null())}};
    out.push_back(std::move(f));
  }

 private:
  // P5: Megatron-LM's interleaved schedule over two ranks needs the p2p overlap.
  static void two_ranks_without_overlap(const Job& job, std::vector<Finding>& out) {
    if (job.framework() != Framework::kMegatronLM) return;
    const Fact* overlap = job.fact(Key::kOverlapP2pComm);
    if (!overlap || !overlap->location.in_file() || overlap->value.as_bool() != false) return;
    Finding f;
    f.location = overlap->location;
    f.message =
        "--no-overlap-p2p-communication with a virtual pipeline over PP=2; Megatron-LM asserts \"When "
        "interleaved "
        "schedule is used and p2p communication overlap is disabled, pipeline-model-parallel size should be "
        "greater than 2 to avoid having multiple p2p sends and recvs between same 2 ranks per communication "
        "batch\"";
    f.help = "keep the p2p overlap (remove --no-overlap-p2p-communication), or use PP > 2";
    f.related = related_locations(*job.fact(Key::kPipelineModelParallelSize), "PP set here");
    // Safe: Megatron-LM refuses the combination, and the overlap is its default.
    f.fix = FixRequest{FixApplicability::kSafe,
                       "keep the p2p overlap (remove --no-overlap-p2p-communication)",
                       {set_value(*overlap, Value::boolean(true))}};
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(VppWithoutPp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
