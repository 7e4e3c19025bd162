// PL902 invalid-suppression: a suppression naming an unknown rule. Reported by the engine while it reads
// suppression comments.
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL902", "invalid-suppression", Severity::kWarning,
                         "a suppression naming an unknown rule",
                         R"md(# PL902 invalid-suppression

## What it does
Reports a suppression comment that names something that is not a parlint rule code or name (a typo, or
another linter's code). Such a name is not also reported as unused (PL901).

## Why
A misspelled code suppresses nothing, so the finding it was meant for still shows — or, worse, the
author believes a rule is silenced when it is not.

## Example
```yaml
model:
  tensor_model_parallel_size: 1
  sequence_parallel: false  # parlint: ignore[PL2O1]
```

## Fix
```yaml
model:
  tensor_model_parallel_size: 1
  sequence_parallel: false
```

## Framework behaviour
None: this is about parlint's own comments.

## References
- parlint manual `docs/usage.md`, "Suppressions"; `parlint rules` lists every rule code and name
- ruff, RUF102 invalid-rule-code, https://docs.astral.sh/ruff/rules/invalid-rule-code/ (the same check in
  ruff)
)md"};

class InvalidSuppression final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
};

PARLINT_REGISTER_RULE(InvalidSuppression);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
