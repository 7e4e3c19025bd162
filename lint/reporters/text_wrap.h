#pragma once
// Text for a reader: lines of at most a given number of columns, broken at spaces. `parlint plan` is
// read in a terminal, where a line that runs past the edge wraps into the next column's text.
#include <cstddef>
#include <string>
#include <string_view>

namespace parlint {

// Columns `s` takes in a terminal: its Unicode code points (the plan's text has no wide characters).
std::size_t text_columns(std::string_view s);

// `line` (no newline) broken at spaces into lines of at most `width` columns, each continuation indented
// by `hang` columns; every line ends in '\n'. A word longer than a line stays whole. `width` 0 keeps the
// line as it is.
std::string wrap_line(std::string_view line, std::size_t hang, std::size_t width);

// A shell command broken the same way, each broken line ending in " \" so that it still runs when pasted.
std::string wrap_command(std::string_view line, std::size_t hang, std::size_t width);

}  // namespace parlint
