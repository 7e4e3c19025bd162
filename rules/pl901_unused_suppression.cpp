// PL901 unused-suppression: a suppression comment that suppressed nothing. The engine applies
// suppressions after every other rule has run and reports the unused ones under this code.
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL901",
                         "unused-suppression",
                         Severity::kWarning,
                         "a suppression comment that suppressed nothing",
                         R"md(# PL901 unused-suppression

## What it does
Reports `# parlint: ignore[...]`, `disable=` ranges and `file-ignore[...]` comments whose rule found
nothing where the comment applies (only for rules that are enabled in the run).

## Why
A stale suppression hides the next real finding of that rule on that line. Like ruff's RUF100, parlint
asks for suppressions to be removed once the finding they were written for is fixed.

## Example
```yaml
model:
  tensor_model_parallel_size: 2
  sequence_parallel: true  # parlint: ignore[PL201]
```

## Fix
```yaml
model:
  tensor_model_parallel_size: 2
  sequence_parallel: true
```

`parlint check --fix` removes it (a **safe** fix): the whole comment when it names one rule, that rule
from its list otherwise. A `disable=` … `enable=` range is two comments and is left to you.

## Framework behaviour
None: this is about parlint's own comments.

## References
- parlint manual `docs/usage.md`, "Suppressions" (the `ignore[...]`, `disable=`/`enable=` and
  `file-ignore[...]` comments)
- ruff, RUF100 unused-noqa, https://docs.astral.sh/ruff/rules/unused-noqa/ (the same check in ruff)
)md",
                         {},
                         FixAvailability::kSafe};

class UnusedSuppression final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
};

PARLINT_REGISTER_RULE(UnusedSuppression);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
