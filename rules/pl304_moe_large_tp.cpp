// PL304 moe-large-tp: MoE with TP > 2 (MoE TP is sized by active, not total, parameters).
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kExpertModelParallelSize, Key::kNumMoeExperts};

constexpr RuleInfo kInfo{"PL304",
                         "moe-large-tp",
                         Severity::kInfo,
                         "MoE with TP > 2 (MoE TP is sized by active, not total, parameters)",
                         R"md(# PL304 moe-large-tp

## What it does
Advice for MoE models: tensor parallelism above 2 is rarely worth it; scale experts with EP instead.

## Why
An MoE model's per-token compute follows its active parameters, which are small (Qwen3-235B-A22B: 22B
active). Large TP splits small matrices into communication-bound pieces; NVIDIA's recipes run
DeepSeek-V3 and Qwen3-235B with TP 2-4 and large EP.

## Example
```yaml
model:
  num_moe_experts: 128
  tensor_model_parallel_size: 8
  expert_model_parallel_size: 8
```

## Fix
```yaml
model:
  num_moe_experts: 128
  tensor_model_parallel_size: 2
  expert_model_parallel_size: 32
```

## Framework behaviour
Runs; this is throughput advice.

## References
- Megatron-Bridge `src/megatron/bridge/recipes/deepseek/h100/deepseek_v3.py:105-131@067f987df03b`
  (DeepSeek-V3 on 1024 H100: TP 2, EP 64)
- Megatron-Bridge `src/megatron/bridge/recipes/qwen/h100/qwen3_moe.py:228-254@067f987df03b`
  (Qwen3-235B-A22B on 256 H100: TP 4, EP 8)
- Megatron-Bridge `src/megatron/bridge/recipes/qwen/h100/qwen3_moe.py:146-173@067f987df03b` (Qwen3-30B-A3B
  on 16 H100: TP 1, EP 16)
)md",
                         kReads};

class MoeLargeTp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.is_moe()) return;
    // EP on a model known to be dense is PL301's error; advice about expert layers would be noise.
    if (job.known_dense()) return;
    auto tp = job.get_int(Key::kTensorModelParallelSize);
    if (!tp || *tp <= 2) return;
    const Fact* tp_fact = job.fact(Key::kTensorModelParallelSize);
    if (!tp_fact->location.in_file()) return;
    Finding f;
    f.location = tp_fact->location;
    f.message = fmt::format(
        "TP={} on an MoE model: MoE compute per token follows the active parameters, so large TP "
        "mostly adds communication; experts scale with EP",
        *tp);
    f.help = "keep TP at 1-2 and raise expert_model_parallel_size";
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(MoeLargeTp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
