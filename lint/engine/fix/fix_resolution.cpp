#include "lint/engine/fix/fix_resolution.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>

namespace parlint {
namespace {

struct ByteRange {
  std::size_t begin = 0, end = 0;
};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::optional<ByteRange> bytes_of(const SourceText& source, const Location& at) {
  if (!at.in_file()) return std::nullopt;
  std::size_t b = source.offset(at.range.start);
  std::size_t e = at.range.end.line > 0 ? source.offset(at.range.end) : b;
  if (e < b || e > source.text().size()) return std::nullopt;
  return ByteRange{b, e};
}

// The last occurrence of `token` in [range) that stands alone as a value: no word character, '-' or '.'
// on either side (8 is not in 1.8, 8.5 or -8; `no` is not the one in --no-overlap-p2p-communication).
std::optional<ByteRange> last_token(std::string_view text, ByteRange range, std::string_view token) {
  if (token.empty() || range.end - range.begin < token.size()) return std::nullopt;
  std::string_view window = text.substr(range.begin, range.end - range.begin);
  for (std::size_t pos = window.rfind(token); pos != std::string_view::npos;
       pos = pos == 0 ? std::string_view::npos : window.rfind(token, pos - 1)) {
    std::size_t b = range.begin + pos, e = b + token.size();
    // A string value may carry its own '-' or '.' inside (a2a+p2p, expandable_segments:True) but not
    // continue past the token.
    auto bad = [&](char c) { return word_char(c) || c == '-' || c == '.'; };
    bool alone_before = b == 0 || !bad(text[b - 1]);
    bool alone_after = e >= text.size() || !bad(text[e]);
    if (alone_before && alone_after) return ByteRange{b, e};
    if (pos == 0) break;
  }
  return std::nullopt;
}

// How booleans are spelled, by style: a found spelling of one value gives the other's in the same style.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kBoolSpellings{{
    {"True", "False"},
    {"true", "false"},
    {"TRUE", "FALSE"},
    {"yes", "no"},
    {"on", "off"},
    {"1", "0"},
}};

bool plain_string(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return word_char(c) || c == '-' || c == '+' || c == '.' || c == '/' || c == ':';
  });
}

struct Found {
  ByteRange range;
  std::string replacement;
};

// How "unset" is written where a value can be null: None in Python, null in YAML and overrides.
std::string_view null_spelling(Origin o) {
  switch (o) {
    case Origin::kPythonAssign:
    case Origin::kPythonKwarg:
      return "None";
    case Origin::kYaml:
    case Origin::kOverride:
      return "null";
    default:
      return {};
  }
}

// Where `old` is written inside `range`, and `value` spelled like it (null as `null_word`).
std::optional<Found> find_value(std::string_view text, ByteRange range, const Value& old, const Value& value,
                                std::string_view null_word) {
  if (value.kind() == Value::Kind::kNull) {
    if (null_word.empty()) return std::nullopt;
    std::optional<ByteRange> r;
    if (auto o = old.as_int()) r = last_token(text, range, std::to_string(*o));
    if (old.kind() == Value::Kind::kString && !old.text().empty()) r = last_token(text, range, old.text());
    if (r) return Found{*r, std::string(null_word)};
    return std::nullopt;
  }
  if (auto o = old.as_int()) {
    auto n = value.as_int();
    if (!n) return std::nullopt;
    if (auto r = last_token(text, range, std::to_string(*o))) return Found{*r, std::to_string(*n)};
    return std::nullopt;
  }
  if (auto o = old.as_bool()) {
    auto n = value.as_bool();
    if (!n) return std::nullopt;
    std::optional<Found> best;
    for (const auto& [t, f] : kBoolSpellings) {
      std::string_view was = *o ? t : f, becomes = *n ? t : f;
      if (auto r = last_token(text, range, was))
        if (!best || r->begin > best->range.begin) best = Found{*r, std::string(becomes)};
    }
    return best;
  }
  if (old.kind() == Value::Kind::kString) {
    if (value.kind() != Value::Kind::kString || !plain_string(value.text())) return std::nullopt;
    if (auto r = last_token(text, range, old.text())) return Found{*r, value.text()};
  }
  return std::nullopt;
}

