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
  // `anchored`: the pattern must match the whole path; otherwise a pattern without '/' matches any
  // single path component (gitignore semantics for "*.py", "build").
  explicit Glob(std::string_view pattern);
  ~Glob();
  Glob(Glob&&) noexcept;
  Glob& operator=(Glob&&) noexcept;

  bool ok() const;
  // `path` uses '/' separators and no leading "./".
  bool matches(std::string_view path) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  bool component_only_ = false;
  std::unique_ptr<re2::RE2> re_;
};

// Converts a glob to an RE2 regular expression matching a whole '/'-separated path.
std::string glob_to_regex(std::string_view glob);

}  // namespace parlint
