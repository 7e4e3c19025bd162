#include "lint/engine/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "lint/engine/config_tree.h"
#include "lint/engine/rule_selection.h"
#include "lint/model/closest_name.h"
#include "rules/api/rule.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

std::string at(const std::string& path, const ConfigNode& n) {
  return path + ":" + std::to_string(n.line);
}

// yaml-cpp's tree as a ConfigNode (marks are 0-based; a node without one gets line 0).
ConfigNode from_yaml(const YAML::Node& n) {
  ConfigNode out;
  out.line = n.Mark().line + 1;
  if (n.IsScalar()) {
    out.kind = ConfigNode::Kind::kScalar;
    out.scalar = n.Scalar();
  } else if (n.IsSequence()) {
    out.kind = ConfigNode::Kind::kSequence;
    for (const auto& item : n) out.items.push_back(from_yaml(item));
  } else if (n.IsMap()) {
    out.kind = ConfigNode::Kind::kMap;
    for (const auto& kv : n) out.entries.push_back(ConfigEntry{from_yaml(kv.first), from_yaml(kv.second)});
  }
  return out;
}

Expected<std::vector<std::string>, std::string> rule_list(const std::string& path, const ConfigNode& n,
                                                          const char* key) {
  std::vector<std::string> out;
  if (n.is_scalar()) {
    out = split_list({n.scalar});
  } else if (n.is_sequence()) {
    for (const auto& item : n.items) {
      if (!item.is_scalar())
        return Unexpected(at(path, item) + ": " + key + " entries must be rule codes or names");
      out.push_back(item.scalar);
    }
  } else {
    return Unexpected(at(path, n) + ": " + key + " must be a list of rule codes, names or prefixes");
  }
  for (const auto& s : out)
    if (!RuleSelection::make({s}, {}))
      return Unexpected(at(path, n) + ": unknown rule '" + s + "' in " + key + rule_suggestion(s));
  return out;
}

