#pragma once
// A file's text with a line index: byte offsets <-> 1-based (line, code-point column).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/source_range.h"

namespace parlint {

class SourceText {
 public:
  explicit SourceText(std::string text);

  std::string_view text() const { return text_; }
  int line_count() const { return static_cast<int>(line_starts_.size()); }
  // The text of a 1-based line without its line ending ("" when out of range).
  std::string_view line(int line) const;
  std::size_t line_start(int line) const { return line_starts_[line - 1]; }
  // Byte offset -> position with a code-point column.
  SourcePosition position(std::size_t offset) const;
  // 1-based line + 0-based byte column in that line -> position with a code-point column.
  SourcePosition position(int line, std::size_t byte_column) const;
  // Position -> byte offset (clamped to the line).
  std::size_t offset(SourcePosition pos) const;

 private:
  std::string text_;
  std::size_t line_length(int line) const;
  std::vector<std::size_t> line_starts_;
  bool ascii_ = true;  // every column is one byte
};

// Number of code points in a UTF-8 byte range (continuation bytes are not counted).
int count_code_points(std::string_view s);
// Byte offset of a 1-based code-point column within one line (clamped to the line's length).
std::size_t column_to_byte(std::string_view line, int column);

}  // namespace parlint
