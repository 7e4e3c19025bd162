#include "parsers/shell/shell_grammar_workarounds.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace parlint {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `cmd \` as the last line: bash joins it with the (empty) end of file and runs `cmd`.
void trailing_continuation(std::string& t) {
  std::size_t end = t.size();
  while (end > 0 && (t[end - 1] == '\n' || t[end - 1] == '\r' || t[end - 1] == ' ' || t[end - 1] == '\t')) {
    // Only the newline right after the backslash may follow it for this to be a continuation.
    --end;
  }
  if (end == 0 || t[end - 1] != '\\') return;
  std::size_t after = end;  // what follows the backslash: one newline (optionally \r\n), then blanks
  if (after < t.size() && t[after] == '\r') ++after;
  if (after >= t.size() || t[after] != '\n') {
    if (after == t.size()) t[end - 1] = ' ';  // a backslash as the very last byte
    return;
  }
  std::size_t backslashes = 0;
  for (std::size_t i = end; i > 0 && t[i - 1] == '\\'; --i) ++backslashes;
  if (backslashes % 2 == 1) t[end - 1] = ' ';
}

// Inside (( )) and $(( )): `10#$i` -> `   $i` (the grammar reads a base only before digits).
void arithmetic_bases(std::string& t) {
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] != '(' || t[i + 1] != '(') continue;
    int depth = 0;
    std::size_t j = i;
    for (; j < t.size(); ++j) {
      if (t[j] == '(') ++depth;
      if (t[j] == ')' && --depth == 0) break;
      if (!std::isdigit(static_cast<unsigned char>(t[j]))) continue;
      if (is_name_char(t[j - 1]) || t[j - 1] == '$' || t[j - 1] == '#') continue;
      std::size_t k = j;
      while (k < t.size() && std::isdigit(static_cast<unsigned char>(t[k]))) ++k;
      if (k + 1 < t.size() && t[k] == '#' && t[k + 1] == '$')
        for (std::size_t m = j; m <= k; ++m) t[m] = ' ';
      j = k - 1;
    }
    i = j;  // an unclosed (( runs to the end: nothing after it can close either (linear time)
  }
}

// One `${NAME...}` at i: rewrites its substring offset and length; returns where its scan stopped.
std::size_t substring_expansion(std::string& t, std::size_t i) {
  std::size_t j = i + 2;
  if (j < t.size() && is_name_start(t[j])) {
    while (j < t.size() && is_name_char(t[j])) ++j;
  } else {
    while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
  }
  if (j == i + 2) return j;
  if (j < t.size() && t[j] == '[') {
    while (j < t.size() && t[j] != ']' && t[j] != '}' && t[j] != '\n') ++j;
    if (j >= t.size() || t[j] != ']') return j;
    ++j;
  }
  if (j >= t.size() || t[j] != ':') return j;
  // `:-`, `:=`, `:?`, `:+` are default forms, not substrings.
  for (int part = 0; part < 2 && j < t.size() && t[j] == ':'; ++part) {
    ++j;
    if (part == 0 && j < t.size() && (t[j] == '-' || t[j] == '=' || t[j] == '?' || t[j] == '+')) break;
    if (j + 1 < t.size() && t[j] == '$' && is_name_start(t[j + 1])) t[j] = ' ';
    if (j + 1 < t.size() && t[j] == '$' && t[j + 1] == '{') {  // ${A:${#K}+1}: the inner one as a name
      std::size_t close = j + 2;
      if (close < t.size() && t[close] == '#') ++close;
      while (close < t.size() && is_name_char(t[close])) ++close;  // a name: bounded, never the whole line
      if (close < t.size() && t[close] == '}')
        for (std::size_t k = j; k <= close; ++k) t[k] = '_';
    }
    while (j < t.size() && t[j] != ':' && t[j] != '}' && t[j] != '\n') ++j;
  }
  return j;
}