template <typename T>
std::optional<T> number(const ConfigNode& n) {
  if (!n.is_scalar()) return std::nullopt;
  T v{};
  const char* end = n.scalar.data() + n.scalar.size();
  auto [p, ec] = std::from_chars(n.scalar.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

const std::vector<std::string> kConfigKeys = {
    "select",    "ignore",  "severity",         "fail-on",          "cluster",
    "framework", "exclude", "per-file-ignores", "framework-source", "megatron-core-version"};

std::string cluster_suggestion(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& p : builtin_cluster_profiles()) names.push_back(p.name);
  return did_you_mean(name, names);
}

// Every key of DESIGN §4's configuration, checked the same whichever file it came from.
Expected<Config, std::string> config_from_tree(const ConfigNode& root, Config c) {
  const std::string& path = c.path;
  if (root.is_null()) return c;
  if (!root.is_map()) return Unexpected(path + ":1: the configuration must be a mapping");
  // Every mistake of the file at once, one a line, not only the first.
  std::vector<std::string> errors;
  auto error = [&](std::string message) { errors.push_back(std::move(message)); };
  for (const auto& [k, v] : root.entries) {
    const std::string& key = k.scalar;
    if (key == "select" || key == "ignore") {
      auto list = rule_list(path, v, key.c_str());
      if (!list) {
        error(list.error());
        continue;
      }
      (key == "select" ? c.select : c.ignore) = *list;
      if (key == "select") c.has_select = true;
    } else if (key == "severity") {
      if (!v.is_map()) {
        error(at(path, v) + ": severity must map rule codes to error, warning or info");
        continue;
      }
      for (const auto& [rule, level_node] : v.entries) {
        const Rule* r = RuleRegistry::instance().find(rule.scalar);
        if (!r) {
          error(at(path, rule) + ": unknown rule '" + rule.scalar + "' in severity" +
                rule_suggestion(rule.scalar));
          continue;
        }
        auto level = severity_from_name(level_node.scalar);
        if (!level) {
          error(at(path, level_node) + ": severity must be error, warning or info" +
                did_you_mean(level_node.scalar, {"error", "warning", "info"}));
          continue;
        }
        c.severity[std::string(r->info().code)] = *level;
      }
    } else if (key == "fail-on") {
      const std::string& f = v.scalar;
      if (f != "error" && f != "warning" && f != "info" && f != "never") {
        error(at(path, v) + ": fail-on must be error, warning, info or never" +
              did_you_mean(f, {"error", "warning", "info", "never"}));
        continue;
      }
      c.fail_on = f;
    } else if (key == "cluster") {
      if (v.is_scalar()) {
        c.cluster = find_cluster_profile(v.scalar);
        if (!c.cluster)
          error(at(path, v) + ": unknown cluster profile '" + v.scalar + "'" + cluster_suggestion(v.scalar));
      } else if (v.is_map()) {
        ClusterProfile p = default_cluster_profile();
        p.name = "configured";
        for (const auto& [field, value] : v.entries) {
          const std::string& f = field.scalar;
          bool ok = value.is_scalar();
          if (f == "gpus_per_node") {
            auto n = number<int>(value);
            ok = n.has_value();
            if (ok) p.gpus_per_node = *n;
          } else if (f == "nvlink_domain") {
            auto n = number<int>(value);
            ok = n.has_value();
            if (ok) p.nvlink_domain = *n;
          } else if (f == "gpu_memory_gib") {
            auto n = number<double>(value);
            ok = n.has_value();
            if (ok) p.gpu_memory_gib = *n;
          } else if (f == "interconnect") {
            p.interconnect = value.scalar;
          } else if (f == "gpu") {
            p.gpu = value.scalar;
          } else {
            error(
                at(path, field) + ": unknown cluster key '" + f + "'" +
                did_you_mean(f, {"gpus_per_node", "nvlink_domain", "gpu_memory_gib", "interconnect", "gpu"}));
            continue;
          }
          if (!ok) error(at(path, value) + ": cluster." + f + " has the wrong type");
        }
        c.cluster = p;
      } else {
        error(at(path, v) + ": cluster must be a profile name or a mapping");
      }
    } else if (key == "framework") {
      c.framework = framework_from_id(v.scalar);
      if (!c.framework)
        error(at(path, v) + ": framework must be auto, megatron-lm, megatron-bridge, nemo1 or nemo2" +
              did_you_mean(v.scalar, {"auto", "megatron-lm", "megatron-bridge", "nemo1", "nemo2"}));
    } else if (key == "framework-source") {
      if (!v.is_scalar() || v.scalar.empty()) {
        error(at(path, v) + ": framework-source must be the path of a Megatron-Bridge checkout");
        continue;
      }
      std::error_code ec;
      fs::path p = fs::path(v.scalar).is_absolute() ? fs::path(v.scalar) : c.dir / v.scalar;
      c.framework_source = fs::absolute(p, ec).lexically_normal().string();
      if (!fs::is_directory(*c.framework_source, ec))
        error(at(path, v) + ": framework-source " + v.scalar + " is not a folder");
    } else if (key == "megatron-core-version") {
      c.megatron_core_version = v.is_scalar() ? parse_core_version(v.scalar) : std::nullopt;
      if (!c.megatron_core_version) {
        error(at(path, v) + ": megatron-core-version must be a version such as 0.15 or 0.16.1");
        continue;
      }
      c.megatron_core_version->source = "megatron-core-version: " + v.scalar + " in " + c.shown();
    } else if (key == "exclude") {
      if (!v.is_sequence()) {
        error(at(path, v) + ": exclude must be a list of globs");
        continue;
      }
      for (const auto& g : v.items) {
        if (g.is_scalar())
          c.exclude.emplace_back(g.scalar);
        else
          error(at(path, g) + ": exclude entries must be globs");
      }
    } else if (key == "per-file-ignores") {
      if (!v.is_map()) {
        error(at(path, v) + ": per-file-ignores must map globs to rule lists");
        continue;
      }
      for (const auto& [glob, rules] : v.entries) {
        auto list = rule_list(path, rules, "per-file-ignores");
        if (!list) {
          error(list.error());
          continue;
        }
        std::vector<std::string> codes;
        for (const auto& s : *list) {
          auto sel = RuleSelection::make({s}, {});
          for (const auto& r : RuleRegistry::instance().rules())
            if (sel->enabled(r->info().code)) codes.emplace_back(r->info().code);
        }
        c.per_file_ignores.emplace_back(Glob(glob.scalar), std::move(codes));
        c.per_file_ignore_patterns.push_back(glob.scalar);
      }
    } else {
      error(at(path, k) + ": unknown configuration key '" + key + "'" + did_you_mean(key, kConfigKeys));
    }
  }
  if (!errors.empty()) {
    // In the file's order (a TOML table is read by key): each message starts "path:line:".
    auto line_of = [&](const std::string& e) {
      int line = 0;
      std::from_chars(e.data() + std::min(e.size(), path.size() + 1), e.data() + e.size(), line);
      return line;
    };
    std::stable_sort(errors.begin(), errors.end(),
                     [&](const std::string& a, const std::string& b) { return line_of(a) < line_of(b); });
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? "" : "\n") + e;
    return Unexpected(all);
  }
  return c;
}

Config empty_config(const std::string& path, bool pyproject) {
  Config c;
  c.path = path;
  c.from_pyproject = pyproject;
  c.dir = fs::path(path).parent_path();
  if (c.dir.empty()) c.dir = ".";
  return c;
}

bool is_toml(const std::string& path) {
  return fs::path(path).extension() == ".toml";
}

