#pragma once
// Positions in input files: 1-based lines, 1-based columns counted in Unicode code points.
#include <compare>
#include <string>

namespace parlint {

struct SourcePosition {
  int line = 0;  // 0 = no position (a framework default, a profile)
  int column = 0;
  auto operator<=>(const SourcePosition&) const = default;
};

struct SourceRange {
  SourcePosition start;
  SourcePosition end;
  bool valid() const { return start.line > 0; }
  auto operator<=>(const SourceRange&) const = default;
};

// A range in a named file; an empty path means "not from a file" (a default or a profile).
struct Location {
  std::string path;
  SourceRange range;
  bool in_file() const { return !path.empty() && range.valid(); }
};

}  // namespace parlint
