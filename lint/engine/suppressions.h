#pragma once
// Suppression comments (DESIGN §4), read from a file's lines: `# parlint: ignore[PL201]` at the end of a
// line covers that line, alone on a line it covers the next non-comment line; `disable=`/`enable=` (or
// `disable[...]`) cover a range; `file-ignore[...]` the whole file. Codes or names, comma separated, with
// an optional ` -- reason`. The same syntax works in Python, YAML and shell (all use `#`).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/source_text.h"
#include "rules/api/diagnostic.h"

namespace parlint {

// One `# parlint:` comment as written on a line: the one grammar, for reading suppressions and for
// adding codes to one (--add-noqa, the language server's quick fix).
struct SuppressionComment {
  std::string kind;          // ignore, disable, enable, file-ignore
  std::string list;          // the codes as written: "PL201, sp-without-tp"
  std::string reason;        // after ` -- `
  std::size_t hash = 0;      // byte offset of its `#` in the line
  std::size_t list_end = 0;  // byte offset just after the last code (before `]`, ` --` or the end)
  bool bracket = true;       // `ignore[...]` rather than `ignore=...`
  bool own_line = false;     // nothing but blanks before it
};
std::optional<SuppressionComment> find_suppression_comment(std::string_view line);
// A line that holds nothing but blanks or a comment: a suppression on it applies to the next code line.
bool blank_or_comment_line(std::string_view line);

// The comment that hid a diagnostic, and the reason written after ` -- ` (SARIF's justification).
struct SuppressedBy {
  Location comment;
  std::string reason;
};

class Suppressions {
 public:
  Suppressions(const std::string& path, const SourceText& source);

  // The covering comment (which then counts as used), or nullopt when none covers this diagnostic.
  std::optional<SuppressedBy> suppresses(const Diagnostic& d);
  // PL901 for suppressions that covered nothing (only for codes in `enabled`), PL902 for unknown names.
  std::vector<Finding> unused(const std::vector<std::string>& enabled_codes) const;
  std::vector<Finding> invalid() const;

 private:
  struct Entry {
    enum Kind { kLine, kRange, kFile } kind;
    std::vector<std::string> codes;  // resolved rule codes
    int first_line = 0, last_line = 0;
    Location comment;
    std::vector<bool> used;  // per code
    std::string reason;
    // For PL901's fix: the comment's kind and items as written, and the text that removes the comment
    // (with the space before it, or its whole line when it stands alone).
    std::string directive;
    std::vector<std::string> items;
    Location removal;
  };
  struct Bad {
    std::string name;
    Location comment;
  };
  std::vector<Entry> entries_;
  std::vector<Bad> bad_;
};

}  // namespace parlint
