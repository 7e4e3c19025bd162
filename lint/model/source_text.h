#pragma once
// A file's text with a line index: byte offsets <-> 1-based (line, code-point column).
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/source_range.h"

namespace parlint {

class SourceText {
 public:
  explicit SourceText(std::string text);
  SourceText(const SourceText& other)
      : text_(other.text_), line_starts_(other.line_starts_), ascii_(other.ascii_), cr_(other.cr_) {}
  SourceText(SourceText&& other) noexcept
      : text_(std::move(other.text_)),
        line_starts_(std::move(other.line_starts_)),
        ascii_(other.ascii_),
        cr_(other.cr_) {}
  SourceText& operator=(const SourceText& other) { return *this = SourceText(other); }
  SourceText& operator=(SourceText&& other) noexcept {
    text_ = std::move(other.text_);
    line_starts_ = std::move(other.line_starts_);
    ascii_ = other.ascii_;
    cr_ = other.cr_;
    line_hint_.store(1, std::memory_order_relaxed);
    return *this;
  }
  // SourceText(text) where `text` is this text with `removed` bytes at `at` replaced by `inserted` bytes:
  // the line index of an editor's buffer updated around the edit rather than rebuilt (a keystroke in a long
  // script), when neither text holds a carriage return or a non-ASCII byte outside the edit.
  SourceText edited(std::string text, std::size_t at, std::size_t removed, std::size_t inserted) const;

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
  struct Unindexed {};
  SourceText(Unindexed, std::string text) : text_(std::move(text)) {}
  std::string text_;
  std::size_t line_length(int line) const;
  int line_of(std::size_t offset) const;
  std::vector<std::size_t> line_starts_;
  bool ascii_ = true;  // every column is one byte
  bool cr_ = false;    // the text had a carriage return
  // The line of the last offset looked up: a parser asks for positions in file order, mostly on the same
  // line or the next, so it is tried before a search of every line. Only a hint (any value is correct),
  // atomic because threads may share a text.
  mutable std::atomic<int> line_hint_{1};
};

// Number of code points in a UTF-8 byte range (continuation bytes are not counted).
int count_code_points(std::string_view s);
// Byte offset of a 1-based code-point column within one line (clamped to the line's length).
std::size_t column_to_byte(std::string_view line, int column);

}  // namespace parlint
