#include "lint/reporters/text_wrap.h"

#include <algorithm>

namespace parlint {
namespace {

// The end of the word that starts at `at`: the next space, or for a shell command the next space outside
// quotes (a break inside quotes would change the argument).
std::size_t word_end(std::string_view line, std::size_t at, bool shell) {
  char quote = 0;
  for (std::size_t i = at; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == ' ') {
      return i;
    } else if (shell && c == '\\') {
      ++i;
    } else if (shell && (c == '\'' || c == '"')) {
      quote = c;
    }
  }
  return line.size();
}

// `line` broken at spaces; every broken line ends in `tail`.
std::string wrap(std::string_view line, std::size_t hang, std::size_t width, std::string_view tail,
                 bool shell) {
  std::string out;
  if (width == 0 || text_columns(line) <= width) {
    out.append(line);
    out += '\n';
    return out;
  }
  const std::size_t indent =
      line.find_first_not_of(' ') == std::string_view::npos ? 0 : line.find_first_not_of(' ');
  const std::size_t reserve = text_columns(tail);
  out.append(line.substr(0, indent));
  std::size_t column = indent;  // columns on the current output line
  bool first_word = true;       // nothing but indentation on the current output line yet
  std::size_t at = indent;
  while (at < line.size()) {
    const std::size_t end = word_end(line, at, shell);
    std::string_view word = line.substr(at, end - at);
    std::size_t spaces_end = line.find_first_not_of(' ', end);
    if (spaces_end == std::string_view::npos) spaces_end = line.size();
    const std::size_t spaces = spaces_end - end;
    const bool last = spaces_end == line.size();
    const std::size_t need = text_columns(word) + (last ? 0 : reserve);
    if (!first_word && column + need > width) {
      // Trailing spaces of the previous word go; the word starts the next line.
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out.append(tail);
      out += '\n';
      // A word too long for the hanging indent (a path, a recipe name) starts further left instead.
      const std::size_t start = hang + need > width ? std::min(hang, indent + 4) : hang;
      out.append(std::string(start, ' '));
      column = start;
    }
    out.append(word);
    column += text_columns(word);
    first_word = false;
    if (!last) {
      // The spaces between words as written (a table's padding), at most what the line has left.
      const std::size_t keep = column + spaces < width ? spaces : 1;
      out.append(std::string(keep, ' '));
      column += keep;
    }
    at = spaces_end;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
  return out;
}

}  // namespace

std::size_t text_columns(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string wrap_line(std::string_view line, std::size_t hang, std::size_t width) {
  return wrap(line, hang, width, "", false);
}

std::string wrap_command(std::string_view line, std::size_t hang, std::size_t width) {
  return wrap(line, hang, width, " \\", true);
}

}  // namespace parlint
