// PL308 ep-overlap-config: the expert-parallel all-to-all overlap (and delayed weight gradients) in a
// job that does not meet its requirements.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kOverlapMoeExpertParallelComm,
                          Key::kDelayWgradCompute,
                          Key::kExpertModelParallelSize,
                          Key::kMoeTokenDispatcherType,
                          Key::kPipelineModelParallelSize,
                          Key::kVirtualPipelineModelParallelSize,
                          Key::kNumLayersPerVirtualPipelineStage,
                          Key::kPipelineModelParallelLayout,
                          Key::kRecomputeGranularity,
                          Key::kRecomputeMethod,
                          Key::kMoeSharedExpertOverlap,
                          Key::kMtpNumLayers};

constexpr RuleInfo kInfo{
    "PL308",
    "ep-overlap-config",
    Severity::kError,
    "overlap_moe_expert_parallel_comm without EP > 1, alltoall/flex, VPP when PP > 1, or with full "
    "recompute, shared-expert overlap or more than one MTP layer; delay_wgrad_compute without it",
    R"md(# PL308 ep-overlap-config

## What it does
Checks a job that turns on the expert-parallel all-to-all overlap (`--overlap-moe-expert-parallel-comm`,
`comm_overlap.overlap_moe_expert_parallel_comm`, `CommOverlapConfig(overlap_moe_expert_parallel_comm=True)`)
against what Megatron-Core requires of it:
- EP > 1, and the `alltoall` or `flex` token dispatcher;
- with PP > 1, a virtual pipeline (VPP, a layout or layers per virtual stage): the overlap runs the
  forward of one micro-batch beside the backward of another, which the interleaved schedule provides;
- no full recomputation (`recompute_granularity: full`, any `recompute_method`);
- no shared-expert overlap (`moe_shared_expert_overlap`), which the EP overlap replaces;
- at most one MTP layer.

It also reports `delay_wgrad_compute` in a job whose EP overlap is off. Values the job leaves out
(EP 1, the allgather dispatcher, no virtual pipeline, the overlap off) count where they are known to be
what runs: a recipe's, or Megatron-LM's defaults in a launch whose every argument parlint read; an
expansion parlint cannot read (`$EXTRA_ARGS`) may set them, and then they are not judged.

Only values the job writes are judged. A missing VPP is reported for configuration files and recipes
(where nothing else can add it) and when the job writes the virtual pipeline size as `None`; a launch
command could add it in an expansion parlint cannot read.

## Why
Megatron-Core asserts in `TransformerConfig.__post_init__`, e.g. `If enabling EP A2A overlap,
virtual_pipeline_model_parallel_size must be specified when pipeline_model_parallel_size > 1`,
`disable moe_shared_expert_overlap when enabling overlap_moe_expert_parallel_comm`, `MTP supports at
most one layer when enabling overlap_moe_expert_parallel_comm.` and `overlap_moe_expert_parallel_comm
must be enabled when enabling delay_wgrad_compute`. Megatron-Bridge repeats the same assertions when it
sets up communication overlap, before the model is built.

## Example
```yaml
model:
  num_layers: 24
  num_moe_experts: 64
  expert_model_parallel_size: 8
  pipeline_model_parallel_size: 4
  moe_token_dispatcher_type: alltoall
  overlap_moe_expert_parallel_comm: true
```

## Fix
```yaml
model:
  num_layers: 24
  num_moe_experts: 64
  expert_model_parallel_size: 8
  pipeline_model_parallel_size: 4
  virtual_pipeline_model_parallel_size: 2
  moe_token_dispatcher_type: alltoall
  overlap_moe_expert_parallel_comm: true
```

## Framework behaviour
| framework | what happens | severity |
|---|---|---|
| Megatron-Core, Megatron-LM, NeMo 2 | `AssertionError` in `TransformerConfig.__post_init__` | error |
| Megatron-Bridge | the same assertions in `CommOverlapConfig` setup (and again in Megatron-Core) | error |
| Megatron-DeepSpeed | has no such overlap; not checked | — |

## References
- Megatron-LM `megatron/core/transformer/transformer_config.py:3002-3082@d98e8a64ddf3`
- Megatron-Bridge `src/megatron/bridge/training/comm_overlap.py:478-535@067f987df03b`
)md",
    kReads};

