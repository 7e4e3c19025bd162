#include "lint/engine/fix/suppression_edit.h"

#include <algorithm>
#include <map>
#include <set>

#include "lint/engine/suppressions.h"

namespace parlint {
namespace {

std::vector<std::string_view> lines_without_ends(std::string_view text) {
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

std::string_view trim_end(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line;
}

bool ends_with_backslash(std::string_view line) {
  line = trim_end(line);
  return !line.empty() && line.back() == '\\';
}

// The words a heredoc operator on this line waits for (`<<EOF`, `<<-'END'`), in order; `<<<` is not one.
std::vector<std::pair<std::string, bool>> heredoc_words(std::string_view l, std::size_t from) {
  std::vector<std::pair<std::string, bool>> out;  // word, strip leading tabs (<<-)
  for (std::size_t at = l.find("<<", from); at != std::string_view::npos; at = l.find("<<", at + 2)) {
    std::size_t p = at + 2;
    if (p < l.size() && l[p] == '<') {
      at = p;
      continue;
    }
    bool dash = p < l.size() && l[p] == '-';
    if (dash) ++p;
    while (p < l.size() && (l[p] == ' ' || l[p] == '\t')) ++p;
    std::string word;
    while (p < l.size() && l[p] != ' ' && l[p] != '\t' && l[p] != ';' && l[p] != '|' && l[p] != '&' &&
           l[p] != '>' && l[p] != '<' && l[p] != ')') {
      if (l[p] != '\'' && l[p] != '"' && l[p] != '\\') word += l[p];
      ++p;
    }
    if (!word.empty()) out.push_back({word, dash});
  }
  return out;
}

// For shell: whether each line starts inside a single- or double-quoted string (a small lexer: quotes,
// backslash escapes, comments and heredoc bodies, whose quotes are text; enough to keep a comment out of
// a multi-line string).
std::vector<bool> shell_line_starts_in_string(const std::vector<std::string_view>& lines) {
  std::vector<bool> in(lines.size() + 1, false);
  char quote = 0;
  std::vector<std::pair<std::string, bool>> heredocs;  // pending bodies after this line
  for (std::size_t i = 0; i < lines.size(); ++i) {
    in[i] = quote != 0;
    std::string_view l = lines[i];
    if (quote == 0 && !heredocs.empty()) {  // a heredoc body line: text until the word
      std::string_view t = l;
      if (heredocs.front().second)
        while (!t.empty() && t.front() == '\t') t.remove_prefix(1);
      if (t == heredocs.front().first) heredocs.erase(heredocs.begin());
      continue;
    }
    std::size_t code_end = l.size();
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
        code_end = j;
        break;  // a comment runs to the end of the line
      }
    }
    if (quote == 0)
      for (auto& h : heredoc_words(l.substr(0, code_end), 0)) heredocs.push_back(std::move(h));
  }
  in[lines.size()] = quote != 0;
  return in;
}

// For Python: whether each line starts inside a triple-quoted string.
std::vector<bool> python_line_starts_in_string(const std::vector<std::string_view>& lines) {
  std::vector<bool> in(lines.size() + 1, false);
  std::string triple;  // the open triple quote, or empty
  for (std::size_t i = 0; i < lines.size(); ++i) {
    in[i] = !triple.empty();
    std::string_view l = lines[i];
    char single = 0;  // a one-line string
    for (std::size_t j = 0; j < l.size(); ++j) {
      if (!triple.empty()) {
        if (l[j] == '\\')
          ++j;
        else if (l.substr(j, 3) == triple) {
          j += 2;
          triple.clear();
        }
      } else if (single) {
        if (l[j] == '\\')
          ++j;
        else if (l[j] == single)
          single = 0;
      } else if (l[j] == '#') {
        break;
      } else if (l[j] == '"' || l[j] == '\'') {
        if (l.substr(j, 3) == std::string(3, l[j])) {
          triple = std::string(3, l[j]);
          j += 2;
        } else {
          single = l[j];
        }
      }
    }
  }
  in[lines.size()] = !triple.empty();
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
    l = trim_end(l);
    while (!l.empty() &&
           (l.back() == '-' || l.back() == '+' || std::isdigit(static_cast<unsigned char>(l.back()))))
      l.remove_suffix(1);
    if (!l.empty() && (l.back() == '|' || l.back() == '>')) return k;
    return -1;
  }
  return -1;
}

// A file's lines and what its syntax says about each.
struct Lines {
  std::vector<std::string_view> lines;
  FileKind kind;
  std::vector<bool> in_string;  // line i starts inside a string (shell strings, Python triple quotes)
  std::string eol = "\n";       // what new lines end with: the file's own line ending

