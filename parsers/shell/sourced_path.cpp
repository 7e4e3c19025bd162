#include "parsers/shell/sourced_path.h"

#include <algorithm>
#include <filesystem>
#include <vector>

namespace parlint {
namespace {

// `name` against `pattern` where `unknown` bytes stand for any text (iterative, no backtracking blow-up:
// the last wildcard is the only one retried).
bool wildcard_match(std::string_view pattern, std::string_view name, char unknown) {
  std::size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == unknown) {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == unknown) ++p;
  return p == pattern.size();
}

constexpr std::size_t kMaxEntries = 4096;  // a folder listing larger than this is not searched

}  // namespace

std::optional<std::string> resolve_sourced_path(std::string_view path, char unknown,
                                                const std::string& script_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    auto slash = path.find('/', begin);
    parts.emplace_back(path.substr(begin, slash == std::string_view::npos ? slash : slash - begin));
    if (slash == std::string_view::npos) break;
    begin = slash + 1;
  }
  if (parts.empty() || parts.back().empty() || parts.back().find(unknown) != std::string::npos)
    return std::nullopt;
  fs::path base;
  std::size_t first = 0;
  if (parts.front().empty()) {
    base = "/";
    first = 1;
  } else if (std::all_of(parts.front().begin(), parts.front().end(), [&](char c) { return c == unknown; })) {
    base = script_dir.empty() ? fs::path(".") : fs::path(script_dir);
    first = 1;
  } else {
    base = script_dir.empty() ? fs::path(".") : fs::path(script_dir);
  }
  int wild = 0;
  for (std::size_t i = first; i < parts.size(); ++i)
    if (parts[i].find(unknown) != std::string::npos) ++wild;
  if (wild > 2) return std::nullopt;

  std::vector<fs::path> candidates{base};
  for (std::size_t i = first; i < parts.size(); ++i) {
    std::vector<fs::path> next;
    const std::string& part = parts[i];
    for (const auto& dir : candidates) {
      if (part.find(unknown) == std::string::npos) {
        if (part.empty() || part == ".") {
          next.push_back(dir);
        } else {
          next.push_back(dir / part);
        }
        continue;
      }
      std::error_code ec;
      fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
      std::size_t seen = 0;
      for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (++seen > kMaxEntries) return std::nullopt;
        std::string name = it->path().filename().string();
        if (!name.starts_with(".") && wildcard_match(part, name, unknown)) next.push_back(it->path());
      }
    }
    candidates = std::move(next);
    if (candidates.size() > 64) return std::nullopt;
  }
  std::vector<std::string> files;
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) files.push_back(c.lexically_normal().string());
  }
  if (files.size() != 1) return std::nullopt;
  return files.front();
}

}  // namespace parlint
