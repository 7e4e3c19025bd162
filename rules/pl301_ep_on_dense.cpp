// PL301 ep-on-dense: expert parallelism on a model without experts.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kExpertModelParallelSize, Key::kExpertTensorParallelSize, Key::kNumMoeExperts};

constexpr RuleInfo kInfo{
    "PL301",
    "ep-on-dense",
    Severity::kError,
    "EP > 1 on a model known to have no experts (error), or only ETP > 1 on a dense model (warning)",
    R"md(# PL301 ep-on-dense

## What it does
Reports expert parallelism on a model that has no MoE layers:
- **error**: `expert_model_parallel_size` > 1 while the model is known to have no experts
  (`num_moe_experts` unset, null or 0 in a configuration that describes the whole model);
- **warning**: only `expert_tensor_parallel_size` > 1 is set on such a model — it is ignored.

## Why
Megatron-Core raises `ValueError: num_moe_experts must be non None to use expert-parallel.`
(Megatron-LM asserts `num_experts must be non None to use expert model parallelism`). Usually the
EP setting was copied from an MoE recipe, or the expert count was forgotten.

## Example
```yaml
model:
  num_layers: 32
  hidden_size: 4096
  num_attention_heads: 32
  expert_model_parallel_size: 8     # PL301: the model has no experts
```

## Fix
```yaml
model:
  num_layers: 32
  hidden_size: 4096
  num_attention_heads: 32
  expert_model_parallel_size: 1     # or set num_moe_experts for an MoE model
```

`parlint check --fix --unsafe-fixes` sets EP to 1 where it is written (an **unsafe** fix: if the model was
meant to have experts, `num_moe_experts` is what is missing).

## Framework behaviour
All frameworks end in Megatron-Core's check and refuse to start. parlint only fires when it knows the
model has no experts: the configuration states the whole model (layers, hidden size, heads) without
an expert count.

## References
- Megatron-LM `megatron/core/transformer/transformer_config.py:1595-1596@d98e8a64ddf3` (Megatron-Core:
  ValueError for EP > 1 without experts)
- Megatron-LM `megatron/training/arguments.py:1648-1656@d98e8a64ddf3` (`--num-experts 0` means no experts;
  EP > 1 then asserts)
- Megatron-LM `megatron/core/transformer/transformer_config.py:1682-1683@d98e8a64ddf3` (an expert count of
  0 or less is refused)
)md",
    kReads,
    FixAvailability::kUnsafe};

class EpOnDense final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.known_dense()) return;
    const Fact* experts = job.fact(Key::kNumMoeExperts);

    const Fact* ep = job.fact(Key::kExpertModelParallelSize);
    const Fact* etp = job.fact(Key::kExpertTensorParallelSize);
    std::string experts_text = experts->location.in_file()
                                   ? fmt::format("num_moe_experts={} at line {}", experts->value.to_string(),
                                                 experts->location.range.start.line)
                               : experts->origin == Origin::kRecipeDefault
                                   ? experts->spelling
                                   : std::string("num_moe_experts is not set, so it has no expert layers");
    if (auto e = ep->value.as_int(); e && *e > 1 && ep->location.in_file()) {
      Finding f;
      f.location = ep->location;
      f.message = fmt::format(
          "EP={} on a dense model ({}); Megatron-Core raises "
          "\"num_moe_experts must be non None to use expert-parallel.\"",
          *e, experts_text);
      f.help =
          "remove expert_model_parallel_size (or set it to 1), or set num_moe_experts if this is meant to be "
          "an MoE model";
      f.related = related_locations(*experts, "expert count set here");
      for (const auto& w : ep->written_at) f.related.push_back(w);
      // Unsafe: the model may be meant to have experts (then num_moe_experts is what is missing).
      f.fix = FixRequest{FixApplicability::kUnsafe,
                         "set expert_model_parallel_size to 1",
                         {set_value(*ep, Value::integer(1))}};
      out.push_back(std::move(f));
      return;
    }
    if (auto t = etp->value.as_int(); t && *t > 1 && job.is_written(Key::kExpertTensorParallelSize)) {
      Finding f;
      f.location = etp->location;
      f.severity = Severity::kWarning;
      f.message = fmt::format("expert_tensor_parallel_size={} has no effect: the model has no experts ({})",
                              *t, experts_text);
      f.help = "remove expert_tensor_parallel_size";
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(EpOnDense);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
