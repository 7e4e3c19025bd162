#pragma once
// An open editor buffer and the conversions between LSP positions (0-based line, character offset in
// the negotiated encoding: UTF-16 code units by default, or UTF-8 bytes) and parlint's positions
// (1-based line, 1-based code-point column).
#include <string>
#include <string_view>

#include "lint/model/source_range.h"
#include "lint/model/source_text.h"

namespace parlint::lsp {

enum class PositionEncoding { kUtf16, kUtf8 };

struct LspPosition {
  int line = 0;
  int character = 0;
};

// The character offset of a code-point column within one line of text.
int lsp_character(std::string_view line, int column, PositionEncoding encoding);
// The byte offset within one line of an LSP character offset (clamped to the line).
std::size_t line_byte_offset(std::string_view line, int character, PositionEncoding encoding);

class TextDocument {
 public:
  TextDocument(std::string uri, std::string path, std::string text, int version);

  const std::string& uri() const { return uri_; }
  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  int version() const { return version_; }
  const SourceText& source() const { return source_; }

  void replace(std::string text, int version);
  // An incremental change: replaces the text between two LSP positions.
  void edit(LspPosition start, LspPosition end, std::string_view new_text, PositionEncoding encoding);
  void set_version(int version) { version_ = version; }

  std::size_t offset(LspPosition p, PositionEncoding encoding) const;
  // parlint position -> LSP position in this document.
  LspPosition to_lsp(SourcePosition p, PositionEncoding encoding) const;
  // LSP position -> parlint position.
  SourcePosition from_lsp(LspPosition p, PositionEncoding encoding) const;

 private:
  std::string uri_, path_, text_;
  int version_ = 0;
  SourceText source_;
};

}  // namespace parlint::lsp
