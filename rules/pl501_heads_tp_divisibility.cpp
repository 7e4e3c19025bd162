// PL501 heads-tp-divisibility: attention heads must split evenly across the TP group.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kNumAttentionHeads, Key::kHiddenSize,
                          Key::kKvChannels};

constexpr RuleInfo kInfo{
    "PL501",
    "heads-tp-divisibility",
    Severity::kError,
    "num_attention_heads % TP != 0 (also ffn_hidden_size % TP, moe_ffn_hidden_size % ETP, "
    "and Megatron-LM's hidden_size % heads)",
    R"md(# PL501 heads-tp-divisibility

## What it does
Checks that the number of attention heads is a multiple of the tensor-parallel size and, in Megatron-LM
without `--kv-channels`, that the heads divide the hidden size (the head dimension Megatron-LM derives).

## Why
Tensor parallelism gives every TP rank `heads / TP` whole attention heads. Megatron-Core raises
`ValueError: num_attention_heads (A) must be a multiple of tensor_model_parallel_size (TP).` in
`TransformerConfig.__post_init__`, before any GPU work. Megatron-LM derives the head dimension as `hidden_size / heads` and asserts it divides (a bare
`assert` in `validate_args`).

## Example
```yaml
model:
  num_layers: 40
  hidden_size: 5120
  num_attention_heads: 40
  tensor_model_parallel_size: 16
```

## Fix
```yaml
model:
  num_layers: 40
  hidden_size: 5120
  num_attention_heads: 40
  tensor_model_parallel_size: 8
```

## Framework behaviour
Megatron-Core raises; Megatron-LM, Megatron-Bridge and NeMo all build that config and fail at start-up.

## References
- Megatron-LM `megatron/core/transformer/transformer_config.py:1446-1450@d98e8a64ddf3` (ValueError unless
  heads % TP = 0)
- Megatron-LM `megatron/core/transformer/attention.py:365-367@d98e8a64ddf3` (each TP rank builds heads /
  TP heads)
- Megatron-LM `megatron/training/arguments.py:1331-1333@d98e8a64ddf3` (hidden_size % heads without
  kv_channels)
)md",
    kReads};

class HeadsTpDivisibility final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto heads = job.get_int(Key::kNumAttentionHeads), tp = job.get_int(Key::kTensorModelParallelSize);
    if (!heads || !tp || *tp < 1 || *heads < 1 || *heads % *tp == 0) {
      head_dimension(job, out);
      return;
    }
    const Fact* tp_fact = job.fact(Key::kTensorModelParallelSize);
    const Fact* heads_fact = job.fact(Key::kNumAttentionHeads);
    const Fact* primary = tp_fact->location.in_file() ? tp_fact : heads_fact;
    std::vector<std::int64_t> ok;
    for (auto d : divisors(*heads))
      if (d <= std::max<std::int64_t>(job.nvlink_domain().size, 8)) ok.push_back(d);
    Finding f;
    f.location = primary->location;
    f.message = fmt::format(
        "num_attention_heads={} is not divisible by TP={}; Megatron-Core raises "
        "\"num_attention_heads ({}) must be a multiple of tensor_model_parallel_size ({})\"",
        *heads, *tp, *heads, *tp);
    f.help = fmt::format("use TP {} (they divide {} heads)", join_numbers(ok, " or "), *heads);
    f.related = related_locations(primary == tp_fact ? *heads_fact : *tp_fact,
                                  primary == tp_fact ? "heads set here" : "TP set here");
    for (const auto& w : primary->written_at) f.related.push_back(w);
    out.push_back(std::move(f));
  }

 private:
  // T4: Megatron-LM derives the head dimension as hidden_size / heads unless kv_channels is given.
  static void head_dimension(const Job& job, std::vector<Finding>& out) {
    if (job.framework() != Framework::kMegatronLM || job.fact(Key::kKvChannels)) return;
    const Fact* hidden = job.fact(Key::kHiddenSize);
    const Fact* heads = job.fact(Key::kNumAttentionHeads);
    if (!hidden || !heads || !hidden->location.in_file() || !heads->location.in_file()) return;
    auto h = hidden->value.as_int(), a = heads->value.as_int();
    if (!h || !a || *a <= 0 || *h % *a == 0) return;
    Finding f;
    f.location = heads->location;
    f.message = fmt::format(
        "hidden_size={} is not divisible by num_attention_heads={} and --kv-channels is not given; "
        "Megatron-LM "
        "derives the head dimension as hidden_size / heads and asserts hidden_size % num_attention_heads == "
        "0",
        *h, *a);
    f.help = fmt::format("give --kv-channels (the head dimension) or a head count that divides {}", *h);
    f.related = related_locations(*hidden, "hidden size set here");
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(HeadsTpDivisibility);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
