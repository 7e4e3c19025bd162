#include "lint/lsp/text_document.h"

#include <algorithm>

namespace parlint::lsp {
namespace {

// Bytes of the UTF-8 sequence a lead byte starts (1 for stray continuation or invalid bytes, which
// SourceText also counts as one code point each).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF7) return 4;
  if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Walks one line code point by code point: (byte offset, units so far) until `stop` says enough.
template <typename Stop>
std::pair<std::size_t, int> walk(std::string_view line, PositionEncoding encoding, Stop stop) {
  std::size_t byte = 0;
  int units = 0, points = 0;
  while (byte < line.size() && !stop(points, units)) {
    std::size_t n = std::min(sequence_length(static_cast<unsigned char>(line[byte])), line.size() - byte);
    // Continuation bytes of a truncated sequence still belong to it.
    std::size_t k = 1;
    while (k < n && (static_cast<unsigned char>(line[byte + k]) & 0xC0) == 0x80) ++k;
    n = k;
    if (encoding == PositionEncoding::kUtf8)
      units += static_cast<int>(n);
    else
      units += n == 4 ? 2 : 1;  // astral code points are a surrogate pair
    byte += n;
    ++points;
  }
  return {byte, units};
}

}  // namespace

int lsp_character(std::string_view line, int column, PositionEncoding encoding) {
  return walk(line, encoding, [&](int points, int) { return points >= column - 1; }).second;
}

std::size_t line_byte_offset(std::string_view line, int character, PositionEncoding encoding) {
  return walk(line, encoding, [&](int, int units) { return units >= character; }).first;
}

TextDocument::TextDocument(std::string uri, std::string path, std::string text, int version)
    : uri_(std::move(uri)),
      path_(std::move(path)),
      text_(std::move(text)),
      version_(version),
      source_(text_) {}

void TextDocument::replace(std::string text, int version) {
  text_ = std::move(text);
  version_ = version;
  source_ = SourceText(text_);
}

std::size_t TextDocument::offset(LspPosition p, PositionEncoding encoding) const {
  if (p.line < 0) return 0;
  if (p.line >= source_.line_count()) return text_.size();
  std::size_t start = source_.line_start(p.line + 1);
  return start + line_byte_offset(source_.line(p.line + 1), std::max(p.character, 0), encoding);
}

void TextDocument::edit(LspPosition start, LspPosition end, std::string_view new_text,
                        PositionEncoding encoding) {
  std::size_t a = offset(start, encoding), b = offset(end, encoding);
  if (b < a) std::swap(a, b);
  text_.replace(a, b - a, new_text);
  source_ = source_.edited(text_, a, b - a, new_text.size());
}

LspPosition TextDocument::to_lsp(SourcePosition p, PositionEncoding encoding) const {
  if (p.line <= 0) return {0, 0};
  return {p.line - 1, lsp_character(source_.line(p.line), p.column, encoding)};
}

SourcePosition TextDocument::from_lsp(LspPosition p, PositionEncoding encoding) const {
  if (p.line < 0 || p.line >= source_.line_count()) return {p.line + 1, 1};
  return source_.position(p.line + 1,
                          line_byte_offset(source_.line(p.line + 1), std::max(p.character, 0), encoding));
}

}  // namespace parlint::lsp