// `${A:$K+1}`, `${A:1:$N}`: the grammar reads a substring offset or length that starts with `$` only as
// `$((...))`; without the `$` it is the same arithmetic to bash. What one expansion scanned is not
// scanned again, so the pass stays linear on any input. find() jumps from one `${` to the next (memchr):
// the language server prepares a buffer on every edit.
void substring_expansions(std::string& t) {
  std::size_t i = t.find("${");
  while (i != std::string::npos && i + 2 < t.size()) i = t.find("${", substring_expansion(t, i));
}

// `${x%%[*}`, `${e%%]*}`: an unbalanced bracket in a removal or replacement pattern is a literal to bash
// but opens (or closes) a bracket expression for the grammar.
void pattern_brackets(std::string& t) {
  for (std::size_t i = t.find("${"); i != std::string::npos && i + 2 < t.size(); i = t.find("${", i + 1)) {
    if (!is_name_start(t[i + 2])) continue;
    std::size_t j = i + 2;
    while (j < t.size() && is_name_char(t[j])) ++j;
    if (j >= t.size() || (t[j] != '#' && t[j] != '%' && t[j] != '/')) continue;
    std::size_t end = j;
    int depth = 1, open = 0, close = 0;
    for (; end < t.size() && t[end] != '\n'; ++end) {
      if (t[end] == '{') ++depth;
      if (t[end] == '}' && --depth == 0) break;
      if (t[end] == '[') ++open;
      if (t[end] == ']') ++close;
    }
    if (end >= t.size() || t[end] != '}') {
      i = end;  // unclosed on this line: what was scanned is not scanned again
      continue;
    }
    if (open != close)
      for (std::size_t k = j; k < end; ++k)
        if (t[k] == '[' || t[k] == ']') t[k] = '_';
    i = end;
  }
}

struct Line {
  std::size_t begin, end;  // end excludes the newline
};

std::vector<Line> split_lines(const std::string& t) {
  std::vector<Line> lines;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == '\n') {
      lines.push_back({b, i});
      b = i + 1;
    }
  }
  return lines;
}

struct PendingHeredoc {
  std::string delimiter;
  bool strip_tabs = false;
};

// The heredocs a line opens, in order (`<<EOF`, `<<-'EOF'`, `<< "END"`); not `<<<`.
std::vector<PendingHeredoc> heredocs_opened(std::string_view line) {
  std::vector<PendingHeredoc> out;
  for (std::size_t i = 0; i + 2 < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) break;  // a comment
    if (line[i] != '<' || line[i + 1] != '<') continue;
    std::size_t j = i + 2;
    if (j < line.size() && line[j] == '<') {
      i = j;
      continue;
    }
    PendingHeredoc h;
    if (j < line.size() && line[j] == '-') {
      h.strip_tabs = true;
      ++j;
    }
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    char quote = 0;
    if (j < line.size() && (line[j] == '\'' || line[j] == '"')) quote = line[j++];
    if (j < line.size() && line[j] == '\\') ++j;
    std::size_t start = j;
    while (j < line.size() && is_name_char(line[j])) ++j;
    if (j == start || !is_name_start(line[start])) continue;
    if (quote && (j >= line.size() || line[j] != quote)) continue;
    h.delimiter = std::string(line.substr(start, j - start));
    out.push_back(std::move(h));
    i = j;
  }
  return out;
}

// tree-sitter-bash ends a heredoc body at a line that merely starts with the delimiter.
void heredoc_prefix_lines(std::string& t) {
  std::vector<Line> lines = split_lines(t);
  for (std::size_t l = 0; l < lines.size(); ++l) {
    std::string_view line(t.data() + lines[l].begin, lines[l].end - lines[l].begin);
    std::vector<PendingHeredoc> pending = heredocs_opened(line);
    std::size_t next = l + 1;
    for (const auto& h : pending) {
      std::vector<std::size_t> prefixed;
      std::size_t k = next;
      bool closed = false;
      for (; k < lines.size(); ++k) {
        std::string_view body(t.data() + lines[k].begin, lines[k].end - lines[k].begin);
        std::size_t lead = 0;
        if (h.strip_tabs)
          while (lead < body.size() && body[lead] == '\t') ++lead;
        std::string_view s = body.substr(lead);
        if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
        if (s == h.delimiter) {
          closed = true;
          break;
        }
        if (s.starts_with(h.delimiter)) prefixed.push_back(lines[k].begin + lead);
      }
      if (!closed) return;  // bash reads the rest of the file as its body: nothing after it is code
      for (std::size_t at : prefixed) t[at] = t[at] == '_' ? 'x' : '_';
      next = k + 1;
    }
    if (next > l + 1) l = next - 1;
  }
}

