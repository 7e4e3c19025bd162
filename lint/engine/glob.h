#pragma once
// Shell-style globs (`*`, `**`, `?`, `[...]`) as used by --exclude, configuration and .gitignore,
// compiled once into RE2 patterns (linear-time matching on any path).
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace parlint {

class Glob {
 public:
  // A pattern with a '/' must match the whole path (or a folder above it); one without '/' matches
  // any single component (gitignore semantics for "*.py", "build").
  explicit Glob(std::string_view pattern);

  bool ok() const;
  // `path` uses '/' separators and no leading "./".
  bool matches(std::string_view path) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  bool component_only_ = false;
  std::shared_ptr<const re2::RE2> re_;  // compiled once, shared by copies
};

// Converts a glob to an RE2 regular expression matching a whole '/'-separated path.
std::string glob_to_regex(std::string_view glob);

}  // namespace parlint
