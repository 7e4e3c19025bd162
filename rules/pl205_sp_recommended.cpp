// PL205 sp-recommended: TP > 1, seq >= 2K, SP off.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kExpertModelParallelSize,
                          Key::kSequenceParallel, Key::kSeqLength};

constexpr RuleInfo kInfo{"PL205",
                         "sp-recommended",
                         Severity::kInfo,
                         "TP > 1, seq >= 2K, SP off",
                         R"md(# PL205 sp-recommended

## What it does
Advice: with tensor parallelism and sequences of 2K tokens or more, sequence parallelism usually saves
activation memory at no extra communication.

## Why
Without SP every TP rank keeps the full activations of LayerNorm and dropout; SP splits them across the
TP group and replaces each all-reduce by a reduce-scatter/all-gather pair of the same cost.

## Example
```yaml
model:
  encoder_seq_length: 4096
  tensor_model_parallel_size: 4
  sequence_parallel: false
```

## Fix
```yaml
model:
  encoder_seq_length: 4096
  tensor_model_parallel_size: 4
  sequence_parallel: true
```

## Framework behaviour
Runs either way; SP lowers activation memory per GPU.

## References
- Megatron-Bridge `docs/parallelisms.md:490-493@067f987df03b` (sizing table: add SP from 2K tokens)
- Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
  arXiv:2205.05198 (SP splits LayerNorm and dropout activations over the TP group; each all-reduce becomes
  a reduce-scatter and an all-gather of the same volume)
- Megatron-LM `megatron/core/tensor_parallel/mappings.py:522-545@d98e8a64ddf3` (the SP all-gather and
  reduce-scatter)
)md",
                         kReads};

class SpRecommended final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.trains()) return;  // a generation, serving or conversion run: no training to tune or fail
    auto tp = job.get_int(Key::kTensorModelParallelSize), seq = job.get_int(Key::kSeqLength);
    auto sp = job.get_bool(Key::kSequenceParallel);
    if (!tp || *tp <= 1 || !seq || *seq < 2048 || !sp || *sp) return;
    if (auto ep = job.get_int(Key::kExpertModelParallelSize); ep && *ep > 1) return;  // PL303 says more
    const Fact* tp_fact = job.fact(Key::kTensorModelParallelSize);
    const Fact* sp_fact = job.fact(Key::kSequenceParallel);
    Finding f;
    f.location = sp_fact->location.in_file() ? sp_fact->location : tp_fact->location;
    if (!f.location.in_file()) return;
    f.message = fmt::format(
        "TP={} with seq_length={} and sequence parallelism off: SP would split the LayerNorm and "
        "dropout activations across the TP group at the same communication cost",
        *tp, *seq);
    f.help = setting_phrase(job, Key::kSequenceParallel, Value::boolean(true), tp_fact);
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(SpRecommended);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
