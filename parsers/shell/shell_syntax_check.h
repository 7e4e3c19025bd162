#pragma once
// What bash itself refuses. tree-sitter-bash reports an ERROR both where bash refuses the text and where
// the grammar merely lacks a form bash accepts; parlint calls a file's syntax wrong (PL900) only for the
// first kind. This scanner follows bash's tokenizer far enough to find the definite errors — a quote,
// expansion or compound command never closed, a closing keyword or parenthesis with nothing open, a
// redirection without its target — and gives up (no verdict) on anything it does not follow.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace parlint {

struct BashSyntaxError {
  std::size_t offset = 0;  // where bash's complaint points (the unclosed opener, the stray token)
  std::string message;     // "the \" opened here is never closed (bash: unexpected end of file)"
};

// The first definite error, or nothing when the text is valid bash or the scanner cannot tell.
std::optional<BashSyntaxError> find_bash_syntax_error(std::string_view text);

}  // namespace parlint
