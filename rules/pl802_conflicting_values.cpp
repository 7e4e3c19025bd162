// PL802 conflicting-values: one launch sets the same key twice with different values; says which one wins.
#include <fmt/format.h>

#include "lint/describe.h"
#include "lint/rule.h"

namespace parlint {
namespace {

constexpr RuleInfo kInfo{"PL802", "conflicting-values", Severity::kWarning,
                         "one launch sets the same key twice with different values; says which one wins",
                         R"md(# PL802 conflicting-values

## What it does
Reports one setting given two different values in one place: twice in one launch command (any
spellings, e.g. `-tp 2` and `model.tensor_model_parallel_size=4`), twice in one YAML mapping, or twice
in one function. It says which value wins.

## Why
Only one value takes effect — the later override, the last duplicate key — and the other is dead text
that misleads the next reader (and sometimes the writer).

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
PyYAML and OmegaConf keep the last duplicate key; Hydra and run_recipe.py apply trailing overrides last.

## References
- DESIGN §2 "Conflicts (PL802)"
)md"};

class ConflictingValues final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    for (const Conflict& c : job.conflicts()) {
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
      if (c.loser.location.in_file()) f.related.push_back({c.loser.location, "overridden value here"});
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(ConflictingValues);

}  // namespace
}  // namespace parlint
