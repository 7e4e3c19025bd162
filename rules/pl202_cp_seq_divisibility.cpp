// PL202 cp-seq-divisibility: context parallelism needs seq_length divisible by 2·CP.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kContextParallelSize, Key::kSeqLength};

constexpr RuleInfo kInfo{"PL202",
                         "cp-seq-divisibility",
                         Severity::kError,
                         "CP > 1 and seq_length is not divisible by 2·CP",
                         R"md(# PL202 cp-seq-divisibility

## What it does
With context parallelism (CP > 1), checks that the sequence length is a multiple of 2·CP.

## Why
Context parallelism cuts every sequence into 2·CP chunks and gives each CP rank two of them (one
from the front, one from the back) to balance the causal-attention work. Megatron-LM asserts
`seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1.`,
Megatron-Bridge asserts `Sequence length must be divisible by 2 * context parallel size if context
parallel is used.`, and Transformer Engine fails on the first forward pass for frameworks that do
not check earlier (NeMo).

## Example
```yaml
model:
  encoder_seq_length: 4096
  context_parallel_size: 3    # PL202: 4096 % 6 != 0
```

## Fix
```yaml
model:
  encoder_seq_length: 4096
  context_parallel_size: 2    # 4096 % 4 == 0
```

## Framework behaviour
Megatron-LM and Megatron-Bridge refuse the configuration; NeMo fails in Transformer Engine at the
first step. The sequence length is `seq_length` / `encoder_seq_length` (NeMo 1) / `--seq-length`;
for Megatron-Bridge `dataset.seq_length` wins over `model.seq_length`.

## References
- Megatron-LM `megatron/training/arguments.py:1335-1338@d98e8a64ddf3` (asserts seq_length % (2·CP) = 0)
- Megatron-Bridge `src/megatron/bridge/training/config.py:1574-1577@067f987df03b` (the same assertion on
  `model.seq_length`)
- Megatron-LM `megatron/core/utils.py:2509-2515@d98e8a64ddf3` (the sequence is cut into 2·CP chunks, two
  per CP rank, for load balancing)
- TransformerEngine `transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py`
  `:4964-4965@d0067d0da6cb` (CP needs sequences divisible by 2·CP) and `:1569-1571` (p2p: the per-GPU
  sequence must be even)
)md",
                         kReads};

class CpSeqDivisibility final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto cp = job.get_int(Key::kContextParallelSize);
    auto seq = job.get_int(Key::kSeqLength);
    if (!cp || *cp <= 1 || !seq || *seq <= 0 || *seq % (2 * *cp) == 0) return;
    const Fact* cp_fact = job.fact(Key::kContextParallelSize);
    const Fact* seq_fact = job.fact(Key::kSeqLength);
    // Point at CP when it is written here (the usual thing to change); otherwise at the sequence length.
    const Fact* primary = cp_fact->location.in_file() ? cp_fact : seq_fact;
    if (!primary->location.in_file()) return;

    std::vector<std::int64_t> valid_cp;
    for (std::int64_t c = 2; c <= std::max<std::int64_t>(16, 2 * *cp) && valid_cp.size() < 5; ++c)
      if (*seq % (2 * c) == 0) valid_cp.push_back(c);
    std::int64_t m = 2 * *cp;
    std::vector<std::int64_t> valid_seq;
    if (*seq / m > 0) valid_seq.push_back(*seq / m * m);
    valid_seq.push_back((*seq / m + 1) * m);

    Finding f;
    f.location = primary->location;
    f.message = fmt::format(
        "seq_length={} is not divisible by 2·CP = {} (context_parallel_size={}): context parallelism splits "
        "each "
        "sequence into 2·CP chunks; {}",
        *seq, m, *cp,
        job.framework() == Framework::kMegatronBridge
            ? "Megatron-Bridge asserts \"Sequence length must be divisible "
              "by 2 * context parallel size\""
        : job.framework() == Framework::kMegatronLM
            ? "Megatron-LM asserts \"seq-length should be a multiple of 2 * context-parallel-size\""
            : "Transformer Engine fails on the first forward pass");
    if (!valid_cp.empty())
      f.help = fmt::format("use CP {} (2·CP divides {}), or ", join_numbers(valid_cp, " or "), *seq);
    f.help +=
        fmt::format("a sequence length that is a multiple of {} ({})", m, join_numbers(valid_seq, " or "));
    const Fact* other = primary == cp_fact ? seq_fact : cp_fact;
    f.related = related_locations(*other, primary == cp_fact ? "sequence length set here" : "CP set here");
    for (const auto& w : primary->written_at) f.related.push_back(w);
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(CpSeqDivisibility);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
