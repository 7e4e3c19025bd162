#include "lint/lsp/suppression_edit.h"

#include <algorithm>

namespace parlint::lsp {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      std::string_view l = text.substr(start, i - start);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      lines.push_back(l);
      start = i + 1;
    }
  }
  return lines;
}

std::size_t indent_of(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

bool blank(std::string_view line) {
  return indent_of(line) == line.size();
}

bool ends_with_backslash(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return !line.empty() && line.back() == '\\';
}

// For shell: whether each line starts inside a single- or double-quoted string (a small lexer: quotes,
// backslash escapes and comments; enough to keep a comment out of a multi-line string).
std::vector<bool> shell_line_starts_in_string(const std::vector<std::string_view>& lines) {
  std::vector<bool> in(lines.size() + 1, false);
  char quote = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    in[i] = quote != 0;
    std::string_view l = lines[i];
    for (std::size_t j = 0; j < l.size(); ++j) {
      char c = l[j];
      if (quote == '\'') {
        if (c == '\'') quote = 0;
      } else if (quote == '"') {
        if (c == '\\')
          ++j;
        else if (c == '"')
          quote = 0;
      } else if (c == '\\') {
        ++j;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (j == 0 || l[j - 1] == ' ' || l[j - 1] == '\t')) {
        break;  // a comment runs to the end of the line
      }
    }
  }
  in[lines.size()] = quote != 0;
  return in;
}

// The YAML key line whose block scalar (`key: |` or `key: >-`) contains line i, or -1.
int yaml_block_scalar_owner(const std::vector<std::string_view>& lines, int i) {
  std::size_t indent = indent_of(lines[i]);
  for (int k = i - 1; k >= 0; --k) {
    if (blank(lines[k])) continue;
    std::size_t ki = indent_of(lines[k]);
    if (ki >= indent) continue;
    std::string_view l = lines[k];
    auto hash = l.find(" #");
    if (hash != std::string_view::npos) l = l.substr(0, hash);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    while (!l.empty() &&
           (l.back() == '-' || l.back() == '+' || std::isdigit(static_cast<unsigned char>(l.back()))))
      l.remove_suffix(1);
    if (!l.empty() && (l.back() == '|' || l.back() == '>')) return k;
    return -1;
  }
  return -1;
}

std::vector<LineEdit> range_pair(const std::vector<std::string_view>& lines, int first, int last,
                                 const std::string& code) {
  std::string indent(lines[first].substr(0, indent_of(lines[first])));
  int after = last + 1;
  std::vector<LineEdit> edits;
  edits.push_back({first, 0, indent + "# parlint: disable=" + code + "\n"});
  if (after < static_cast<int>(lines.size()))
    edits.push_back({after, 0, indent + "# parlint: enable=" + code + "\n"});
  else
    edits.push_back({last, lines[last].size(), "\n" + indent + "# parlint: enable=" + code});
  return edits;
}

}  // namespace

std::vector<std::vector<LineEdit>> suppression_candidates(std::string_view text, FileKind kind, int line0,
                                                          const std::string& code) {
  auto lines = split_lines(text);
  std::vector<std::vector<LineEdit>> out;
  if (line0 < 0 || line0 >= static_cast<int>(lines.size())) return out;
  std::string_view line = lines[line0];

  // An existing `ignore[...]` on the line takes one more code.
  auto at = line.find("parlint: ignore[");
  if (at != std::string_view::npos) {
    auto close = line.find(']', at);
    if (close != std::string_view::npos) out.push_back({{line0, close, ", " + code}});
  }

  int first = line0, last = line0;
  bool statement = false;  // the line is part of a larger statement: end-of-line comments are unsafe
  if (kind == FileKind::kShell || kind == FileKind::kPython) {
    while (first > 0 && ends_with_backslash(lines[first - 1])) --first;
    while (last + 1 < static_cast<int>(lines.size()) && ends_with_backslash(lines[last])) ++last;
    statement = first != last;
  }
  if (kind == FileKind::kShell) {
    auto in_string = shell_line_starts_in_string(lines);
    while (first > 0 && in_string[first]) --first;
    while (last + 1 < static_cast<int>(lines.size()) && in_string[last + 1]) ++last;
    while (last + 1 < static_cast<int>(lines.size()) && ends_with_backslash(lines[last])) ++last;
    statement = statement || first != last || in_string[line0] || in_string[line0 + 1];
  }
  if (kind == FileKind::kYaml) {
    int owner = yaml_block_scalar_owner(lines, line0);
    if (owner >= 0) {
      first = owner;
      std::size_t owner_indent = indent_of(lines[owner]);
      last = line0;
      for (int k = line0 + 1; k < static_cast<int>(lines.size()); ++k) {
        if (blank(lines[k])) continue;
        if (indent_of(lines[k]) <= owner_indent) break;
        last = k;
      }
      statement = true;
    }
  }
  if (!statement) {
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) trimmed.remove_suffix(1);
    out.push_back({{line0, trimmed.size(), "  # parlint: ignore[" + code + "]"}});
  }
  out.push_back(range_pair(lines, first, last, code));
  return out;
}

std::string apply_line_edits(std::string_view text, const std::vector<LineEdit>& edits) {
  // Byte offsets of each line start.
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  std::vector<std::pair<std::size_t, const LineEdit*>> at;
  for (const auto& e : edits) {
    std::size_t base = e.line < static_cast<int>(starts.size()) ? starts[e.line] : text.size();
    at.push_back({std::min(base + e.byte, text.size()), &e});
  }
  std::stable_sort(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out(text);
  for (const auto& [offset, e] : at) out.insert(offset, e->text);
  return out;
}

}  // namespace parlint::lsp
