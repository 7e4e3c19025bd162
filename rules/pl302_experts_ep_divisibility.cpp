// PL302 experts-ep-divisibility: num_moe_experts % EP != 0.
#include <fmt/format.h>

#include "lint/describe.h"
#include "lint/rule.h"

namespace parlint {
namespace {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kExpertModelParallelSize, Key::kNumMoeExperts};

constexpr RuleInfo kInfo{"PL302",
                         "experts-ep-divisibility",
                         Severity::kError,
                         "num_moe_experts % EP != 0",
                         R"md(# PL302 experts-ep-divisibility

## What it does
Checks that the experts split evenly over the expert-parallel ranks.

## Why
Each EP rank hosts `experts / EP` whole experts. Megatron-LM asserts "Number of experts should be a
multiple of expert model parallel_size."; on Megatron-Bridge and NeMo the only check is an assertion when
the MoE layer is built.

## Example
```yaml
model:
  num_moe_experts: 60
  expert_model_parallel_size: 8
```

## Fix
```yaml
model:
  num_moe_experts: 60
  expert_model_parallel_size: 4
```

## Framework behaviour
Megatron-LM refuses at start-up; Megatron-Bridge and NeMo fail at model build. Megatron-DeepSpeed
(`--num-experts` with `--moe-expert-parallel-size`) fails when DeepSpeed builds the MoE layer
(deepspeed/moe/layer.py:59@edaa7221).

## References
- Megatron-LM `megatron/training/arguments.py:1657-1658@d98e8a64ddf3` (experts % EP asserted at start-up,
  Megatron-LM only)
- Megatron-LM `megatron/core/transformer/moe/moe_layer.py:186-187@d98e8a64ddf3` (the MoE layer asserts it
  when built: the only check on Megatron-Bridge and NeMo)
- DeepSpeed `deepspeed/moe/layer.py:59@edaa72212672` (DeepSpeed-MoE's own assertion)
)md",
                         kReads};

class ExpertsEpDivisibility final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto experts = job.get_int(Key::kNumMoeExperts), ep = job.get_int(Key::kExpertModelParallelSize);
    if (!experts || *experts <= 0 || !ep || *ep <= 1 || *experts % *ep == 0) return;
    const Fact* ep_fact = job.fact(Key::kExpertModelParallelSize);
    const Fact* e_fact = job.fact(Key::kNumMoeExperts);
    std::vector<std::int64_t> ok;
    for (auto d : divisors(*experts))
      if (d > 1 && d <= std::max<std::int64_t>(2 * *ep, 16)) ok.push_back(d);
    Finding f;
    f.location = ep_fact->location.in_file() ? ep_fact->location : e_fact->location;
    f.message =
        job.framework() == Framework::kMegatronDeepSpeed
            ? fmt::format(
                  "num_moe_experts={} is not divisible by EP={}; DeepSpeed asserts \"Number of experts "
                  "({}) should be divisible by expert parallel size ({})\" when the MoE layer is built",
                  *experts, *ep, *experts, *ep)
        : megatron_lm_family(job.framework())
            ? fmt::format(
                  "num_moe_experts={} is not divisible by EP={}; Megatron-LM asserts \"Number of experts "
                  "should be a multiple of expert model parallel_size\" and Megatron-Core fails when the "
                  "MoE layer is built",
                  *experts, *ep)
        : job.framework() == Framework::kUnknown
            ? fmt::format(
                  "num_moe_experts={} is not divisible by EP={}; Megatron-Core fails when the MoE layer "
                  "is built",
                  *experts, *ep)
            : fmt::format(
                  "num_moe_experts={} is not divisible by EP={}; {} starts, then Megatron-Core fails "
                  "when the MoE layer is built on every rank",
                  *experts, *ep, framework_display_name(job.framework()));
    f.help = fmt::format("use EP {}", join_numbers(ok, " or "));
    f.related = related_locations(*e_fact, "experts set here");
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(ExpertsEpDivisibility);

}  // namespace
}  // namespace parlint