// `;&` and `;;&` (fall-through case terminators) -> `;;`.
void case_terminators(std::string& t) {
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] != ';') continue;
    if (t[i + 1] == ';' && i + 2 < t.size() && t[i + 2] == '&') {
      t[i + 2] = ' ';
      i += 2;
    } else if (t[i + 1] == '&' && (i == 0 || t[i - 1] != '\\')) {
      t[i + 1] = ';';
      ++i;
    } else if (t[i + 1] == ';') {
      ++i;
    }
  }
}

// Jinja templates of launch scripts (NeMo-Run's `slurm.sh.j2`): `{{ expr }}` becomes a word of `_` and a
// `{% ... %}` tag blanks, so the shell around them is read; the placeholders stay in the values.
void template_placeholders(std::string& t) {
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] != '{' || (t[i + 1] != '{' && t[i + 1] != '%')) continue;
    if (i > 0 && t[i - 1] == '$') continue;  // ${{ ... }} is not Jinja
    char kind = t[i + 1];
    std::size_t newline = std::min(t.find('\n', i), t.size());
    std::size_t close = std::string_view(t).substr(0, newline).find(kind == '{' ? "}}" : "%}", i + 2);
    if (close == std::string::npos) {
      i = newline;  // nothing on this line closes it (keeps the scan linear)
      continue;
    }
    if (kind == '{') {
      for (std::size_t k = i; k < close + 2; ++k) t[k] = '_';
    } else {
      for (std::size_t k = i; k < close + 2; ++k) t[k] = ' ';
    }
    i = close + 1;
  }
}

// `cmd <<< \` + newline + word: the grammar does not continue a here-string's line.
void herestring_continuations(std::string& t) {
  for (std::size_t i = t.find("<<<"); i != std::string::npos; i = t.find("<<<", i + 3)) {
    std::size_t k = i + 3;
    while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
    if (k + 1 < t.size() && t[k] == '\\' && t[k + 1] == '\n') t[k] = t[k + 1] = ' ';
  }
}

// Text known only at run time is kept as a placeholder byte in strings run as shell; to the grammar it is
// a letter, so `IMAGE=$<placeholder>` is an expansion like any other.
void unknown_placeholders(std::string& t) {
  for (char& c : t)
    if (c == '\x01') c = '_';
}

}  // namespace

bool needs_bash_grammar_workarounds(std::string_view text) {
  auto has = [&](std::string_view what) { return text.find(what) != std::string_view::npos; };
  std::size_t end = text.find_last_not_of(" \t\r\n");
  return has("{{") || has("{%") || has("#$") || has("${") || has("<<") || has(";&") || has("\x01") ||
         (end != std::string_view::npos && text[end] == '\\');
}

std::string prepare_for_bash_grammar(std::string_view text) {
  std::string t(text);
  auto has = [&](std::string_view what) { return text.find(what) != std::string_view::npos; };
  if (has("{{") || has("{%")) template_placeholders(t);
  trailing_continuation(t);
  if (has("#$")) arithmetic_bases(t);
  if (has("${")) {
    substring_expansions(t);
    pattern_brackets(t);
  }
  if (has("<<")) {
    heredoc_prefix_lines(t);
    herestring_continuations(t);
  }
  if (has(";&")) case_terminators(t);
  if (has("\x01")) unknown_placeholders(t);
  return t;
}

}  // namespace parlint
