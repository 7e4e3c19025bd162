// PL201 sp-without-tp: sequence parallelism requested with TP = 1.
#include <fmt/format.h>
#include <algorithm>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kSequenceParallel};

constexpr RuleInfo kInfo{
    "PL201",
    "sp-without-tp",
    Severity::kError,
    "sequence_parallel is on while TP = 1 (an error where Megatron-Core raises, a warning "
    "where the framework turns SP off)",
    R"md(# PL201 sp-without-tp

## What it does
Reports `sequence_parallel: true` (or `--sequence-parallel`) in a job whose tensor-parallel size is 1.

## Why
Sequence parallelism splits the activations of LayerNorm and dropout across the ranks of a TP group;
with TP = 1 there is no group to split across. Megatron-Core's `ModelParallelConfig` raises
`ValueError: Cannot use sequence parallelism without tensor parallelism` (hit directly by NeMo 2 and
raw Megatron-Core users). Megatron-LM prints a warning and turns SP off; Megatron-Bridge and NeMo 1
turn it off silently. Either way the configuration does not do what it says.

## Example
```yaml
model:
  tensor_model_parallel_size: 1
  sequence_parallel: true     # PL201
```

## Fix
```yaml
model:
  tensor_model_parallel_size: 1
  sequence_parallel: false
```
or raise TP above 1 if activation memory was the reason for SP.

`parlint check --fix` makes this change (a **safe** fix): it turns SP off where it is written
(`sequence_parallel: false`, `=False`, or the `--sequence-parallel` flag removed), which is what the
framework runs with or insists on. The fix is **unsafe** when TP=1 is one of several layouts the file
chooses between (a `case` on a constant such as `MODEL_SCALE="800M"`): the flag is shared with the other
arms, whose TP may need it.

## Framework behaviour
Severity follows what the framework does: an **error** where Megatron-Core receives the setting and
raises, a **warning** where the framework turns SP off first (the job runs, without SP).

| framework | what happens | severity |
|---|---|---|
| Megatron-Core / NeMo 2 | raises ValueError | error |
| Megatron-LM | warns "Disabling sequence parallelism because tensor model parallelism is disabled", SP off (`megatron/training/arguments.py:1433-1439@d98e8a64ddf3`) | warning |
| Megatron-Bridge | sets `sequence_parallel = False` in the provider's `finalize()` (`src/megatron/bridge/models/transformer_config.py:175@067f987df03b`) | warning |
| NeMo 1 | logs and sets `sequence_parallel = False` | warning |
| Megatron-DeepSpeed | sets `sequence_parallel = False` silently (`megatron/arguments.py:387-388@f4157bea69f3`) | warning |
| ms-swift (`megatron sft`) | sets `sequence_parallel = False` silently (`swift/megatron/arguments/megatron_args.py:891-892@3602360a5623`); its documentation says the switch takes effect only when TP is set (`docs/source_en/Megatron-SWIFT/Command-line-parameters.md:163`), and its examples leave it on at TP 1 | not reported |
| verl | warns "set sequence parallel to false as TP size is 1" and turns it off (`verl/workers/config/engine.py:133-135@b178a3cd5`); its own default config has SP on with TP 1 on purpose | not reported |

## References
- Megatron-LM `megatron/core/model_parallel_config.py:502-504@d98e8a64ddf3` (Megatron-Core: ValueError for
  SP with TP <= 1)
- NeMo `nemo/lightning/_strategy_lib.py:169-175@8cfedd720346` (NeMo 2 copies the strategy sizes into the
  model config and re-runs `__post_init__`, so Megatron-Core's check applies)
- Megatron-LM `megatron/training/arguments.py:1433-1439@d98e8a64ddf3` (warns and turns SP off when TP = 1)
- Megatron-Bridge `src/megatron/bridge/models/transformer_config.py:175-176@067f987df03b` (`finalize()`
  turns SP off silently)
- NeMo `nemo/collections/nlp/models/language_modeling/megatron_base_model.py:1019-1025@8cfedd720346`
  (NeMo 1: logs and turns SP off)
)md",
    kReads,
    FixAvailability::kSafe};

std::string framework_behaviour(Framework fw) {
  switch (fw) {
    case Framework::kMegatronLM:
      return "Megatron-LM warns \"Disabling sequence parallelism because tensor model parallelism is "
             "disabled\" "
             "and runs without SP";
    case Framework::kMegatronBridge:
      return "Megatron-Bridge silently sets sequence_parallel=False";
    case Framework::kNemo1:
      return "NeMo 1 logs a message and sets sequence_parallel=False";
    case Framework::kMegatronDeepSpeed:
      return "Megatron-DeepSpeed silently sets sequence_parallel=False";
    case Framework::kVerl:  // not reported (see check_job)
    case Framework::kNemo2:
    case Framework::kUnknown:
      break;
  }
  return "Megatron-Core raises \"Cannot use sequence parallelism without tensor parallelism\"";
}

class SpWithoutTp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto sp = job.get_bool(Key::kSequenceParallel);
    auto tp = job.get_int(Key::kTensorModelParallelSize);
    const Fact* sp_fact = job.fact(Key::kSequenceParallel);
    if (!sp || !*sp || !tp || *tp != 1 || !sp_fact->location.in_file()) return;
    // A framework whose configs write SP for every TP and turn it off at TP 1 themselves (verl, ROLL,
    // ChatLearn, ms-swift, as their adapters say): there it is their design, not a mistake.
    if (job.driver_traits().turns_sp_off_at_tp1) return;
    const Fact* tp_fact = job.fact(Key::kTensorModelParallelSize);
    Finding f;
    f.location = sp_fact->location;
    f.message = fmt::format(
        "sequence_parallel is on but TP=1 ({}): there is no tensor-parallel group to split "
        "activations across; {}",
        describe_source(*tp_fact, job.path()), framework_behaviour(job.framework()));
    // Where the framework turns SP off the job runs as if SP were off: a warning (DESIGN §3).
    Framework fw = job.framework();
    if (fw == Framework::kMegatronLM || fw == Framework::kMegatronBridge || fw == Framework::kNemo1 ||
        fw == Framework::kMegatronDeepSpeed)
      f.severity = Severity::kWarning;
    const std::string off = setting_phrase(job, Key::kSequenceParallel, Value::boolean(false), sp_fact);
    f.help = off + ", or use TP > 1 (SP only pays off together with tensor parallelism)";
    f.related = related_locations(*tp_fact, "TP=1 set here");
    for (const auto& w : sp_fact->written_at) f.related.push_back(w);
    // Safe: the framework refuses SP at TP=1 or turns it off itself, so off is what runs either way —
    // unless TP=1 is one of several layouts the file chooses between (a case on MODEL_SIZE): turning the
    // shared SP off would turn it off for the others too.
    const bool chosen = std::any_of(tp_fact->written_at.begin(), tp_fact->written_at.end(),
                                    [](const RelatedLocation& r) { return r.choice; });
    f.fix = FixRequest{chosen ? FixApplicability::kUnsafe : FixApplicability::kSafe,
                       off,
                       {set_value(*sp_fact, Value::boolean(false))}};
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(SpWithoutTp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
