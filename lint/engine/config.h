#pragma once
// The configuration (DESIGN §4): the closest `.parlint.yaml`, or pyproject.toml with a [tool.parlint]
// table, above each file, or the one named by --config. Every key is checked the same in both files; an
// unknown key, rule or profile, or a file that does not parse, is an error with the file and line.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "lint/model/expected.h"

#include "lint/engine/glob.h"
#include "lint/knowledge/cluster_profile.h"
#include "lint/knowledge/core_version.h"
#include "lint/model/framework.h"
#include "rules/api/diagnostic.h"

namespace parlint {

struct Config {
  std::string path;             // the file it was read from
  bool from_pyproject = false;  // its [tool.parlint] table
  std::string shadowed;         // a [tool.parlint] in the same folder that this .parlint.yaml won over
  std::filesystem::path dir;
  std::vector<std::string> select, ignore;  // empty select = all rules
  bool has_select = false;
  std::map<std::string, Severity> severity;  // rule code -> severity
  std::optional<std::string> fail_on;
  std::optional<ClusterProfile> cluster;
  std::optional<Framework> framework;
  std::optional<std::string> framework_source;  // absolute: a Megatron-Bridge checkout or package
  std::optional<CoreVersion> megatron_core_version;
  std::vector<Glob> exclude;                                                // relative to `dir`
  std::vector<std::pair<Glob, std::vector<std::string>>> per_file_ignores;  // relative to `dir`
  std::vector<std::string> per_file_ignore_patterns;                        // as written, in that order

  // Codes ignored for `file` by per-file-ignores.
  std::vector<std::string> ignored_for(const std::string& file) const;
  bool excludes(const std::string& file) const;
  std::string relative(const std::string& file) const;
  // "conf/.parlint.yaml", or "[tool.parlint] in pyproject.toml".
  std::string shown() const;
};

// Reads and validates one configuration file; the error says "path:line: what is wrong". A `.toml` file
// is read for its [tool.parlint] table (an error when it has none), anything else as YAML.
Expected<Config, std::string> load_config(const std::string& path);
// The same from YAML text already read (`path` names it in messages and anchors relative globs).
Expected<Config, std::string> parse_config(const std::string& text, const std::string& path);
// The [tool.parlint] table of a pyproject.toml's text; nullopt when there is none.
Expected<std::optional<Config>, std::string> parse_pyproject_config(const std::string& text,
                                                                    const std::string& path);

// Finds (and caches) the closest configuration above a file (`.parlint.yaml`, else a pyproject.toml
// with [tool.parlint], in each folder); with --config, always that one.
class ConfigResolver {
 public:
  explicit ConfigResolver(std::shared_ptr<const Config> fixed = nullptr, bool discover = true)
      : fixed_(std::move(fixed)), discover_(discover) {}
  // nullptr when no configuration applies. Errors are collected and reported once per file.
  const Config* for_file(const std::string& file);
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  const Config* for_dir(const std::filesystem::path& dir);
  std::shared_ptr<const Config> fixed_;
  bool discover_ = true;
  std::map<std::filesystem::path, std::shared_ptr<const Config>> by_dir_;
  std::vector<std::string> errors_;
};

}  // namespace parlint
