#include "lint/config.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "lint/rule.h"
#include "lint/rule_selection.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

std::string at(const std::string& path, const YAML::Node& n) {
  return path + ":" + std::to_string(n.Mark().line + 1);
}

Expected<std::vector<std::string>, std::string> rule_list(const std::string& path, const YAML::Node& n,
                                                          const char* key) {
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out = split_list({n.Scalar()});
  } else if (n.IsSequence()) {
    for (const auto& item : n) {
      if (!item.IsScalar())
        return Unexpected(at(path, item) + ": " + key + " entries must be rule codes or names");
      out.push_back(item.Scalar());
    }
  } else {
    return Unexpected(at(path, n) + ": " + key + " must be a list of rule codes, names or prefixes");
  }
  for (const auto& s : out)
    if (!RuleSelection::make({s}, {}))
      return Unexpected(at(path, n) + ": unknown rule '" + s + "' in " + key);
  return out;
}

}  // namespace

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
  std::ifstream in(path);
  if (!in) return Unexpected(path + ": cannot read the configuration file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path);
}

Expected<Config, std::string> parse_config(const std::string& text, const std::string& path) {
  Config c;
  c.path = path;
  c.dir = fs::path(path).parent_path();
  if (c.dir.empty()) c.dir = ".";
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Unexpected(path + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (root.IsNull()) return c;
  if (!root.IsMap()) return Unexpected(path + ":1: the configuration must be a mapping");
  for (const auto& kv : root) {
    std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (key == "select" || key == "ignore") {
      auto list = rule_list(path, v, key.c_str());
      if (!list) return Unexpected(list.error());
      (key == "select" ? c.select : c.ignore) = *list;
      if (key == "select") c.has_select = true;
    } else if (key == "severity") {
      if (!v.IsMap())
        return Unexpected(at(path, v) + ": severity must map rule codes to error, warning or info");
      for (const auto& s : v) {
        const Rule* r = RuleRegistry::instance().find(s.first.Scalar());
        if (!r)
          return Unexpected(at(path, s.first) + ": unknown rule '" + s.first.Scalar() + "' in severity");
        auto level = severity_from_name(s.second.Scalar());
        if (!level) return Unexpected(at(path, s.second) + ": severity must be error, warning or info");
        c.severity[std::string(r->info().code)] = *level;
      }
    } else if (key == "fail-on") {
      std::string f = v.Scalar();
      if (f != "error" && f != "warning" && f != "info" && f != "never")
        return Unexpected(at(path, v) + ": fail-on must be error, warning, info or never");
      c.fail_on = f;
    } else if (key == "cluster") {
      if (v.IsScalar()) {
        c.cluster = find_cluster_profile(v.Scalar());
        if (!c.cluster) return Unexpected(at(path, v) + ": unknown cluster profile '" + v.Scalar() + "'");
      } else if (v.IsMap()) {
        ClusterProfile p = default_cluster_profile();
        p.name = "configured";
        for (const auto& f : v) {
          std::string k = f.first.Scalar();
          try {
            if (k == "gpus_per_node")
              p.gpus_per_node = f.second.as<int>();
            else if (k == "nvlink_domain")
              p.nvlink_domain = f.second.as<int>();
            else if (k == "gpu_memory_gib")
              p.gpu_memory_gib = f.second.as<double>();
            else if (k == "interconnect")
              p.interconnect = f.second.as<std::string>();
            else if (k == "gpu")
              p.gpu = f.second.as<std::string>();
            else
              return Unexpected(at(path, f.first) + ": unknown cluster key '" + k + "'");
          } catch (const YAML::Exception&) {
            return Unexpected(at(path, f.second) + ": cluster." + k + " has the wrong type");
          }
        }
        c.cluster = p;
      } else {
        return Unexpected(at(path, v) + ": cluster must be a profile name or a mapping");
      }
    } else if (key == "framework") {
      c.framework = framework_from_id(v.Scalar());
      if (!c.framework)
        return Unexpected(at(path, v) +
                          ": framework must be auto, megatron-lm, megatron-bridge, nemo1 or nemo2");
    } else if (key == "framework-source") {
      if (!v.IsScalar() || v.Scalar().empty())
        return Unexpected(at(path, v) + ": framework-source must be the path of a Megatron-Bridge checkout");
      std::error_code ec;
      fs::path p = fs::path(v.Scalar()).is_absolute() ? fs::path(v.Scalar()) : c.dir / v.Scalar();
      c.framework_source = fs::absolute(p, ec).lexically_normal().string();
      if (!fs::is_directory(*c.framework_source, ec))
        return Unexpected(at(path, v) + ": framework-source " + v.Scalar() + " is not a folder");
    } else if (key == "megatron-core-version") {
      c.megatron_core_version = v.IsScalar() ? parse_core_version(v.Scalar()) : std::nullopt;
      if (!c.megatron_core_version)
        return Unexpected(at(path, v) + ": megatron-core-version must be a version such as 0.15 or 0.16.1");
      c.megatron_core_version->source = "megatron-core-version: " + v.Scalar() + " in " + path;
    } else if (key == "exclude") {
      if (!v.IsSequence()) return Unexpected(at(path, v) + ": exclude must be a list of globs");
      for (const auto& g : v) c.exclude.emplace_back(g.Scalar());
    } else if (key == "per-file-ignores") {
      if (!v.IsMap()) return Unexpected(at(path, v) + ": per-file-ignores must map globs to rule lists");
      for (const auto& e : v) {
        auto list = rule_list(path, e.second, "per-file-ignores");
        if (!list) return Unexpected(list.error());
        std::vector<std::string> codes;
        for (const auto& s : *list) {
          auto sel = RuleSelection::make({s}, {});
          for (const auto& r : RuleRegistry::instance().rules())
            if (sel->enabled(r->info().code)) codes.emplace_back(r->info().code);
        }
        c.per_file_ignores.emplace_back(Glob(e.first.Scalar()), std::move(codes));
      }
    } else {
      return Unexpected(at(path, kv.first) + ": unknown configuration key '" + key + "'");
    }
  }
  return c;
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
  fs::path candidate = dir / ".parlint.yaml";
  if (fs::is_regular_file(candidate, ec)) {
    // Report paths relative to the working directory when the file is below it.
    fs::path shown = candidate.lexically_relative(fs::current_path(ec));
    std::string p = (!shown.empty() && shown.begin()->string() != "..") ? shown.string() : candidate.string();
    auto loaded = load_config(p);
    if (loaded)
      found = std::make_shared<const Config>(std::move(*loaded));
    else
      errors_.push_back(loaded.error());
  } else if (dir.has_parent_path() && dir.parent_path() != dir) {
    const Config* parent = for_dir(dir.parent_path());
    if (parent) found = by_dir_[dir.parent_path()];
  }
  by_dir_[dir] = found;
  return found.get();
}

}  // namespace parlint
