// PL802 conflicting-values: one launch sets the same key twice with different values; says which one wins.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL802", "conflicting-values", Severity::kWarning,
                         "one launch sets the same key twice with different values; says which one wins",
                         R"md(# PL802 conflicting-values

## What it does
Reports one setting given two different values in one place: twice in one launch command (any
spellings, e.g. `-tp 2` and `model.tensor_model_parallel_size=4`), twice in one YAML mapping, or twice
in one function. It says which value wins.

verl (`python -m verl.trainer.main_ppo`) builds the reference model and the critic in the actor's
processes, on the Megatron groups the actor sets up (`verl/workers/megatron_workers.py:273-293@b178a3cd56f5`;
their TransformerConfig takes the sizes from those groups, `verl/models/mcore/config_converter.py:77-82`).
A size under `critic.megatron.` or `actor_rollout_ref.ref.megatron.` that differs from the actor's is
reported at that setting: it does not take effect.

AMD Primus hands Megatron-LM only the override keys its argparse defines
(`primus/backends/megatron/argument_builder.py:151-156@fd1eeabbad15`). Megatron-LM has no
`virtual_pipeline_model_parallel_size` option: `validate_args` derives the virtual pipeline from
`num_virtual_stages_per_pipeline_rank` or `num_layers_per_virtual_pipeline_stage` (or a pipeline layout)
and leaves none otherwise (`megatron/training/arguments.py:741-771@d3528a21301d`, the Megatron-LM Primus
pins). A `virtual_pipeline_model_parallel_size` above 1 without one of those is reported: the run has no
interleaved schedule.

## Why
Only one value takes effect — the later override, the later spelling — and the other is dead text that
misleads the next reader (and sometimes the writer). A key written twice in one YAML mapping is worse:
OmegaConf, which NeMo and Megatron-Bridge load YAML with, refuses the whole file.

## Example
```yaml
model:
  tensor_model_parallel_size: 2
  tensor_model_parallel_size: 4
```

## Fix
```yaml
model:
  tensor_model_parallel_size: 4
```

