#include "lint/cli/terminal_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace parlint {

std::size_t output_width() {
  constexpr std::size_t kNarrowest = 40, kDefault = 80;
  if (const char* columns = std::getenv("COLUMNS")) {
    std::string_view s = columns;
    std::size_t n = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && end == s.data() + s.size() && n >= kNarrowest) return n;
  }
  winsize size{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= kNarrowest)
    return size.ws_col;
  return kDefault;
}

}  // namespace parlint
