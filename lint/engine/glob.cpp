#include "lint/engine/glob.h"

#include <re2/re2.h>

namespace parlint {

std::string glob_to_regex(std::string_view g) {
  std::string re;
  for (std::size_t i = 0; i < g.size(); ++i) {
    char c = g[i];
    if (c == '*') {
      if (i + 1 < g.size() && g[i + 1] == '*') {
        bool slash_after = i + 2 < g.size() && g[i + 2] == '/';
        bool at_segment_start = i == 0 || g[i - 1] == '/';
        if (at_segment_start && slash_after) {
          re += "(?:.*/)?";  // "**/" matches zero or more directories
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else {
        re += "[^/]*";
      }
    } else if (c == '?') {
      re += "[^/]";
    } else if (c == '[') {
      std::size_t close = g.find(']', i + 1);
      if (close == std::string_view::npos) {
        re += "\\[";
        continue;
      }
      std::string_view body = g.substr(i + 1, close - i - 1);
      re += '[';
      if (!body.empty() && (body[0] == '!' || body[0] == '^')) {
        re += '^';
        body.remove_prefix(1);
      }
      for (char b : body) {
        if (b == '\\' || b == '[' || b == ']') re += '\\';
        re += b;
      }
      re += ']';
      i = close;
    } else {
      if (std::string_view("\\.+()|{}^$").find(c) != std::string_view::npos) re += '\\';
      re += c;
    }
  }
  return re;
}

Glob::Glob(std::string_view pattern) : pattern_(pattern) {
  std::string_view p = pattern;
  if (p.starts_with("./")) p.remove_prefix(2);
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  component_only_ = p.find('/') == std::string_view::npos;
  if (p.starts_with("/")) p.remove_prefix(1);
  RE2::Options opts;
  opts.set_log_errors(false);
  // A directory pattern also covers everything below it.
  re_ = std::make_shared<const re2::RE2>("^(?:" + glob_to_regex(p) + ")(?:/.*)?$", opts);
}

bool Glob::ok() const {
  return re_ && re_->ok();
}

bool Glob::matches(std::string_view path) const {
  if (!ok()) return false;
  if (path.starts_with("./")) path.remove_prefix(2);
  if (RE2::FullMatch(path, *re_)) return true;
  if (!component_only_) return false;
  // Try every suffix that starts at a component boundary: "build" matches "a/build/x.yaml".
  for (std::size_t i = 0; i < path.size(); ++i)
    if (path[i] == '/' && RE2::FullMatch(path.substr(i + 1), *re_)) return true;
  return false;
}

}  // namespace parlint
