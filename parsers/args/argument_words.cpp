#include "parsers/args/argument_words.h"

#include "parsers/args/hydra_overrides.h"

namespace parlint {

Location span(const Location& a, const Location& b) {
  if (a.path == b.path && a.range.valid() && b.range.valid() && a.range.start.line == b.range.start.line &&
      b.range.end >= a.range.end)
    return {a.path, {a.range.start, b.range.end}};
  return a;
}

std::vector<std::string> dotted_path(std::string_view key) {
  std::vector<std::string> path;
  while (!key.empty()) {
    auto dot = key.find('.');
    path.emplace_back(key.substr(0, dot));
    key = dot == std::string_view::npos ? std::string_view{} : key.substr(dot + 1);
  }
  return path;
}

std::optional<FlagValue> last_flag_value(std::span<const Word> args, std::string_view name) {
  std::optional<FlagValue> out;
  for (std::size_t k = 0; k < args.size(); ++k) {
    std::string_view t = args[k].text;
    if (t == name && k + 1 < args.size())
      out = FlagValue{&args[k], &args[k + 1], args[k + 1].text};
    else if (t.size() > name.size() && t.starts_with(name) && t[name.size()] == '=')
      out = FlagValue{&args[k], &args[k], std::string(t.substr(name.size() + 1))};
  }
  return out;
}

Value word_value(const Word& w, std::string_view text, KeyType type, bool inverted) {
  if (w.unknown) return Value::unknown(w.unknown_reason.empty() ? "set at run time" : w.unknown_reason);
  Value v = hydra_value(text);
  if (type == KeyType::kBool && v.kind() == Value::Kind::kString) {
    if (v.text() == "yes" || v.text() == "on") v = Value::boolean(true);
    if (v.text() == "no" || v.text() == "off") v = Value::boolean(false);
  }
  if (inverted && v.as_bool()) v = Value::boolean(!*v.as_bool());
  return v;
}

Fact argument_fact(Key key, Value value, Location loc, Origin origin, std::string spelling,
                   const Word& value_word) {
  Fact f;
  f.key = key;
  f.value = std::move(value);
  f.location = std::move(loc);
  f.origin = origin;
  f.spelling = std::move(spelling);
  const SourceRange& v = value_word.location.range;
  f.value_apart = value_word.location.path == f.location.path && v.start > f.location.range.start &&
                  v.start <= f.location.range.end;
  f.weak = value_word.weak;
  f.weak_note = value_word.weak_note;
  // The value's own text written elsewhere (TP=16 expanded into --tensor-model-parallel-size $TP, a
  // branch of an if that built the options string): where it was written comes first.
  if (value_word.location.in_file() && value_word.location.range.start.line != f.location.range.start.line)
    f.written_at.push_back({value_word.location, "value written here"});
  for (const auto& w : value_word.written_at)
    if (!(w.location.path == value_word.location.path && w.location.range == value_word.location.range))
      f.written_at.push_back(w);
  return f;
}

}  // namespace parlint
