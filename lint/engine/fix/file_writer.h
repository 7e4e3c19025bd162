#pragma once
// The one place parlint writes an input file (--fix): atomically, through a temporary file in the same
// folder renamed over it, with the mode kept; only a regular, writable file whose text is still what was
// read. Every refusal is a message saying why; nothing is written then.
#include <optional>
#include <string>
#include <string_view>

namespace parlint {

// nullopt on success, else why the file was left alone.
std::optional<std::string> replace_file_text(const std::string& path, std::string_view read_text,
                                             std::string_view new_text);

}  // namespace parlint
