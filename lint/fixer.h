#pragma once
// --fix (DESIGN §4): a file's fixes applied together where they do not overlap, each kept only when the
// fixed text still parses and its finding is gone, and the file linted again until nothing fixable is left
// (a bounded number of passes, as ruff does). The text comes in and goes out: writing is the engine's.
#include <functional>
#include <string>
#include <vector>

#include "lint/diagnostic.h"

namespace parlint {

// One lint of a text: its findings with their fixes resolved, and how many syntax errors its parser saw.
struct LintedText {
  std::vector<Diagnostic> diagnostics;
  std::size_t syntax_errors = 0;
};
using LintText = std::function<LintedText(const std::string& text)>;

struct AppliedFix {
  std::string code;
  std::string message;  // the finding's
  Location at;          // the finding's place, in the text the fix was made on
  Fix fix;
};
struct DroppedFix {
  std::string code;
  Location at;
  std::string why;  // "the fixed text does not parse", "the finding is still there after the fix"
};

struct FixedText {
  std::string text;
  std::vector<AppliedFix> applied;
  std::vector<DroppedFix> dropped;
  int passes = 0;
};

// Which fixes a run applies.
bool fix_allowed(const Fix& fix, bool unsafe);

// `lint` runs every rule, so that a fix that breaks what another rule checks is caught even when the run
// selects fewer; only the findings of the `selected` rules are fixed.
using RuleFilter = std::function<bool(std::string_view code)>;
FixedText fix_text(const std::string& path, std::string text, const LintText& lint, bool unsafe,
                   const RuleFilter& selected);

// A unified diff of two texts with three lines of context (`patch -p0` accepts it); "" when equal.
std::string unified_diff(const std::string& path, std::string_view before, std::string_view after);

}  // namespace parlint
