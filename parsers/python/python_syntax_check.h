#pragma once
// What CPython itself refuses. tree-sitter-python reports an ERROR both where Python refuses the text and
// where the grammar lacks a form Python accepts (`return None, *(None,) * n`, newer f-strings); parlint
// calls a file's syntax wrong (PL900) only for the first kind. This scanner follows Python's tokenizer far
// enough to find the definite errors — a bracket or string never closed, a closing bracket that closes
// nothing or the wrong one, a dedent to no outer level — and gives no verdict on anything else.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace parlint {

struct PythonSyntaxError {
  std::size_t offset = 0;  // where CPython's complaint points (the unclosed opener, the stray token)
  std::string message;     // "'(' was never closed"
};

// The first definite error, or nothing when the text tokenizes as Python does or the scanner cannot tell.
std::optional<PythonSyntaxError> find_python_syntax_error(std::string_view text);

}  // namespace parlint
