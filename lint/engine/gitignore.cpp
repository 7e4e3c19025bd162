#include "lint/engine/gitignore.h"

#include <re2/re2.h>

#include <fstream>

#include "lint/engine/glob.h"

namespace parlint {
namespace fs = std::filesystem;

GitIgnore::GitIgnore() = default;
GitIgnore::~GitIgnore() = default;

fs::path GitIgnore::checkout_top(const fs::path& dir) {
  auto it = top_cache_.find(dir);
  if (it != top_cache_.end()) return it->second;
  fs::path top;
  std::error_code ec;
  if (fs::exists(dir / ".git", ec)) {
    top = dir;
  } else if (dir.has_parent_path() && dir.parent_path() != dir) {
    top = checkout_top(dir.parent_path());
  }
  top_cache_[dir] = top;
  return top;
}

const std::vector<GitIgnore::Pattern>& GitIgnore::patterns_for(const fs::path& dir) {
  auto it = cache_.find(dir);
  if (it != cache_.end()) return it->second;
  std::vector<Pattern> patterns;
  std::ifstream in(dir / ".gitignore");
  std::string line;
  RE2::Options opts;
  opts.set_log_errors(false);
  while (in && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    while (!line.empty() && line.back() == ' ' && (line.size() < 2 || line[line.size() - 2] != '\\'))
      line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    Pattern p;
    std::string_view s = line;
    if (s[0] == '!') {
      p.negated = true;
      s.remove_prefix(1);
    } else if (s.starts_with("\\!") || s.starts_with("\\#")) {
      s.remove_prefix(1);
    }
    if (s.size() > 1 && s.back() == '/') {
      p.directory_only = true;
      s.remove_suffix(1);
    }
    p.anchored = s.find('/') != std::string_view::npos;
    if (s.starts_with("/")) s.remove_prefix(1);
    if (s.empty()) continue;
    p.re = std::make_shared<re2::RE2>("^(?:" + glob_to_regex(s) + ")$", opts);
    if (p.re->ok()) patterns.push_back(std::move(p));
  }
  return cache_.emplace(dir, std::move(patterns)).first->second;
}

bool GitIgnore::ignored(const fs::path& path, bool is_directory) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec).lexically_normal();
  if (ec || !abs.has_parent_path()) return false;
  fs::path top = checkout_top(abs.parent_path());
  if (top.empty()) return false;
  fs::path rel_to_top = abs.lexically_relative(top);
  bool result = false;
  // Apply the .gitignore of every folder from the checkout top down to the path's own folder.
  fs::path dir = top;
  for (auto comp = rel_to_top.begin(); comp != rel_to_top.end(); ++comp) {
    for (const Pattern& p : patterns_for(dir)) {
      if (p.directory_only && !is_directory) continue;
      std::string subject =
          p.anchored ? abs.lexically_relative(dir).generic_string() : abs.filename().string();
      if (RE2::FullMatch(subject, *p.re)) result = !p.negated;
    }
    dir /= *comp;
    if (dir == abs) break;
  }
  return result;
}

}  // namespace parlint
