// PL203 sp-seq-divisibility: SP with TP > 1 and (seq_length / CP) % TP != 0.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kContextParallelSize, Key::kSequenceParallel,
                          Key::kSeqLength};

constexpr RuleInfo kInfo{"PL203",
                         "sp-seq-divisibility",
                         Severity::kError,
                         "SP with TP > 1 and (seq_length / CP) % TP != 0",
                         R"md(# PL203 sp-seq-divisibility

## What it does
With sequence parallelism (SP and TP > 1), checks that each context-parallel rank's sequence share
`seq_length / CP` divides evenly across the TP group.

## Why
Sequence parallelism scatters activations along the sequence dimension over the TP ranks. Megatron-Core
fails on the first forward pass: "First dimension of the tensor should be divisible by tensor parallel
size".

## Example
```yaml
model:
  encoder_seq_length: 4100
  tensor_model_parallel_size: 8
  sequence_parallel: true
```

## Fix
```yaml
model:
  encoder_seq_length: 4096
  tensor_model_parallel_size: 8
  sequence_parallel: true
```

## Framework behaviour
Fails at the first step in every framework (no config-time check).

## References
- Megatron-LM `megatron/core/tensor_parallel/mappings.py:70-74@d98e8a64ddf3` (splitting along the sequence
  asserts that the first dimension divides by the TP size)
- Megatron-LM `megatron/core/models/common/embeddings/language_model_embedding.py:143-147@d98e8a64ddf3`
  (with SP the embeddings are scattered over the TP group)
- Megatron-LM `megatron/core/utils.py:2544-2559@d98e8a64ddf3` (each CP rank keeps seq_length / CP tokens)
)md",
                         kReads};

class SpSeqDivisibility final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto sp = job.get_bool(Key::kSequenceParallel);
    auto tp = job.get_int(Key::kTensorModelParallelSize), cp = job.get_int(Key::kContextParallelSize);
    auto seq = job.get_int(Key::kSeqLength);
    if (!sp || !*sp || !tp || *tp <= 1 || !cp || *cp < 1 || !seq || *seq <= 0) return;
    if (*seq % *cp != 0) return;  // PL202 reports the CP split
    std::int64_t local = *seq / *cp;
    if (local % *tp == 0) return;
    const Fact* seq_fact = job.fact(Key::kSeqLength);
    const Fact* tp_fact = job.fact(Key::kTensorModelParallelSize);
    Finding f;
    f.location = seq_fact->location.in_file() ? seq_fact->location : tp_fact->location;
    std::int64_t m = *tp * *cp;
    f.message = fmt::format(
        "with sequence parallelism each rank's sequence share seq_length/CP = {}/{} = {} must be "
        "divisible by TP={}; the first forward pass fails with \"First dimension of the tensor "
        "should be divisible by tensor parallel size\"",
        *seq, *cp, local, *tp);
    f.help = fmt::format("use a sequence length that is a multiple of TP·CP = {} ({} or {})", m, *seq / m * m,
                         (*seq / m + 1) * m);
    f.related = related_locations(*tp_fact, "TP set here");
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(SpSeqDivisibility);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