  Lines(std::string_view text, FileKind k) : lines(lines_without_ends(text)), kind(k) {
    if (!text.empty() && text.back() == '\n') lines.pop_back();  // the end of the last line, not a line
    if (auto nl = text.find('\n'); nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r')
      eol = "\r\n";
    if (kind == FileKind::kShell)
      in_string = shell_line_starts_in_string(lines);
    else if (kind == FileKind::kPython)
      in_string = python_line_starts_in_string(lines);
    else
      in_string.assign(lines.size() + 1, false);
  }
  int size() const { return static_cast<int>(lines.size()); }
};

// The statement a line belongs to, and whether a comment may end the line itself.
struct Extent {
  int first = 0, last = 0;
  bool multi_line = false;   // part of a statement over several lines
  bool trailing_ok = false;  // a `#` comment at the end of the line is a comment, and changes nothing
};

Extent extent_of(const Lines& f, int line0) {
  const auto& lines = f.lines;
  int n = f.size();
  Extent e{line0, line0, false, true};
  if (f.kind == FileKind::kShell || f.kind == FileKind::kPython) {
    // Backslash continuations and multi-line strings, until neither reaches further.
    for (bool moved = true; moved;) {
      moved = false;
      while (e.first > 0 && (ends_with_backslash(lines[e.first - 1]) || f.in_string[e.first]))
        --e.first, moved = true;
      while (e.last + 1 < n && (ends_with_backslash(lines[e.last]) || f.in_string[e.last + 1]))
        ++e.last, moved = true;
    }
    e.multi_line = e.first != e.last;
    e.trailing_ok = !ends_with_backslash(lines[line0]) && !f.in_string[line0 + 1];
  }
  if (f.kind == FileKind::kYaml) {
    int owner = yaml_block_scalar_owner(lines, line0);
    if (owner >= 0) {
      e.first = owner;
      std::size_t owner_indent = indent_of(lines[owner]);
      for (int k = line0 + 1; k < n; ++k) {
        if (blank(lines[k])) continue;
        if (indent_of(lines[k]) <= owner_indent) break;
        e.last = k;
      }
      e.multi_line = true;
      e.trailing_ok = false;
    }
  }
  return e;
}

std::string join_codes(const std::vector<std::string>& codes) {
  std::string out;
  for (const auto& c : codes) out += (out.empty() ? "" : ", ") + c;
  return out;
}

std::string with_reason(std::string comment, std::string_view reason) {
  if (!reason.empty()) comment += " -- " + std::string(reason);
  return comment;
}

std::vector<LineEdit> range_pair(const Lines& f, int first, int last, const std::string& disable,
                                 const std::string& enable) {
  const auto& lines = f.lines;
  std::string indent(lines[first].substr(0, indent_of(lines[first])));
  int after = last + 1;
  std::vector<LineEdit> edits;
  edits.push_back({first, 0, indent + disable + f.eol});
  if (after < static_cast<int>(lines.size()))
    edits.push_back({after, 0, indent + enable + f.eol});
  else
    edits.push_back({last, lines[last].size(), f.eol + indent + enable});
  return edits;
}

std::string where_text(int first0, int last0) {
  return first0 == last0 ? "line " + std::to_string(first0 + 1)
                         : "lines " + std::to_string(first0 + 1) + "-" + std::to_string(last0 + 1);
}

}  // namespace

std::vector<std::vector<LineEdit>> suppression_candidates(std::string_view text, FileKind kind, int line0,
                                                          const std::string& code) {
  Lines f(text, kind);
  std::vector<std::vector<LineEdit>> out;
  if (line0 < 0 || line0 >= f.size()) return out;
  std::string_view line = f.lines[line0];

  // An existing `ignore[...]` on the line takes one more code.
  auto at = line.find("parlint: ignore[");
  if (at != std::string_view::npos) {
    auto close = line.find(']', at);
    if (close != std::string_view::npos) out.push_back({{line0, close, ", " + code}});
  }
  Extent e = extent_of(f, line0);
  if (!e.multi_line) out.push_back({{line0, trim_end(line).size(), "  # parlint: ignore[" + code + "]"}});
  out.push_back(range_pair(f, e.first, e.last, "# parlint: disable=" + code, "# parlint: enable=" + code));
  return out;
}

