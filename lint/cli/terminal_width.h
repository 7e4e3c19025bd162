#pragma once
// How wide the reader's lines are, for text meant to be read (`parlint plan`).
#include <cstddef>

namespace parlint {

// $COLUMNS when it is a number of at least 40; else the terminal's width when standard output is one;
// else 80, the width a report pasted into an issue or a log is read at.
std::size_t output_width();

}  // namespace parlint
