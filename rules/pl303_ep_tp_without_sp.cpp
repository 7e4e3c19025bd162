// PL303 ep-tp-without-sp: expert and tensor parallelism without sequence parallelism.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kExpertModelParallelSize,
                          Key::kSequenceParallel};

constexpr RuleInfo kInfo{"PL303",
                         "ep-tp-without-sp",
                         Severity::kWarning,
                         "EP > 1 and TP > 1 without sequence_parallel",
                         R"md(# PL303 ep-tp-without-sp

## What it does
Warns when expert parallelism and tensor parallelism are combined without sequence parallelism.

## Why
With EP and TP the token dispatcher expects activations split along the sequence across the TP group;
without SP every TP rank dispatches the same tokens. Megatron-Core warns: "When using expert
parallelism and tensor parallelism for training, sequence parallelism must be used".

## Example
```yaml
model:
  num_moe_experts: 64
  tensor_model_parallel_size: 2
  expert_model_parallel_size: 8
  sequence_parallel: false
```

## Fix
```yaml
model:
  num_moe_experts: 64
  tensor_model_parallel_size: 2
  expert_model_parallel_size: 8
  sequence_parallel: true
```

## Framework behaviour
Megatron-Core only warns (model_parallel_config.py) and runs with duplicated expert work.
Megatron-DeepSpeed is not checked: its experts are DeepSpeed-MoE layers, which Megatron-Core's warning
does not cover.

## References
- Megatron-LM `megatron/core/model_parallel_config.py:560-565@d98e8a64ddf3` (EP > 1 and TP > 1 without SP:
  a warning only)
- Megatron-LM `docs/user-guide/parallelism-guide.md:139-144@d98e8a64ddf3` (the guide calls SP required
  with TP + EP)
)md",
                         kReads};

class EpTpWithoutSp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.trains()) return;  // a generation, serving or conversion run: no training to tune or fail
    auto ep = job.get_int(Key::kExpertModelParallelSize), tp = job.get_int(Key::kTensorModelParallelSize);
    auto sp = job.get_bool(Key::kSequenceParallel);
    if (!ep || !tp || !sp || *ep <= 1 || *tp <= 1 || *sp) return;
    if (job.framework() == Framework::kMegatronDeepSpeed) return;  // DeepSpeed-MoE, not Megatron-Core's
    // SP off only by default counts where the framework's default is known (Megatron-LM flags, NeMo,
    // Bridge recipes, a described model); a config object of a class parlint does not know may set it
    // elsewhere (Bridge's perf WorkloadBaseConfig derives SP = TP > 1).
    if (!job.is_written(Key::kSequenceParallel) && !job.describes_model() &&
        job.framework() == Framework::kUnknown)
      return;
    const Fact* sp_fact = job.fact(Key::kSequenceParallel);
    const Fact* ep_fact = job.fact(Key::kExpertModelParallelSize);
    Finding f;
    f.location = sp_fact->location.in_file() ? sp_fact->location : ep_fact->location;
    f.message = fmt::format(
        "EP={} and TP={} without sequence parallelism; Megatron-Core warns \"When using expert "
        "parallelism and tensor parallelism for training, sequence parallelism must be used\"",
        *ep, *tp);
    f.help = setting_phrase(job, Key::kSequenceParallel, Value::boolean(true),
                            job.fact(Key::kTensorModelParallelSize));
    f.related = related_locations(*ep_fact, "EP set here");
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(EpTpWithoutSp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