Expected<std::string, std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected(path + ": cannot read the configuration file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string Config::shown() const {
  return from_pyproject ? "[tool.parlint] in " + path : path;
}

std::string Config::relative(const std::string& file) const {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec).lexically_normal();
  fs::path base = fs::absolute(dir, ec).lexically_normal();
  return abs.lexically_relative(base).generic_string();
}

std::vector<std::string> Config::ignored_for(const std::string& file) const {
  std::vector<std::string> out;
  std::string rel = relative(file);
  for (const auto& [glob, codes] : per_file_ignores)
    if (glob.matches(rel)) out.insert(out.end(), codes.begin(), codes.end());
  return out;
}

bool Config::excludes(const std::string& file) const {
  std::string rel = relative(file);
  for (const auto& g : exclude)
    if (g.matches(rel)) return true;
  return false;
}

Expected<Config, std::string> load_config(const std::string& path) {
  auto text = read_file(path);
  if (!text) return Unexpected(text.error());
  if (!is_toml(path)) return parse_config(*text, path);
  auto parsed = parse_pyproject_config(*text, path);
  if (!parsed) return Unexpected(parsed.error());
  if (!*parsed) return Unexpected(path + ":1: no [tool.parlint] table in this file");
  return std::move(**parsed);
}

Expected<Config, std::string> parse_config(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Unexpected(path + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  return config_from_tree(from_yaml(root), empty_config(path, false));
}

Expected<std::optional<Config>, std::string> parse_pyproject_config(const std::string& text,
                                                                    const std::string& path) {
  // Any spelling of the table ([tool.parlint], tool.parlint.x = ..., parlint = {...} under [tool]) holds
  // the word: a pyproject.toml without it is another tool's business, not parsed (nor refused) here.
  if (text.find("parlint") == std::string::npos) return std::optional<Config>();
  auto table = pyproject_parlint_table(text, path);
  if (!table) return Unexpected(table.error());
  if (!*table) return std::optional<Config>();
  auto c = config_from_tree(**table, empty_config(path, true));
  if (!c) return Unexpected(c.error());
  return std::optional<Config>(std::move(*c));
}

const Config* ConfigResolver::for_file(const std::string& file) {
  if (fixed_) return fixed_.get();
  if (!discover_) return nullptr;
  std::error_code ec;
  fs::path dir =
      fs::absolute(fs::path(file).parent_path().empty() ? fs::path(".") : fs::path(file).parent_path(), ec)
          .lexically_normal();
  return for_dir(dir);
}

const Config* ConfigResolver::for_dir(const fs::path& dir) {
  auto it = by_dir_.find(dir);
  if (it != by_dir_.end()) return it->second.get();
  std::shared_ptr<const Config> found;
  std::error_code ec;
  // Paths relative to the working directory when the file is below it, in messages and reports.
  auto shown = [&](const fs::path& candidate) {
    fs::path rel = candidate.lexically_relative(fs::current_path(ec));
    return (!rel.empty() && rel.begin()->string() != "..") ? rel.string() : candidate.string();
  };
  // In one folder `.parlint.yaml` wins over a pyproject.toml's [tool.parlint], as ruff's own `.ruff.toml`
  // wins over `pyproject.toml`: the file made for the tool says more than the project's shared one. A
  // pyproject.toml without [tool.parlint] is not a configuration: the search goes on above it.
  fs::path yaml = dir / ".parlint.yaml", toml = dir / "pyproject.toml";
  bool searched_here = false;
  if (fs::is_regular_file(yaml, ec)) {
    searched_here = true;
    auto loaded = load_config(shown(yaml));
    if (loaded) {
      if (fs::is_regular_file(toml, ec))
        if (auto text = read_file(toml.string()))
          if (auto other = parse_pyproject_config(*text, shown(toml)); other && *other)
            loaded->shadowed = (*other)->shown();
      found = std::make_shared<const Config>(std::move(*loaded));
    } else {
      errors_.push_back(loaded.error());
    }
  } else if (fs::is_regular_file(toml, ec)) {
    auto text = read_file(shown(toml));
    auto parsed = text ? parse_pyproject_config(*text, shown(toml))
                       : Expected<std::optional<Config>, std::string>(Unexpected(text.error()));
    if (!parsed) {
      searched_here = true;
      errors_.push_back(parsed.error());
    } else if (*parsed) {
      searched_here = true;
      found = std::make_shared<const Config>(std::move(**parsed));
    }
  }
  if (!searched_here && dir.has_parent_path() && dir.parent_path() != dir) {
    const Config* parent = for_dir(dir.parent_path());
    if (parent) found = by_dir_[dir.parent_path()];
  }
  by_dir_[dir] = found;
  return found.get();
}

}  // namespace parlint
