#pragma once
// The file a `source` of a path with run-time parts reads: source "${SCRIPT_DIR}/${VARIANT}/params.sh".
// A leading run-time part is taken for the script's own folder (SCRIPT_DIR, $(dirname "$0"), ...) and
// every other run-time part for any name; when exactly one file on disk fits, that is the only file the
// launch can read, so it is the one read.
#include <optional>
#include <string>
#include <string_view>

namespace parlint {

// `path` marks each run-time part with `unknown` bytes. Returns the one existing file that fits, or
// nullopt (none, several, a pattern too loose to search: no literal file name, or more than two
// run-time parts).
std::optional<std::string> resolve_sourced_path(std::string_view path, char unknown,
                                                const std::string& script_dir);

}  // namespace parlint
