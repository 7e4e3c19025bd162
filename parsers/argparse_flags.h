#pragma once
// The options a Python script's own argparse defines (parser.add_argument("--target-tp", "-t", ...)): a
// launch of that script may pass them, whatever a framework calls its settings (PL801's scope).
#include <string>
#include <string_view>
#include <vector>

namespace parlint {

// Every option string of an add_argument(...) call in `source`, in order, each once. Static: the text is
// scanned, not run, so options added in a loop or from a variable are not seen.
std::vector<std::string> argparse_flags_defined(std::string_view source);

}  // namespace parlint
