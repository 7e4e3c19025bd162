#pragma once
// Where a `# parlint:` suppression comment can go for a finding without changing what the file means:
// at the end of its line when that line ends outside any string or continuation, otherwise as a
// `disable=`/`enable=` pair around the whole statement (a backslash-continued command, a multi-line
// shell string, a YAML block scalar).
#include <string>
#include <string_view>
#include <vector>

#include "lint/engine.h"
#include "lint/file_kind.h"

namespace parlint::lsp {

struct LineEdit {
  int line = 0;          // 0-based line of the insertion
  std::size_t byte = 0;  // byte column in that line (line length = end of line)
  std::string text;
};

// Candidate edit sets, the preferred first; the caller verifies each by linting the edited text.
std::vector<std::vector<LineEdit>> suppression_candidates(std::string_view text, FileKind kind, int line0,
                                                          const std::string& code);
std::string apply_line_edits(std::string_view text, const std::vector<LineEdit>& edits);

}  // namespace parlint::lsp
