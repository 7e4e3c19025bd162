#pragma once
// --fix (DESIGN §4): a file's fixes applied together where they do not overlap, each kept only when the
// fixed text still parses and its finding is gone, and the file linted again until nothing fixable is left
// (a bounded number of passes, as ruff does). The text comes in and goes out: writing is the engine's.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules/api/diagnostic.h"

namespace parlint {

// One lint of a text: its findings with their fixes resolved, and how many syntax errors its parser saw.
struct LintedText {
  std::vector<Diagnostic> diagnostics;
  std::size_t syntax_errors = 0;
};

using RuleFilter = std::function<bool(std::string_view code)>;

// What fixing needs from the run. `lint` runs every rule on the file, reading the other files as the
// fixes so far left them (`others`, by path), so that a fix that breaks what another rule checks is
// caught even when the run selects fewer; only the findings of the `selected` rules are fixed. `read`
// gives another file's current text (nullopt when it is not a readable regular file), `syntax_errors`
// parses a text as its own file.
struct FixEnvironment {
  std::function<LintedText(const std::string& text, const std::map<std::string, std::string>& others)> lint;
  std::function<std::optional<std::string>(const std::string& path)> read;
  std::function<std::size_t(const std::string& path, const std::string& text)> syntax_errors;
  RuleFilter selected;
  bool unsafe = false;
  // Why fixes may not edit other files here (standard input, an editor's document); "" when they may.
  std::string others_refused;
};

struct AppliedFix {
  std::string code;
  std::string message;  // the finding's
  Location at;          // the finding's place, in the text the fix was made on
  Fix fix;
};
struct DroppedFix {
  std::string code;
  Location at;
  std::string
      why;  // "the fixed text does not parse (...)", "it leads to another error (PL503 at line 8: ...)"
};

struct FixedText {
  std::string text;
  // Other files the fixes edited, where the value was written (a sourced params.sh): before and after.
  std::map<std::string, std::string> others_before, others_after;
  std::vector<AppliedFix> applied;
  std::vector<DroppedFix> dropped;
  int passes = 0;
};

// Which fixes a run applies.
bool fix_allowed(const Fix& fix, bool unsafe);

FixedText fix_text(const std::string& path, std::string text, const FixEnvironment& env);

// A unified diff of two texts with three lines of context (`patch -p0` accepts it); "" when equal.
std::string unified_diff(const std::string& path, std::string_view before, std::string_view after);

}  // namespace parlint
