// PL302 experts-ep-divisibility: num_moe_experts % EP != 0.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kExpertModelParallelSize, Key::kNumMoeExperts, Key::kMoeRouterTopk};

constexpr RuleInfo kInfo{"PL302",
                         "experts-ep-divisibility",
                         Severity::kError,
                         "num_moe_experts % EP != 0, or moe_router_topk larger than num_moe_experts",
                         R"md(# PL302 experts-ep-divisibility

## What it does
Checks that the experts split evenly over the expert-parallel ranks, and that the router does not
choose more experts per token (`moe_router_topk`) than the model has.

## Why
Each EP rank hosts `experts / EP` whole experts. Megatron-LM asserts "Number of experts should be a
multiple of expert model parallel_size."; on Megatron-Bridge and NeMo the only check is an assertion when
the MoE layer is built. A top-k larger than the experts passes every configuration check and fails in
the first forward pass, when the router's `torch.topk` is asked for more entries than it has
("selected index k out of range").

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
- Megatron-LM `megatron/core/transformer/moe/moe_utils.py:726,1007@d98e8a64ddf3` (the router's
  `torch.topk` over the experts; no configuration check)
)md",
                         kReads};

class ExpertsEpDivisibility final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (topk_exceeds_experts(job, out)) return;
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

  // E17: the router picks top-k of the experts; both must be known and one of them written.
  static bool topk_exceeds_experts(const Job& job, std::vector<Finding>& out) {
    if (job.framework() == Framework::kMegatronDeepSpeed) return false;
    const Fact* k = job.fact(Key::kMoeRouterTopk);
    const Fact* e = job.fact(Key::kNumMoeExperts);
    if (!k || !e || !k->value.as_int() || !e->value.as_int() || *e->value.as_int() <= 1) return false;
    if (!k->location.in_file() && !e->location.in_file()) return false;
    const std::int64_t topk = *k->value.as_int(), experts = *e->value.as_int();
    if (topk <= experts) return false;
    Finding f;
    f.location = k->location.in_file() ? k->location : e->location;
    f.message = fmt::format(
        "moe_router_topk={} ({}) is larger than num_moe_experts={} ({}); the router's torch.topk raises "
        "\"selected index k out of range\" in the first forward pass",
        topk, describe_source(*k, job.path()), experts, describe_source(*e, job.path()));
    f.help = fmt::format("choose at most {} experts per token", experts);
    f.related = related_locations(k->location.in_file() ? *e : *k, "set here");
    out.push_back(std::move(f));
    return true;
  }
};

PARLINT_REGISTER_RULE(ExpertsEpDivisibility);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
