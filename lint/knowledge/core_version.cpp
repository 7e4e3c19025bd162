#include "lint/knowledge/core_version.h"

#include <cctype>
#include <string_view>

namespace parlint {

std::string CoreVersion::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<CoreVersion> parse_core_version(const std::string& text) {
  CoreVersion v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  std::size_t i = 0, n = 0;
  std::string_view t = text;
  if (t.starts_with("core_v")) t.remove_prefix(6);
  if (t.starts_with("v")) t.remove_prefix(1);
  while (n < 3) {
    std::size_t j = i;
    while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
    if (j == i || j - i > 4) return std::nullopt;
    *parts[n++] = std::stoi(std::string(t.substr(i, j - i)));
    if (j == t.size()) break;
    if (t[j] != '.') {
      if (n >= 2) break;  // 0.16.0rc1
      return std::nullopt;
    }
    i = j + 1;
  }
  if (n < 2) return std::nullopt;
  return v;
}

}  // namespace parlint
