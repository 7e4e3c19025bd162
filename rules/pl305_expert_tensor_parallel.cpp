// PL305 expert-tensor-parallel: effective ETP > 1; says whether it was set or inherited from TP.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kExpertModelParallelSize,
                          Key::kExpertTensorParallelSize, Key::kNumMoeExperts};

constexpr RuleInfo kInfo{"PL305",
                         "expert-tensor-parallel",
                         Severity::kInfo,
                         "effective ETP > 1; says whether it was set or inherited from TP",
                         R"md(# PL305 expert-tensor-parallel

## What it does
Notes when an MoE job runs its experts with tensor parallelism (ETP > 1), and whether ETP was set or
inherited from TP by the framework's default.

## Why
Expert tensor parallelism splits each expert's small matrices across GPUs; it is rarely faster than
ETP = 1 with more EP. Megatron-Core, Megatron-LM and NeMo set ETP = TP when it is unset, so raising TP
silently raises ETP too; Megatron-Bridge uses ETP = 1 when EP > 1.

## Example
```yaml
model:
  num_moe_experts: 64
  tensor_model_parallel_size: 2
  expert_model_parallel_size: 8
  add_bias_linear: false
```

## Fix
```yaml
model:
  num_moe_experts: 64
  tensor_model_parallel_size: 2
  expert_model_parallel_size: 8
  expert_tensor_parallel_size: 1
  add_bias_linear: false
```

## Framework behaviour
Runs; this is advice. Megatron-DeepSpeed is not checked: it has no expert tensor parallelism setting
(its DeepSpeed-MoE experts follow `--enable-expert-tensor-parallelism`).

## References
- Megatron-LM `megatron/core/model_parallel_config.py:506-507@d98e8a64ddf3` (Megatron-Core: unset ETP
  becomes TP)
- Megatron-LM `megatron/training/arguments.py:587-588@d98e8a64ddf3` (the same on the Megatron-LM command
  line)
- NeMo `nemo/lightning/pytorch/strategies/megatron_strategy.py:250@8cfedd720346` (MegatronStrategy's ETP
  default is None, resolved by Megatron-Core)
- Megatron-Bridge `src/megatron/bridge/models/transformer_config.py:87-88@067f987df03b` (unset ETP becomes
  1 when EP > 1)
)md",
                         kReads};

class ExpertTensorParallel final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.is_moe() || job.framework() == Framework::kMegatronDeepSpeed) return;
    // EP on a model known to be dense is PL301's error; advice about expert layers would be noise.
    if (job.known_dense()) return;
    auto etp = job.get_int(Key::kExpertTensorParallelSize);
    if (!etp || *etp <= 1) return;
    bool inherited = !job.is_written(Key::kExpertTensorParallelSize);
    const Fact* at =
        inherited ? job.fact(Key::kTensorModelParallelSize) : job.fact(Key::kExpertTensorParallelSize);
    if (!at || !at->location.in_file()) return;
    Finding f;
    f.location = at->location;
    f.message =
        inherited
            ? fmt::format(
                  "expert tensor parallelism is {}: expert_tensor_parallel_size is unset and {} "
                  "sets it to TP",
                  *etp, framework_display_name(job.framework()))
            : fmt::format("expert_tensor_parallel_size={} splits every expert's matrices across {} GPUs",
                          *etp, *etp);
    f.help =
        "ETP 1 with more EP is usually faster; set expert_tensor_parallel_size: 1 unless experts do not fit";
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(ExpertTensorParallel);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
