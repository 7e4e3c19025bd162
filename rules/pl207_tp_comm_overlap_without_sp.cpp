// PL207 tp-comm-overlap-without-sp: TP communication overlap asked for without TP > 1 and SP.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTpCommOverlap, Key::kTensorModelParallelSize, Key::kSequenceParallel};

constexpr RuleInfo kInfo{
    "PL207",
    "tp-comm-overlap-without-sp",
    Severity::kError,
    "tp_comm_overlap with TP = 1 or SP off: Megatron-LM asserts (error); Megatron-Bridge and NeMo 2 turn "
    "the overlap off with a warning (warning)",
    R"md(# PL207 tp-comm-overlap-without-sp

## What it does
Reports `tp_comm_overlap` (`--tp-comm-overlap`, `comm_overlap.tp_comm_overlap`,
`CommOverlapConfig(tp_comm_overlap=True)`, NeMo 2's `MegatronCommOverlapCallback(tp_comm_overlap=True)`)
in a job whose tensor-parallel size is 1, or whose sequence parallelism is off with TP > 1. A value
left out counts when it is known to be what runs: a recipe's, or the framework's default in a launch
whose every argument parlint read (`--tp-comm-overlap` with TP 4 and no `--sequence-parallel`). With an
expansion parlint cannot read among the arguments (`$EXTRA_ARGS`) the defaults are not judged: the
expansion may set them.

## Why
The overlap hides the all-gather and reduce-scatter of sequence-parallel activations behind the
GEMMs (Transformer Engine's userbuffers); without SP there is nothing of that kind to overlap.
Megatron-LM refuses the run with `Tensor parallel communication/GEMM overlap can happen only when
sequence parallelism is enabled`. With TP = 1 it first turns SP off itself, so the assertion fires even
with `--sequence-parallel` given. Megatron-Bridge and NeMo 2 turn the overlap off with a warning
("Disabling tensor parallel communication overlap due to TP size < 2" or "... due to
sequence_parallel=False"): the job runs, without the overlap it was configured for.

## Example
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 1 --sequence-parallel \
  --tp-comm-overlap --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```

## Fix
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 2 --sequence-parallel \
  --tp-comm-overlap --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```
or drop `--tp-comm-overlap` (and `--sequence-parallel`) and keep TP = 1.

## Framework behaviour
| framework | what happens | severity |
|---|---|---|
| Megatron-LM | asserts when the arguments are validated (after turning SP off for TP = 1) | error |
| Megatron-Bridge | logs a warning and sets `tp_comm_overlap = False` | info with TP < 2 (a shared overlap config on a TP = 1 recipe is a normal pattern: nothing to hide, and Bridge says so), warning with SP off |
| NeMo 2 (`MegatronCommOverlapCallback`) | logs a warning and turns the overlap off | info with TP < 2, warning with SP off |
| ms-swift (`megatron sft`) | turns SP off for TP <= 1, then raises `ValueError` when the arguments are read (`swift/megatron/arguments/megatron_args.py:891-899@3602360a5623`) | error |
| NeMo 1, other frameworks | not reported (parlint does not know what they do) | — |

## References
- Megatron-LM `megatron/training/arguments.py:1433-1442@d98e8a64ddf3` (SP turned off for TP = 1, then the
  assertion)
- Megatron-Bridge `src/megatron/bridge/training/comm_overlap.py:442-451@067f987df03b` (the overlap turned
  off for TP < 2 or SP off, with a warning)
- NeMo `nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py:142-150@8cfedd720346` (the same in
  NeMo 2's callback)
)md",
    kReads};

class TpCommOverlapWithoutSp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Fact* overlap = job.fact(Key::kTpCommOverlap);
    if (!overlap || overlap->value.as_bool() != true || !overlap->location.in_file()) return;
    Framework fw = job.framework();
    bool megatron_lm = fw == Framework::kMegatronLM;
    // A framework that builds Megatron itself and refuses the setting first (ms-swift), as its adapter says.
    const DriverTraits& driver = job.driver_traits();
    const bool refused_by_driver = driver.refuses_tp_comm_overlap_without_sp;
    if (!megatron_lm && !refused_by_driver && fw != Framework::kMegatronBridge && fw != Framework::kNemo2)
      return;
    // Only values known to run: written, a recipe's, or a default of a launch whose every flag parlint
    // read (a default could be replaced by a flag hidden in $EXTRA_ARGS).
    auto tp = job.reliable_fact(Key::kTensorModelParallelSize) ? job.get_int(Key::kTensorModelParallelSize)
                                                               : std::nullopt;
    auto sp = job.reliable_fact(Key::kSequenceParallel) ? job.get_bool(Key::kSequenceParallel) : std::nullopt;
    std::string why;
    const Fact* cause = nullptr;
    if (tp && *tp < 2) {
      why = fmt::format("TP={} ({})", *tp,
                        describe_source(*job.fact(Key::kTensorModelParallelSize), job.path()));
      cause = job.fact(Key::kTensorModelParallelSize);
    } else if (sp && !*sp && job.get_int(Key::kTensorModelParallelSize).value_or(1) >= 2) {
      why = fmt::format("sequence parallelism is off ({})",
                        describe_source(*job.fact(Key::kSequenceParallel), job.path()));
      cause = job.fact(Key::kSequenceParallel);
    } else {
      return;  // SP on with TP > 1, or what decides it is not written
    }
    const bool tp1 = cause == job.fact(Key::kTensorModelParallelSize);
    Finding f;
    f.location = overlap->location;
    if (refused_by_driver) {  // ms-swift: swift/megatron/arguments/megatron_args.py:891-899@3602360a5623
      f.message = fmt::format(
          "tp_comm_overlap is on but {}; {} raises \"Tensor parallel communication/GEMM overlap can "
          "happen only when sequence parallelism is enabled\"{}",
          why, driver.name, tp1 ? " (it turns SP off itself when TP = 1)" : "");
    } else if (megatron_lm) {
      f.message = fmt::format(
          "tp_comm_overlap is on but {}; Megatron-LM asserts \"Tensor parallel communication/GEMM overlap "
          "can happen only when sequence parallelism is enabled\"{}",
          why, tp1 ? " (it turns SP off itself when TP = 1)" : "");
    } else {
      // With TP < 2 there is no communication to overlap: the framework turns it off, logs it, and the
      // job loses nothing (Bridge's own recipes share one overlap config across TP sizes). With SP off and
      // TP > 1 the overlap the user asked for is lost.
      f.severity = tp1 ? Severity::kInfo : Severity::kWarning;
      f.message = fmt::format(
          "tp_comm_overlap is on but {}; {} logs \"Disabling tensor parallel communication overlap due to "
          "{}\" and runs without the overlap",
          why, fw == Framework::kNemo2 ? "NeMo 2's MegatronCommOverlapCallback" : "Megatron-Bridge",
          tp1 ? "TP size < 2" : "sequence_parallel=False");
    }
    f.help = tp1 ? "remove tp_comm_overlap (with TP = 1 there is no tensor-parallel communication to hide)"
                 : "turn sequence parallelism on, or remove tp_comm_overlap";
    f.related = related_locations(*cause, tp1 ? "TP set here" : "sequence_parallel set here");
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(TpCommOverlapWithoutSp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