class EpOverlapConfig final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (job.framework() == Framework::kMegatronDeepSpeed) return;
    // Values the job leaves out count where they are known to be what runs (Megatron-LM flags all read,
    // a recipe's table): --delay-wgrad-compute alone has the overlap at its default, off.
    const Fact* overlap = job.reliable_fact(Key::kOverlapMoeExpertParallelComm);
    // Megatron-Core's and Megatron-LM's default is off (ModelParallelConfig; a store_true flag).
    bool overlap_off = overlap ? overlap->value.as_bool() == false
                               : job.defaults_hold() && !job.fact(Key::kOverlapMoeExpertParallelComm);
    if (const Fact* delay = job.fact_in_file(Key::kDelayWgradCompute);
        delay && delay->value.as_bool() == true && overlap_off) {
      Finding f;
      f.location = delay->location;
      f.message = fmt::format(
          "delay_wgrad_compute is on but the EP all-to-all overlap is off ({}); Megatron-Core asserts "
          "\"overlap_moe_expert_parallel_comm must be enabled when enabling delay_wgrad_compute\"",
          overlap ? describe_source(*overlap, job.path())
                  : std::string(job.framework() == Framework::kMegatronLM
                                    ? "--overlap-moe-expert-parallel-comm is not given"
                                    : "its default"));
      f.help = "turn overlap_moe_expert_parallel_comm on, or remove delay_wgrad_compute";
      if (overlap && overlap->location.in_file())
        f.related = related_locations(*overlap, "overlap turned off here");
      out.push_back(std::move(f));
    }
    if (!overlap || overlap->value.as_bool() != true || !overlap->location.in_file()) return;

    const char* who = job.framework() == Framework::kMegatronBridge ? "Megatron-Bridge" : "Megatron-Core";
    auto report = [&](const Fact* cause, std::string why, std::string quote, std::string help) {
      Finding f;
      f.location = overlap->location;
      f.message = fmt::format("overlap_moe_expert_parallel_comm is on but {}; {} asserts \"{}\"",
                              std::move(why), who, std::move(quote));
      f.help = std::move(help);
      if (cause && cause->location.in_file() && cause->location.range != overlap->location.range)
        f.related = related_locations(*cause, "set here");
      out.push_back(std::move(f));
    };
    auto src = [&](const Fact* f) { return describe_source(*f, job.path()); };

    if (const Fact* ep = job.reliable_fact(Key::kExpertModelParallelSize);
        ep && ep->value.as_int() && *ep->value.as_int() <= 1)
      return report(ep, fmt::format("EP={} ({})", *ep->value.as_int(), src(ep)),
                    "overlap_moe_expert_parallel_comm is only supported with expert model parallelism",
                    "set expert_model_parallel_size > 1, or turn the overlap off");
    if (const Fact* d = job.reliable_fact(Key::kMoeTokenDispatcherType);
        d && d->value.kind() == Value::Kind::kString && d->value.text() != "alltoall" &&
        d->value.text() != "flex")
      return report(d, fmt::format("the token dispatcher is {} ({})", d->value.text(), src(d)),
                    "overlap_moe_expert_parallel_comm is supported with alltoall/flex token dispatcher",
                    "use moe_token_dispatcher_type alltoall or flex");
    if (const Fact* pp = job.reliable_fact(Key::kPipelineModelParallelSize);
        pp && pp->value.as_int() && *pp->value.as_int() > 1 && no_virtual_pipeline(job))
      return report(pp,
                    fmt::format("PP={} ({}) runs without a virtual pipeline", *pp->value.as_int(), src(pp)),
                    "If enabling EP A2A overlap, virtual_pipeline_model_parallel_size must be specified when "
                    "pipeline_model_parallel_size > 1",
                    "set virtual_pipeline_model_parallel_size (e.g. 2) or a pipeline layout with virtual "
                    "stages");
    if (const Fact* g = job.fact_in_file(Key::kRecomputeGranularity);
        g && g->value.kind() == Value::Kind::kString && g->value.text() == "full")
      return report(g, fmt::format("full recomputation is on ({})", src(g)),
                    "disable full recomputation when enabling overlap_moe_expert_parallel_comm",
                    "use selective recomputation (recompute_granularity: selective) with the overlap");
    if (const Fact* m = job.fact_in_file(Key::kRecomputeMethod); m && m->value.kind() == Value::Kind::kString)
      return report(m, fmt::format("a recompute method is set ({})", src(m)),
                    "disable recomputation method when enabling overlap_moe_expert_parallel_comm",
                    "remove recompute_method (and recompute_num_layers)");
    if (const Fact* s = job.fact_in_file(Key::kMoeSharedExpertOverlap); s && s->value.as_bool() == true)
      return report(s, fmt::format("moe_shared_expert_overlap is on ({})", src(s)),
                    "disable moe_shared_expert_overlap when enabling overlap_moe_expert_parallel_comm",
                    "turn moe_shared_expert_overlap off: the EP overlap hides the shared experts as well");
    if (const Fact* mtp = job.fact_in_file(Key::kMtpNumLayers);
        mtp && mtp->value.as_int() && *mtp->value.as_int() > 1)
      return report(mtp, fmt::format("mtp_num_layers={} ({})", *mtp->value.as_int(), src(mtp)),
                    "MTP supports at most one layer when enabling overlap_moe_expert_parallel_comm.",
                    "use at most one MTP layer with the overlap");
  }

  // No virtual pipeline: VPP written as None, or a job whose defaults hold (a configuration object, a
  // launch whose every flag was read) that sets none of VPP, layers per virtual stage or a layout.
  static bool no_virtual_pipeline(const Job& job) {
    if (job.fact(Key::kPipelineModelParallelLayout) || job.fact(Key::kNumLayersPerVirtualPipelineStage))
      return false;
    const Fact* vpp = job.fact(Key::kVirtualPipelineModelParallelSize);
    if (vpp)
      return (vpp->location.in_file() || job.defaults_hold()) && vpp->value.kind() == Value::Kind::kNull;
    return job.defaults_hold();
  }
};

PARLINT_REGISTER_RULE(EpOverlapConfig);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
