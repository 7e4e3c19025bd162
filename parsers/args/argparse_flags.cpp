#include "parsers/args/argparse_flags.h"

#include <algorithm>

namespace parlint {
namespace {

void skip_blanks(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\\')) ++i;
}

// A plain string literal at i ('...' or "...", no prefix, no escapes needed for option names).
bool string_literal(std::string_view s, std::size_t& i, std::string& out) {
  if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) return false;
  char quote = s[i];
  std::size_t end = s.find(quote, i + 1);
  if (end == std::string_view::npos || s.substr(i + 1, end - i - 1).find('\n') != std::string_view::npos)
    return false;
  out.assign(s.substr(i + 1, end - i - 1));
  i = end + 1;
  return true;
}

}  // namespace

bool takes_unlisted_arguments(std::string_view source) {
  for (std::string_view sign : {"parse_known_args", "REMAINDER", "sys.argv[", "sys.argv.index"})
    if (source.find(sign) != std::string_view::npos) return true;
  return false;
}

std::vector<std::string> argparse_flags_defined(std::string_view source) {
  constexpr std::string_view kCall = "add_argument(";
  std::vector<std::string> flags;
  for (std::size_t at = source.find(kCall); at != std::string_view::npos; at = source.find(kCall, at + 1)) {
    std::size_t i = at + kCall.size();
    std::string literal;
    // The option strings come first: add_argument("--a", "-b", type=int, ...).
    while (true) {
      skip_blanks(source, i);
      if (!string_literal(source, i, literal) || !literal.starts_with("-") || literal.size() < 2) break;
      if (std::find(flags.begin(), flags.end(), literal) == flags.end()) flags.push_back(literal);
      skip_blanks(source, i);
      if (i >= source.size() || source[i] != ',') break;
      ++i;
    }
  }
  return flags;
}

bool refuses_without_variable(std::string_view source, std::string_view variable) {
  for (std::size_t at = source.find(variable); at != std::string_view::npos;
       at = source.find(variable, at + 1)) {
    std::size_t from = at;  // the three lines before the mention: the statement that carries it
    for (int lines = 0; lines < 4 && from > 0; --from)
      if (source[from - 1] == '\n') ++lines;
    std::string_view before = source.substr(from, at - from);
    if (before.find("assert ") != std::string_view::npos || before.find("raise ") != std::string_view::npos)
      return true;
  }
  return false;
}

}  // namespace parlint
