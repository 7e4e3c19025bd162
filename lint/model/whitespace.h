#pragma once
// Trimming, shared by every part: parsers read values with surrounding blanks, the core reads framework
// sources and configuration text.
#include <cctype>
#include <string_view>

namespace parlint {

// `s` without leading and trailing whitespace (std::isspace: blanks, tabs, line endings).
inline std::string_view trim_whitespace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// `s` without leading and trailing blanks and tabs (a line's line ending is kept).
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace parlint
