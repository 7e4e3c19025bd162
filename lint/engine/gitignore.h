#pragma once
// .gitignore rules for folder walks inside a git checkout (patterns, negation, directory-only and
// anchored patterns, per-directory files applied from the top of the checkout down).
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace parlint {

class GitIgnore {
 public:
  GitIgnore();
  ~GitIgnore();
  // True when `path` (a file or directory reached by the walk) is ignored by a .gitignore between
  // the top of its git checkout and its own folder. Outside a checkout nothing is ignored.
  bool ignored(const std::filesystem::path& path, bool is_directory);

 private:
  struct Pattern {
    std::shared_ptr<re2::RE2> re;
    bool negated = false;
    bool directory_only = false;
    bool anchored = false;  // matched against the path relative to the .gitignore's folder
  };
  const std::vector<Pattern>& patterns_for(const std::filesystem::path& dir);
  std::filesystem::path checkout_top(const std::filesystem::path& dir);

  std::map<std::filesystem::path, std::vector<Pattern>> cache_;
  std::map<std::filesystem::path, std::filesystem::path> top_cache_;
};

}  // namespace parlint