std::vector<SuppressionGroup> plan_suppressions(std::string_view text, FileKind kind,
                                                const std::vector<SuppressionTarget>& targets,
                                                std::string_view reason, bool above_first) {
  Lines f(text, kind);
  // Each target goes to one place: an existing comment (by its line), the end of its own line, or its
  // statement (by first line); the codes of one place are grouped.
  std::map<std::pair<int, int>, SuppressionGroup> places;  // (kind order, line) -> group
  std::map<int, Extent> statements;                        // first line -> extent
  for (const auto& t : targets) {
    if (t.line0 < 0 || t.line0 >= f.size()) continue;
    std::string_view line = f.lines[t.line0];
    auto own = find_suppression_comment(line);
    // A comment alone above the line (nothing but comments between) that ignores codes covers it.
    std::optional<std::pair<int, SuppressionComment>> above;
    if (!blank_or_comment_line(line))
      for (int k = t.line0 - 1; k >= 0 && blank_or_comment_line(f.lines[k]); --k)
        if (auto c = find_suppression_comment(f.lines[k]); c && c->own_line && c->kind == "ignore") {
          above = {k, *c};
          break;
        }
    Extent e = extent_of(f, t.line0);
    SuppressionGroup* g = nullptr;
    if (own && own->kind == "ignore") {
      g = &places[{0, t.line0}];
      g->how = SuppressionGroup::How::kMerged;
    } else if (above) {
      g = &places[{0, above->first}];
      g->how = SuppressionGroup::How::kMerged;
    } else if (e.trailing_ok && !own &&
               !(above_first && e.first == t.line0 && !blank_or_comment_line(line))) {
      g = &places[{1, t.line0}];
      g->how = SuppressionGroup::How::kTrailing;
    } else {
      // One parlint comment per line is all the grammar reads: a line that has another kind goes to
      // its statement, as does a line a comment cannot end.
      g = &places[{2, e.first}];
      g->how = SuppressionGroup::How::kAbove;
      statements[e.first] = e;
    }
    g->targets.push_back(t);
    if (std::find(g->codes.begin(), g->codes.end(), t.code) == g->codes.end()) g->codes.push_back(t.code);
  }
  std::vector<SuppressionGroup> out;
  for (auto& [key, g] : places) {
    std::sort(g.codes.begin(), g.codes.end());
    int at = key.second;
    std::string codes = join_codes(g.codes);
    if (g.how == SuppressionGroup::How::kMerged) {
      auto c = find_suppression_comment(f.lines[at]);
      // Only the codes it does not hold yet (a finding of a code it holds is covered by another comment).
      std::vector<std::string> have;
      std::string list = c->list;
      for (std::size_t p = 0; p <= list.size();) {
        std::size_t q = list.find(',', p);
        if (q == std::string::npos) q = list.size();
        std::string item = list.substr(p, q - p);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) have.push_back(item);
        p = q + 1;
      }
      std::vector<std::string> add;
      for (const auto& code : g.codes)
        if (std::find(have.begin(), have.end(), code) == have.end()) add.push_back(code);
      if (add.empty()) continue;
      std::string sep = have.empty() ? "" : c->bracket ? ", " : ",";
      std::string added;
      for (const auto& code : add)
        added += (added.empty() ? sep : std::string(c->bracket ? ", " : ",")) + code;
      g.edits.push_back({at, c->list_end, added});
      g.codes = add;
      g.where = where_text(at, at);
    } else if (g.how == SuppressionGroup::How::kTrailing) {
      g.edits.push_back(
          {at, trim_end(f.lines[at]).size(), with_reason("  # parlint: ignore[" + codes + "]", reason)});
      g.where = where_text(at, at);
    } else {
      const Extent& e = statements[at];
      bool first_only = std::all_of(g.targets.begin(), g.targets.end(),
                                    [&](const SuppressionTarget& t) { return t.line0 == e.first; });
      // Alone above the statement it covers the statement's first line; the other lines need a range.
      if (first_only && !blank_or_comment_line(f.lines[e.first])) {
        std::string indent(f.lines[e.first].substr(0, indent_of(f.lines[e.first])));
        g.edits.push_back(
            {e.first, 0, indent + with_reason("# parlint: ignore[" + codes + "]", reason) + f.eol});
      } else {
        g.how = SuppressionGroup::How::kRange;
        g.edits = range_pair(f, e.first, e.last, with_reason("# parlint: disable[" + codes + "]", reason),
                             "# parlint: enable[" + codes + "]");
      }
      g.where = where_text(e.first, e.last);
    }
    out.push_back(std::move(g));
  }
  return out;
}

int line_after_insertions(int line0, const std::vector<LineEdit>& edits) {
  int shift = 0;
  for (const auto& e : edits)
    if (e.line < line0 || (e.line == line0 && e.byte == 0))
      shift += static_cast<int>(std::count(e.text.begin(), e.text.end(), '\n'));
  return line0 + shift;
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

}  // namespace parlint
