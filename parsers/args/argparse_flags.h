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

// Whether the script takes options its add_argument calls do not list: parse_known_args, a REMAINDER
// argument, or sys.argv read by hand (a wrapper that passes the rest on). Its flag set is then not known.
bool takes_unlisted_arguments(std::string_view source);

// Whether an argument-checking file (a Megatron checkout's arguments.py) refuses to start over an
// environment variable: an assert or raise statement whose first lines name it. Megatron-LM asserts
// CUDA_DEVICE_MAX_CONNECTIONS for TP or CP > 1 (megatron/training/arguments.py:1476-1478@d98e8a64ddf3);
// older versions raise for sequence parallelism; a fork may have dropped the check altogether.
bool refuses_without_variable(std::string_view source, std::string_view variable);

}  // namespace parlint
