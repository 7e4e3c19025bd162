// PL204 long-seq-without-cp: seq 8K-32K with CP = 1 (suggest CP=2); seq >= 32K with CP < 4 (suggest CP 4-8).
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kContextParallelSize, Key::kSeqLength};

constexpr RuleInfo kInfo{"PL204",
                         "long-seq-without-cp",
                         Severity::kInfo,
                         "seq 8K-32K with CP = 1 (suggest CP=2); seq >= 32K with CP < 4 (suggest CP 4-8)",
                         R"md(# PL204 long-seq-without-cp

## What it does
Advice from the sizing guidance: sequences of 8K-32K tokens usually train with CP = 2, and 32K or more
with CP 4-8 (and `a2a+p2p` communication for large CP).

## Why
Attention activations grow with the square of the sequence length per rank; context parallelism splits
the sequence across ranks so that activation memory and attention time per GPU stay bounded.

## Example
```yaml
model:
  encoder_seq_length: 16384
  context_parallel_size: 1
```

## Fix
```yaml
model:
  encoder_seq_length: 16384
  context_parallel_size: 2
```

## Framework behaviour
No framework checks this; long sequences without CP run out of memory or run slowly.

## References
- No framework checks this: parlint's thresholds come from Megatron-Bridge's sizing table,
  `docs/parallelisms.md:490-495@067f987df03b` (8K-32K: CP = 2; 32K and more: CP 4-8, hierarchical CP)
- Megatron-Bridge `src/megatron/bridge/recipes/llama/h100/llama3.py:320-342@067f987df03b` (Llama 3 8B at
  16K uses CP 2; at 64K CP 4, line 427; at 128K CP 8, line 512)
- Megatron-Bridge `docs/training/hierarchical-context-parallel.md:21-25@067f987df03b` (`a2a+p2p` scales CP
  beyond the KV-head count)
- Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
  arXiv:2205.05198 (attention activations grow with the square of the sequence length)
)md",
                         kReads};

class LongSeqWithoutCp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.trains()) return;  // a generation, serving or conversion run: no training to tune or fail
    auto seq = job.get_int(Key::kSeqLength), cp = job.get_int(Key::kContextParallelSize);
    if (!seq || !cp) return;
    const Fact* seq_fact = job.fact(Key::kSeqLength);
    if (!seq_fact->location.in_file()) return;
    std::string advice;
    if (*seq >= 32768 && *cp < 4)
      advice = fmt::format(
          "seq_length={} with CP={}: sequences of 32K tokens or more usually need CP 4-8 (with "
          "a2a+p2p communication for large CP) to keep attention activations per GPU bounded",
          *seq, *cp);
    else if (*seq >= 8192 && *seq < 32768 && *cp == 1)
      advice = fmt::format(
          "seq_length={} without context parallelism: 8K-32K sequences usually train with CP=2", *seq);
    if (advice.empty()) return;
    Finding f;
    f.location = seq_fact->location;
    f.message = advice;
    f.help = *seq >= 32768 ? setting_phrase(job, Key::kContextParallelSize, Value::integer(4)) + " (or 8)"
                           : setting_phrase(job, Key::kContextParallelSize, Value::integer(2));
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(LongSeqWithoutCp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
