#pragma once
// Where a `# parlint:` suppression comment can go for a finding without changing what the file means:
// at the end of its line when that line ends outside any string or continuation, otherwise alone above
// the statement the line belongs to (which it then covers: lint/engine/suppressions.cpp lets a comment alone
// on a line cover the next code line) or as a `disable`/`enable` pair around the whole statement (a
// backslash-continued command, a multi-line shell or Python string, a YAML block scalar). The language
// server's quick fix (one code) and `check --add-noqa` (every finding of a file) both place them here.
#include <string>
#include <string_view>
#include <vector>

#include "lint/engine/file_kind.h"

namespace parlint {

struct LineEdit {
  int line = 0;          // 0-based line of the insertion
  std::size_t byte = 0;  // byte column in that line (line length = end of line)
  std::string text;
};

// Candidate edit sets, the preferred first; the caller verifies each by linting the edited text.
std::vector<std::vector<LineEdit>> suppression_candidates(std::string_view text, FileKind kind, int line0,
                                                          const std::string& code);
std::string apply_line_edits(std::string_view text, const std::vector<LineEdit>& edits);

// --add-noqa: the comments for a file's findings, the codes of one place grouped in one comment.
struct SuppressionTarget {
  int line0 = 0;  // 0-based line of the finding's primary location
  std::string code;
};
struct SuppressionGroup {
  enum class How { kMerged, kTrailing, kAbove, kRange };
  How how = How::kTrailing;
  std::vector<SuppressionTarget> targets;  // the findings it covers
  std::vector<std::string> codes;          // the codes it adds, sorted, once each
  std::vector<LineEdit> edits;
  std::string where;  // "line 12", "lines 4-9": what it covers, for messages
};
// One group per place: the existing `ignore` comment that covers a line (codes merged into it), the end
// of a line, or a statement that spans lines. `reason` follows ` -- ` in new comments. `above_first`
// puts the comment alone above a line that starts its statement rather than at its end (for a line
// whose reading a trailing comment changes).
std::vector<SuppressionGroup> plan_suppressions(std::string_view text, FileKind kind,
                                                const std::vector<SuppressionTarget>& targets,
                                                std::string_view reason, bool above_first = false);
// The 0-based line that `line0` becomes once `edits` are applied (inserted lines above it move it down).
int line_after_insertions(int line0, const std::vector<LineEdit>& edits);

}  // namespace parlint