## Framework behaviour
A duplicate key in one YAML mapping: PyYAML (Megatron-LM's `--yaml-cfg`) keeps the later value;
OmegaConf (NeMo 1, NeMo 2 and Megatron-Bridge YAML files) refuses the file with "found duplicate key".
Two spellings of one setting (`tensor_model_parallel_size` and an alias), and repeated command-line
overrides: the later one wins; Hydra and run_recipe.py apply trailing overrides last. The same field
set again further down a Python file (a recipe that sets a base value, in a constructor such as
`CommOverlapConfig(tp_comm_overlap=False)` or by assignment, and changes it for a variant) is Python's
own order, a normal recipe pattern, and not reported; two objects' fields that the framework reconciles
(`ddp.use_distributed_optimizer` and `optimizer.use_distributed_optimizer`) stay a warning.

## References
- PyYAML `lib/yaml/constructor.py:137-144@d51d8a138f72` (a later duplicate key overwrites the earlier)
- OmegaConf `omegaconf/_yaml.py:199-204@63b63041ed30` (OmegaConf's loader refuses duplicate keys: "found
  duplicate key")
- YAML 1.2.2 specification, https://yaml.org/spec/1.2.2/ (the keys of a mapping are unique)
- Primus `primus/backends/megatron/argument_builder.py:151-156@fd1eeabbad15`; Megatron-LM
  `megatron/training/arguments.py:741-771@d3528a21301d` (where the virtual pipeline comes from)
- Megatron-Bridge `scripts/training/run_recipe.py:448-450@067f987df03b` (trailing `KEY=VALUE` overrides
  come after the convenience options, so they win; docstring lines 26-28)
)md"};

class ConflictingValues final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  // A setting the framework never applies (verl's critic and reference run on the Megatron groups the
  // actor set up): its adapter says how, and the finding stands at the setting that does nothing.
  static bool not_applied(const Conflict& c, std::vector<Finding>& out) {
    if (c.not_applied.empty() || !c.loser.location.in_file()) return false;
    Finding f;
    f.location = c.loser.location;
    std::string runs =
        c.winner.location.in_file()
            ? fmt::format("{}={} ({} at line {})", key_name(c.winner.key), c.winner.value.to_string(),
                          c.winner.spelling, c.winner.location.range.start.line)
        : c.winner.spelling.empty() ? fmt::format("the actor's {} (its default)", key_name(c.winner.key))
                                    : c.winner.spelling;
    f.message = fmt::format("{}={} does not take effect: {}, so it runs with {}", c.loser.spelling,
                            c.loser.value.to_string(), c.not_applied, runs);
    f.help = !c.fix.empty()
                 ? c.fix
                 : "remove it, or set the actor's value if that is the layout you want for every role";
    if (c.winner.location.in_file()) f.related.push_back({c.winner.location, "the value that runs"});
    out.push_back(std::move(f));
    return true;
  }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    for (const Conflict& c : job.conflicts()) {
      if (not_applied(c, out)) continue;
      if (!c.winner.location.in_file()) continue;
      // `x = None` then `x = 10000` only fills in a value left unset: nothing is overridden.
      if (c.loser.value.kind() == Value::Kind::kNull || c.winner.value.kind() == Value::Kind::kNull) continue;
      Finding f;
      f.location = c.winner.location;
      f.message = fmt::format("{} is set twice: {} here wins over {}={}{}", key_name(c.winner.key),
                              c.winner.value.to_string(), c.loser.spelling, c.loser.value.to_string(),
                              c.loser.location.in_file()
                                  ? fmt::format(" at line {}", c.loser.location.range.start.line)
                                  : std::string());
      f.help = "remove the setting that does not take effect";
      // The same key twice in one mapping: PyYAML keeps the later value, OmegaConf refuses the file.
      if (c.winner.origin == Origin::kYaml && c.loser.origin == Origin::kYaml &&
          c.winner.spelling == c.loser.spelling) {
        f.message = fmt::format(
            "{} is a duplicate key (also at line {}): PyYAML keeps the later value {}, but OmegaConf, "
            "which NeMo and Megatron-Bridge load YAML with, refuses the file (\"found duplicate key\")",
            c.winner.spelling, c.loser.location.range.start.line, c.winner.value.to_string());
        f.help = "keep one of the two keys";
      }
      // A Python recipe that sets a value and changes it further down (a base value, then the variant's)
      // is a normal pattern: the later assignment is what runs. Worth knowing, not a warning.
      // Two objects' fields that the framework reconciles (ddp.* and optimizer.*) stay a warning.
      // A Megatron-LM flag given again after a preset sourced from another file (slime's scripts/models/*.sh,
      // then the run script's own PERF_ARGS): argparse keeps the later one, which is the point of it.
      // The same for two option lists of one script (MODEL_ARGS, then PERF_ARGS): each list was assigned
      // on its own, and the later list's flag is meant to win.
      // Both written away from the launch command, in the lists it expands.
      auto in_list = [&](const Fact& x) {
        const SourceRange& r = job.range();
        return x.location.path == job.path() &&
               (x.location.range.start.line < r.start.line || x.location.range.start.line > r.end.line);
      };
      bool two_lists = in_list(c.loser) && in_list(c.winner);
      if (c.winner.origin == Origin::kMegatronFlag && c.loser.origin == Origin::kMegatronFlag &&
          c.loser.location.in_file() && (c.winner.location.path != c.loser.location.path || two_lists)) {
        f.severity = Severity::kInfo;
        f.message +=
            c.winner.location.path != c.loser.location.path
                ? fmt::format(" (in {}); argparse keeps the later flag, so this overrides that preset",
                              c.loser.location.path)
                : std::string(
                      "; the two come from separate option lists and argparse keeps the later "
                      "flag, so this overrides the earlier list's");
      }
      // Python runs its statements in order: a recipe that sets a field (in a constructor or by
      // assignment) and sets it again further down means the later value, so that is no conflict. Only
      // the two objects' fields that the framework reconciles (ddp.* and optimizer.*
      // use_distributed_optimizer) stay one.
      auto python = [](Origin o) { return o == Origin::kPythonAssign || o == Origin::kPythonKwarg; };
      if (python(c.winner.origin) && python(c.loser.origin) &&
          c.winner.location.path == c.loser.location.path && c.winner.key != Key::kUseDistributedOptimizer)
        continue;
      if (c.loser.location.in_file()) f.related.push_back({c.loser.location, "overridden value here"});
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(ConflictingValues);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