// A presence flag (`--sequence-parallel`) removed with the space around it; a line that held only the flag
// (and a continuation backslash) goes as a whole, and a last continued line takes the backslash before it.
std::optional<ByteRange> flag_removal(std::string_view text, ByteRange flag) {
  std::size_t b = flag.begin, e = flag.end;
  if (b > 0 && e < text.size() && (text[b - 1] == '"' || text[b - 1] == '\'') && text[e] == text[b - 1]) {
    --b;
    ++e;
  }
  std::size_t line_start = b == 0 ? std::string_view::npos : text.rfind('\n', b - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  std::size_t line_end = text.find('\n', e);
  if (line_end == std::string_view::npos) line_end = text.size();
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r') return false;
    return true;
  };
  std::size_t after = e;
  while (after < line_end && (text[after] == ' ' || text[after] == '\t')) ++after;
  bool only_on_line = blank(line_start, b);
  // A comment after a flag alone on its line is about the flag: it goes with it.
  if (only_on_line && after < line_end && text[after] == '#' && after > e)
    return ByteRange{line_start, std::min(line_end + 1, text.size())};
  if (only_on_line && after < line_end && text[after] == '\\' && blank(after + 1, line_end))
    return ByteRange{line_start, std::min(line_end + 1, text.size())};
  if (only_on_line && blank(after, line_end)) {
    // The last line of a continued command: take the previous line's backslash with it.
    if (line_start >= 2) {
      std::size_t prev_end = line_start - 1;  // the '\n'
      std::size_t k = prev_end;
      while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t' || text[k - 1] == '\r')) --k;
      if (k > 0 && text[k - 1] == '\\') {
        std::size_t s = k - 1;
        while (s > 0 && (text[s - 1] == ' ' || text[s - 1] == '\t')) --s;
        return ByteRange{s, line_end};
      }
    }
    return ByteRange{line_start, std::min(line_end + 1, text.size())};
  }
  if (after > e) return ByteRange{b, after};
  std::size_t before = b;
  while (before > line_start && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
  return ByteRange{before, e};
}

TextEdit edit_at(const SourceText& source, const std::string& path, ByteRange r, std::string text) {
  return TextEdit{Location{path, {source.position(r.begin), source.position(r.end)}}, std::move(text)};
}

// A YAML key spelled as its dotted path (model.expert_tensor_model_parallel_size) and located at its
// value: the key is the path's last part, written before the value on its line and followed by ':'.
std::optional<TextEdit> yaml_key_rename(const SourceText& source, const FixChange& c, ByteRange at) {
  std::size_t from_dot = c.from.rfind('.'), to_dot = c.text.rfind('.');
  std::string_view from_key =
      std::string_view(c.from).substr(from_dot == std::string::npos ? 0 : from_dot + 1);
  std::string_view to_key = std::string_view(c.text).substr(to_dot == std::string::npos ? 0 : to_dot + 1);
  if (from_dot != to_dot || c.from.compare(0, from_dot + 1, c.text, 0, to_dot + 1) != 0 || from_key.empty())
    return std::nullopt;  // only the last part changes
  std::string_view text = source.text();
  std::size_t line_start = at.begin == 0 ? std::string_view::npos : text.rfind('\n', at.begin - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  std::string_view before = text.substr(line_start, at.begin - line_start);
  std::size_t pos = before.rfind(from_key);
  if (pos == std::string_view::npos) return std::nullopt;
  std::size_t b = line_start + pos, e = b + from_key.size();
  auto key_char = [](char ch) { return word_char(ch) || ch == '-' || ch == '.'; };
  if ((b > line_start && key_char(text[b - 1])) || e >= text.size()) return std::nullopt;
  std::size_t colon = e;
  if (colon < text.size() && (text[colon] == '"' || text[colon] == '\'')) ++colon;
  while (colon < at.begin && text[colon] == ' ') ++colon;
  if (colon >= text.size() || text[colon] != ':') return std::nullopt;
  return edit_at(source, c.at.path, {b, e}, std::string(to_key));
}

bool editable_origin(Origin o) {
  switch (o) {
    case Origin::kRecipeDefault:
    case Origin::kRecipeName:
    case Origin::kFrameworkDefault:
    case Origin::kClusterProfile:
    case Origin::kDerived:
      return false;
    default:
      return true;
  }
}

std::optional<TextEdit> resolve_change(const FixChange& c, const SourceLookup& source_of) {
  const SourceText* source = c.at.in_file() ? source_of(c.at.path) : nullptr;
  if (!source) return std::nullopt;
  std::string_view text = source->text();
  auto at = bytes_of(*source, c.at);
  if (!at) return std::nullopt;
  switch (c.kind) {
    case FixChange::Kind::kReplace:
      return edit_at(*source, c.at.path, *at, c.text);
    case FixChange::Kind::kRename: {
      if (c.from.empty()) return std::nullopt;
      std::string_view window = text.substr(at->begin, at->end - at->begin);
      std::size_t pos = window.rfind(c.from);
      if (pos == std::string_view::npos) return yaml_key_rename(*source, c, *at);
      std::size_t b = at->begin + pos, e = b + c.from.size();
      // Whole names only; a '.' before is the object the setting hangs on (recipe.trainer.strategy.x).
      auto key_char = [](char ch) { return word_char(ch) || ch == '-' || ch == '.'; };
      if ((b > 0 && (word_char(text[b - 1]) || text[b - 1] == '-') && word_char(c.from.front())) ||
          (e < text.size() && key_char(text[e])))
        return std::nullopt;
      return edit_at(*source, c.at.path, {b, e}, c.text);
    }
    case FixChange::Kind::kInsertBefore: {
      int line = c.at.range.start.line;
      std::string_view line_text = source->line(line);
      std::size_t column = at->begin - source->line_start(line);
      std::size_t indent = 0;
      while (indent < line_text.size() && (line_text[indent] == ' ' || line_text[indent] == '\t')) ++indent;
      if (indent != column) return std::nullopt;  // the place is not where a command starts
      if (line > 1) {
        std::string_view prev = source->line(line - 1);
        while (!prev.empty() && (prev.back() == ' ' || prev.back() == '\t' || prev.back() == '\r'))
          prev.remove_suffix(1);
        if (!prev.empty() && prev.back() == '\\') return std::nullopt;  // inside a continued command
      }
      std::size_t start = source->line_start(line);
      return edit_at(*source, c.at.path, {start, start},
                     std::string(line_text.substr(0, indent)) + c.text + "\n");
    }
    case FixChange::Kind::kSetValue:
      break;
  }
  if (!editable_origin(c.origin) || c.old_value.is_unknown() || c.value.is_unknown()) return std::nullopt;
  // Where the value itself was written comes first (TP=16 read through $TP), then the setting.
  for (const auto& w : c.written) {
    if (!w.in_file()) continue;
    const SourceText* ws = source_of(w.path);
    if (!ws) continue;
    auto wr = bytes_of(*ws, w);
    if (!wr) continue;
    if (auto found = find_value(ws->text(), *wr, c.old_value, c.value, null_spelling(c.origin)))
      return edit_at(*ws, w.path, found->range, found->replacement);
  }
  if (auto found = find_value(text, *at, c.old_value, c.value, null_spelling(c.origin)))
    return edit_at(*source, c.at.path, found->range, found->replacement);
  // A flag with its value unset: the flag and the value go (the framework's default is what "unset" means).
  if (c.value.kind() == Value::Kind::kNull &&
      (c.origin == Origin::kMegatronFlag || c.origin == Origin::kLauncherFlag) &&
      c.spelling.starts_with("-")) {
    std::string_view window = text.substr(at->begin, at->end - at->begin);
    if (window.starts_with(c.spelling) && window.size() > c.spelling.size())
      if (auto r = flag_removal(text, *at)) return edit_at(*source, c.at.path, *r, "");
    return std::nullopt;
  }
  // A presence flag: --sequence-parallel means true and goes away to mean false (and --no-x the reverse).
  auto old_flag = c.old_value.as_bool();
  auto new_flag = c.value.as_bool();
  if (old_flag && new_flag && *old_flag != *new_flag && c.spelling.size() > 2 &&
      c.spelling.starts_with("-")) {
    std::string_view window = text.substr(at->begin, at->end - at->begin);
    if (window == c.spelling || window == "\"" + c.spelling + "\"" || window == "'" + c.spelling + "'") {
      std::size_t pos = window.find(c.spelling);
      ByteRange flag{at->begin + pos, at->begin + pos + c.spelling.size()};
      if (auto r = flag_removal(text, flag)) return edit_at(*source, c.at.path, *r, "");
    }
  }
  return std::nullopt;
}

}  // namespace

bool edits_overlap(const TextEdit& a, const TextEdit& b) {
  if (a.location.path != b.location.path) return false;
  const SourceRange &x = a.location.range, &y = b.location.range;
  auto inside = [](SourcePosition p, const SourceRange& r) { return !(p < r.start) && !(r.end < p); };
  if (x.start == x.end) return inside(x.start, y);
  if (y.start == y.end) return inside(y.start, x);
  return x.start < y.end && y.start < x.end;
}

std::optional<Fix> resolve_fix(const FixRequest& request, const SourceLookup& source_of) {
  Fix fix;
  fix.applicability = request.applicability;
  fix.message = request.message;
  for (const auto& change : request.changes) {
    auto edit = resolve_change(change, source_of);
    if (!edit) return std::nullopt;
    for (const auto& other : fix.edits)
      if (edits_overlap(other, *edit)) return std::nullopt;
    fix.edits.push_back(std::move(*edit));
  }
  if (fix.edits.empty()) return std::nullopt;
  std::sort(fix.edits.begin(), fix.edits.end(), [](const TextEdit& a, const TextEdit& b) {
    return std::tie(a.location.path, a.location.range.start) <
           std::tie(b.location.path, b.location.range.start);
  });
  return fix;
}

std::string apply_edits(const SourceText& source, std::span<const TextEdit> edits) {
  std::string_view text = source.text();
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  for (const auto& e : edits) {
    std::size_t b = source.offset(e.location.range.start), end = source.offset(e.location.range.end);
    if (b < at || end < b) continue;  // callers pass sorted, disjoint edits
    out.append(text.substr(at, b - at));
    out += e.new_text;
    at = end;
  }
  out.append(text.substr(at));
  return out;
}

int line_after_edits(int line, std::span<const TextEdit> edits) {
  int shift = 0;
  for (const auto& e : edits) {
    const SourceRange& r = e.location.range;
    int added = static_cast<int>(std::count(e.new_text.begin(), e.new_text.end(), '\n'));
    int removed = r.end.line - r.start.line;
    if (r.start.line > line) break;
    if (r.end.line < line || (r.end.line == line && r.start.line < line && r.end.column == 1)) {
      shift += added - removed;
    } else if (r.start.line < line) {
      return r.start.line + shift;  // the line was inside the replaced text
    } else if (r.start.line == line && r.start.column == 1 && !e.new_text.empty() &&
               e.new_text.back() == '\n' && r.start == r.end) {
      shift += added;  // a line inserted before this one
    }
  }
  return line + shift;
}

}  // namespace parlint
