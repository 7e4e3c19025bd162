#include <fmt/format.h>

#include "lint/reporters/reporter.h"

namespace parlint {

std::string escape_control(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace parlint
