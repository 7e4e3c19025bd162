// PL306 moe-bias-etp: MoE layers with linear bias need ETP == 1.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kExpertTensorParallelSize, Key::kNumMoeExperts,
                          Key::kAddBiasLinear};

constexpr RuleInfo kInfo{"PL306",
                         "moe-bias-etp",
                         Severity::kError,
                         "MoE layers with linear bias and effective ETP != 1",
                         R"md(# PL306 moe-bias-etp

## What it does
For MoE models whose linear layers have a bias (`add_bias_linear`, true by default in Megatron-Core and
Megatron-LM unless `--disable-bias-linear`), checks that the effective expert tensor parallelism is 1.
Fires only when the bias setting is known.

## Why
Megatron-Core asserts "Bias in Moe is only supported when ETP==1". ETP defaults to TP in Megatron-Core,
Megatron-LM and NeMo, so any TP > 1 on an MoE model with bias trips it unless ETP is set to 1.

## Example
```yaml
model:
  num_layers: 24
  hidden_size: 2048
  num_attention_heads: 16
  num_moe_experts: 8
  expert_model_parallel_size: 4
  tensor_model_parallel_size: 2
  sequence_parallel: true
```

## Fix
```yaml
model:
  num_layers: 24
  hidden_size: 2048
  num_attention_heads: 16
  num_moe_experts: 8
  expert_model_parallel_size: 4
  tensor_model_parallel_size: 2
  expert_tensor_parallel_size: 1
  sequence_parallel: true
```

## Framework behaviour
Megatron-Core asserts in `TransformerConfig.__post_init__`. Megatron-Bridge sets ETP = 1 when EP > 1,
so its default passes. Megatron-DeepSpeed is not checked: its DeepSpeed-MoE layers are not Megatron-Core's
MoE layers and the assertion does not run.

## References
- Megatron-LM `megatron/core/transformer/transformer_config.py:2612-2615@d98e8a64ddf3` (MoE with
  `add_bias_linear` asserts ETP == 1)
- Megatron-LM `megatron/core/transformer/transformer_config.py:212-214@d98e8a64ddf3` (`add_bias_linear`
  defaults to true; `--disable-bias-linear` turns it off)
- Megatron-LM `megatron/core/model_parallel_config.py:506-507@d98e8a64ddf3` (unset ETP becomes TP)
- Megatron-Bridge `src/megatron/bridge/models/transformer_config.py:87-88@067f987df03b` (unset ETP becomes
  1 when EP > 1)
)md",
                         kReads};

class MoeBiasEtp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto experts = job.get_int(Key::kNumMoeExperts);
    auto bias = job.get_bool(Key::kAddBiasLinear);
    auto etp = job.get_int(Key::kExpertTensorParallelSize);
    if (!experts || *experts <= 0 || !bias || !*bias || !etp || *etp == 1) return;
    if (job.framework() == Framework::kMegatronDeepSpeed) return;  // DeepSpeed-MoE, not Megatron-Core's
    const Fact* etp_fact = job.fact(Key::kExpertTensorParallelSize);
    const Fact* bias_fact = job.fact(Key::kAddBiasLinear);
    bool inherited = !job.is_written(Key::kExpertTensorParallelSize);
    const Fact* tp_fact = job.fact(Key::kTensorModelParallelSize);
    Finding f;
    f.location = !inherited ? etp_fact->location : tp_fact->location;
    if (!f.location.in_file()) f.location = bias_fact->location;
    f.message = fmt::format(
        "the MoE layers have linear bias ({}) and expert tensor parallelism is {}{}; Megatron-Core "
        "asserts \"Bias in Moe is only supported when ETP==1\"",
        describe_source(*bias_fact, job.path()), *etp, inherited ? " (ETP is unset and inherits TP)" : "");
    f.help = setting_phrase(job, Key::kExpertTensorParallelSize, Value::integer(1), tp_fact) +
             ", or disable the bias (add_bias_linear: false / "
             "--disable-bias-linear)";
    if (bias_fact->location.in_file()) f.related.push_back({bias_fact->location, "bias setting here"});
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(MoeBiasEtp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
