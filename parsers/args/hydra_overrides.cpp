#include "parsers/args/hydra_overrides.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "lint/model/whitespace.h"
#include "parsers/yaml/omegaconf.h"

namespace parlint {

Value hydra_value(std::string_view text) {
  std::string_view s = trim_blanks(text);
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    return Value::string(std::string(s.substr(1, s.size() - 2)));
  if (s.find("${") != std::string_view::npos)
    return Value::unknown("Hydra interpolation, resolved at run time");
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
    std::vector<Value> items;
    std::string_view body = s.substr(1, s.size() - 2);
    int depth = 0;
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= body.size(); ++i) {
      if (i < body.size() && (body[i] == '[' || body[i] == '{')) ++depth;
      if (i < body.size() && (body[i] == ']' || body[i] == '}')) --depth;
      if (i == body.size() || (body[i] == ',' && depth == 0)) {
        std::string_view item = trim_blanks(body.substr(begin, i - begin));
        if (!item.empty()) items.push_back(hydra_value(item));
        begin = i + 1;
      }
    }
    return Value::list(std::move(items));
  }
  return scalar_value(s, false);
}

void read_override(const Word& w, TrainingArgs& out, ArgumentFacts& facts) {
  std::string_view t = w.text;
  auto eq = t.find('=');
  if (eq == std::string_view::npos || eq == 0) return;
  std::string_view key_text = t.substr(0, eq);
  // A config-group choice (training=gpt3/5b): a plain key and a value naming a file in the group folder.
  if (key_text.find('.') == std::string_view::npos && !w.unknown &&
      key_text.find('+') == std::string_view::npos && t.substr(eq + 1).find('/') != std::string_view::npos &&
      t.find("://") == std::string_view::npos && !t.substr(eq + 1).starts_with("/")) {
    Word g = w;
    g.text = "group:" + std::string(key_text) + "/" + std::string(t.substr(eq + 1));
    out.config_files.push_back(std::move(g));
    return;
  }
  if (key_text.starts_with("~")) return;  // deletion: the key falls back to its default
  while (key_text.starts_with("+")) key_text.remove_prefix(1);
  std::vector<std::string> path;
  std::size_t begin = 0;
  while (true) {
    auto dot = key_text.find('.', begin);
    path.emplace_back(key_text.substr(begin, dot == std::string_view::npos ? dot : dot - begin));
    if (dot == std::string_view::npos) break;
    begin = dot + 1;
  }
  if (std::any_of(path.begin(), path.end(), [](const std::string& p) {
        return p.empty() || !std::all_of(p.begin(), p.end(), [](char c) {
                 return std::isalnum((unsigned char)c) || c == '_' || c == '-';
               });
      }))
    return;  // not an override (a URL, an environment assignment passed through, ...)
  out.hydra_overrides = true;
  auto match = match_config_path(path);
  if (!match) {
    out.unrecognized.push_back({std::string(key_text), w.location, false});
    return;
  }
  Key key = match->key;
  if (path.size() >= 2 && path[path.size() - 2] == "trainer") out.lightning_trainer = true;
  facts.overrides.push_back(argument_fact(key,
                                          word_value(w, t.substr(eq + 1), key_type(key), match->inverted),
                                          w.location, Origin::kOverride, std::string(key_text), w));
  facts.overrides.back().priority = match->priority;
}

}  // namespace parlint
