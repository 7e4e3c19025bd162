// PL502 query-groups-tp: KV heads must be a multiple or a divisor of TP.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kNumAttentionHeads, Key::kNumQueryGroups,
                          Key::kGroupQueryAttention};

constexpr RuleInfo kInfo{"PL502",
                         "query-groups-tp",
                         Severity::kError,
                         "num_query_groups neither a multiple nor a divisor of TP",
                         R"md(# PL502 query-groups-tp

## What it does
With grouped-query attention (`num_query_groups` set and different from the head count), checks
that the number of query groups (KV heads) is a multiple of TP, or TP a multiple of it.

## Why
Each TP rank holds `G / TP` KV heads when G >= TP; when TP > G, the KV heads are replicated and TP
must be a multiple of G. Megatron-Core raises `num_query_groups (G) must be a multiple or divisor of
tensor_model_parallel_size (TP).` Documents that say "TP must divide the KV heads" are too strict.

## Example
```yaml
model:
  num_layers: 32
  hidden_size: 4096
  num_attention_heads: 48
  num_query_groups: 8
  tensor_model_parallel_size: 12
```

## Fix
```yaml
model:
  num_layers: 32
  hidden_size: 4096
  num_attention_heads: 48
  num_query_groups: 8
  tensor_model_parallel_size: 8
```

## Framework behaviour
Megatron-Core raises at config time. Before Megatron-Core 0.16 TP had to divide the query groups
(TP > G came with QKV sub-sharding in 0.16.0): when `megatron-core-version:` in `.parlint.yaml`, or the
`megatron/core/package_info.py` of a Megatron-Core source in the project (`3rdparty/Megatron-LM`), says
an older version, only a multiple passes. Megatron-LM only reads `--num-query-groups` together with
`--group-query-attention`.

## References
- Megatron-LM `megatron/core/transformer/transformer_config.py:1458-1468@d98e8a64ddf3` (G defaults to the
  head count; ValueError unless G is a multiple or a divisor of TP)
- Megatron-LM `megatron/core/transformer/transformer_config.py:758-761@core_v0.15.0` (before 0.16:
  ValueError unless G is a multiple of TP); `:940-946@core_v0.16.0` (a multiple or a divisor)
- Megatron-LM `megatron/core/transformer/attention.py:353-366@d98e8a64ddf3` (TP > G: one KV head per rank,
  replicated; otherwise G / TP)
- Megatron-LM `megatron/training/argument_utils.py:330-333@d98e8a64ddf3` (`--num-query-groups` is used
  only with `--group-query-attention`)
- Megatron-Bridge `skills/nemo-mbridge-recipe-recommender/SKILL.md:233-234@067f987df03b` (says "TP must
  divide num_key_value_heads": stricter than the code)
)md",
                         kReads};

class QueryGroupsTp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto g = job.get_int(Key::kNumQueryGroups), tp = job.get_int(Key::kTensorModelParallelSize);
    auto heads = job.get_int(Key::kNumAttentionHeads);
    if (!g || !tp || *g < 1 || *tp < 1) return;
    if (heads && *heads == *g) return;  // no GQA: PL501 says it all
    // Megatron-LM ignores --num-query-groups without --group-query-attention.
    if (megatron_lm_family(job.framework()) && !job.get_bool(Key::kGroupQueryAttention).value_or(false) &&
        job.fact(Key::kNumQueryGroups)->origin == Origin::kMegatronFlag)
      return;
    // Before Megatron-Core 0.16 TP had to divide the query groups: TP > G (replicated KV heads) came with
    // QKV sub-sharding in 0.16.0.
    const auto& version = job.megatron_core();
    bool divisor_only = version && version->before(0, 16);
    if (*g % *tp == 0 || (!divisor_only && *tp % *g == 0)) return;
    const Fact* tp_fact = job.fact(Key::kTensorModelParallelSize);
    const Fact* g_fact = job.fact(Key::kNumQueryGroups);
    const Fact* primary = tp_fact->location.in_file() ? tp_fact : g_fact;
    std::vector<std::int64_t> ok;
    for (std::int64_t t = 1; t <= std::max<std::int64_t>(job.nvlink_domain().size, 8); ++t)
      if ((*g % t == 0 || (!divisor_only && t % *g == 0)) && (!heads || *heads % t == 0)) ok.push_back(t);
    Finding f;
    f.location = primary->location;
    if (divisor_only)
      f.message = fmt::format(
          "num_query_groups={} is not a multiple of TP={}; Megatron-Core {} (before 0.16, per {}) raises "
          "\"num_query_groups ({}) must be a multiple of tensor_model_parallel_size ({})\": TP larger than "
          "the query groups needs Megatron-Core 0.16 or later",
          *g, *tp, version->text(), version->source, *g, *tp);
    else
      f.message = fmt::format(
          "num_query_groups={} is neither a multiple nor a divisor of TP={}; Megatron-Core raises "
          "\"num_query_groups ({}) must be a multiple or divisor of tensor_model_parallel_size ({})\"",
          *g, *tp, *g, *tp);
    f.help = fmt::format("use TP {}", join_numbers(ok, " or "));
    f.related = related_locations(primary == tp_fact ? *g_fact : *tp_fact,
                                  primary == tp_fact ? "query groups set here" : "TP set here");
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(QueryGroupsTp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
