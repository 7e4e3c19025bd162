#include "lint/model/source_text.h"

#include <algorithm>

namespace parlint {

int count_code_points(std::string_view s) {
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

SourceText::SourceText(std::string text) : text_(std::move(text)) {
  line_starts_.push_back(0);
  ascii_ =
      std::none_of(text_.begin(), text_.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  cr_ = text_.find('\r') != std::string::npos;
  if (!cr_) {  // the usual case: memchr from newline to newline
    for (auto at = text_.find('\n'); at != std::string::npos; at = text_.find('\n', at + 1))
      line_starts_.push_back(at + 1);
    return;
  }
  for (std::size_t i = 0; i < text_.size(); ++i) {
    // \n, \r\n and a lone \r all end a line. A lone \r becomes \n (old Mac files, YAML 1.2, LSP
    // clients): the YAML library only knows LF and CR LF, and every reader of the text (check, plan, the
    // language server, files a launch refers to) must see the same lines. Byte offsets are unchanged.
    if (text_[i] == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n')) text_[i] = '\n';
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceText SourceText::edited(std::string text, std::size_t at, std::size_t removed,
                              std::size_t inserted) const {
  if (cr_ || !ascii_ || at + removed > text_.size() || text.size() != text_.size() - removed + inserted ||
      text.find('\r', at) < at + inserted)
    return SourceText(std::move(text));
  SourceText out(Unindexed{}, std::move(text));
  std::string_view added = std::string_view(out.text_).substr(at, inserted);
  out.ascii_ =
      std::none_of(added.begin(), added.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  // Lines starting at or before the edit stay; those the new bytes start follow; those after the removed
  // bytes move by the change in length.
  out.line_starts_.assign(line_starts_.begin(),
                          std::upper_bound(line_starts_.begin(), line_starts_.end(), at));
  for (std::size_t nl = added.find('\n'); nl != std::string_view::npos; nl = added.find('\n', nl + 1))
    out.line_starts_.push_back(at + nl + 1);
  for (auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), at + removed);
       it != line_starts_.end(); ++it)
    out.line_starts_.push_back(*it - removed + inserted);
  return out;
}

std::size_t SourceText::line_length(int line) const {
  return this->line(line).size();
}

std::string_view SourceText::line(int line) const {
  if (line < 1 || line > line_count()) return {};
  std::size_t begin = line_starts_[line - 1];
  std::size_t end = line < line_count() ? line_starts_[line] : text_.size();
  std::string_view s(text_.data() + begin, end - begin);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

int SourceText::line_of(std::size_t offset) const {
  const int lines = line_count();
  auto holds = [&](int line) {
    return line >= 1 && line <= lines && line_starts_[line - 1] <= offset &&
           (line == lines || offset < line_starts_[line]);
  };
  int hint = line_hint_.load(std::memory_order_relaxed);
  if (holds(hint)) return hint;
  if (holds(hint + 1)) {
    line_hint_.store(hint + 1, std::memory_order_relaxed);
    return hint + 1;
  }
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line = static_cast<int>(it - line_starts_.begin());
  line_hint_.store(line, std::memory_order_relaxed);
  return line;
}

SourcePosition SourceText::position(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  int line = line_of(offset);
  if (ascii_) {  // a column is a byte: no line to cut out and count (line endings stay past the end)
    std::size_t column = offset - line_starts_[line - 1];
    return {line, static_cast<int>(std::min(column, line_length(line))) + 1};
  }
  return position(line, offset - line_starts_[line - 1]);
}

SourcePosition SourceText::position(int line, std::size_t byte_column) const {
  std::string_view l = this->line(line);
  byte_column = std::min(byte_column, l.size());
  return {line, count_code_points(l.substr(0, byte_column)) + 1};
}

std::size_t column_to_byte(std::string_view l, int column) {
  int cp = 1;
  std::size_t i = 0;
  while (i < l.size() && cp < column) {
    ++i;
    while (i < l.size() && (static_cast<unsigned char>(l[i]) & 0xC0) == 0x80) ++i;
    ++cp;
  }
  return i;
}

std::size_t SourceText::offset(SourcePosition pos) const {
  if (pos.line < 1 || pos.line > line_count()) return text_.size();
  return line_starts_[pos.line - 1] + column_to_byte(line(pos.line), pos.column);
}

}  // namespace parlint
