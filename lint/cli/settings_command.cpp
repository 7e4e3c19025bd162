// parlint check --show-settings: the settings each path is linted with, and where each came from (the
// command line, the configuration file that applies, or parlint's default), as ruff check
// --show-settings does. One JSON document is built and printed as it is (--format json) or as text, so
// that the two cannot say different things.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "lint/cli/commands.h"
#include "lint/engine/config.h"
#include "rules/api/rule.h"

namespace parlint::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr const char* kCommandLine = "command line";
constexpr const char* kConfiguration = "configuration";
constexpr const char* kDefault = "default";

json profile_json(const ClusterProfile& p) {
  json out = {{"name", p.name}, {"gpus_per_node", p.gpus_per_node}, {"nvlink_domain", p.nvlink_domain}};
  out["gpu_memory_gib"] = p.gpu_memory_gib > 0 ? json(p.gpu_memory_gib) : json(nullptr);
  out["interconnect"] = p.interconnect;
  out["gpu"] = p.gpu;
  return out;
}

json valued(json value, const char* from) {
  return {{"value", std::move(value)}, {"from", from}};
}

json settings_for(const std::string& shown_path, bool folder, const Config* config, const EngineOptions& base,
                  const SettingsContext& context) {
  // A folder's settings are those of a file directly inside it, per-file-ignores aside.
  std::string file = folder ? (fs::path(shown_path) / "-").generic_string() : shown_path;
  EngineOptions o = options_for_config(file, config, base);
  json s;
  s["path"] = shown_path;
  s["kind"] = folder ? "folder" : "file";
  if (config) {
    json c = {{"path", config->path},
              {"table", config->from_pyproject ? json("tool.parlint") : json(nullptr)},
              {"found", base.config ? "--config" : "the closest above the file"}};
    c["not_used"] = config->shadowed.empty() ? json(nullptr) : json(config->shadowed);
    s["configuration"] = c;
  } else {
    s["configuration"] = nullptr;
  }

  const char* rules_from = base.cli_rules ? kCommandLine : config ? kConfiguration : kDefault;
  std::vector<std::string> select, ignore;
  if (base.cli_rules) {
    select = base.cli_select;
    ignore = base.cli_ignore;
  } else if (config) {
    select = config->select;
    ignore = config->ignore;
  }
  s["select"] = valued(select, select.empty() ? kDefault : rules_from);
  s["ignore"] = valued(ignore, ignore.empty() ? kDefault : rules_from);
  json per_file = json::array();
  if (config)
    for (std::size_t i = 0; i < config->per_file_ignores.size(); ++i) {
      const auto& [glob, codes] = config->per_file_ignores[i];
      json e = {{"pattern", config->per_file_ignore_patterns[i]}, {"rules", codes}};
      e["matches"] = folder ? json(nullptr) : json(glob.matches(config->relative(file)));
      per_file.push_back(std::move(e));
    }
  s["per_file_ignores"] = per_file;

  json rules = json::array();
  for (const auto& r : RuleRegistry::instance().rules()) {
    const RuleInfo& info = r->info();
    if (!o.rules.enabled(info.code)) continue;
    auto override_it = o.severity.find(std::string(info.code));
    bool overridden = override_it != o.severity.end();
    rules.push_back({{"code", info.code},
                     {"name", info.name},
                     {"severity", severity_name(overridden ? override_it->second : info.severity)},
                     {"from", overridden ? kConfiguration : kDefault}});
  }
  s["rules"] = rules;
  s["rule_count"] = RuleRegistry::instance().rules().size();
  s["fail_on"] = valued(context.fail_on, context.fail_on_from.c_str());

  if (o.lint.cluster) {
    s["cluster"] = profile_json(*o.lint.cluster);
    s["cluster"]["from"] = base.cli_cluster ? kCommandLine : kConfiguration;
  } else {
    s["cluster"] = profile_json(default_cluster_profile());
    s["cluster"]["from"] = kDefault;
  }
  s["gpus_per_node"] = valued(o.lint.gpus_per_node ? json(*o.lint.gpus_per_node) : json(nullptr),
                              o.lint.gpus_per_node ? kCommandLine : kDefault);
  s["nvlink_domain"] = valued(o.lint.nvlink_domain ? json(*o.lint.nvlink_domain) : json(nullptr),
                              o.lint.nvlink_domain ? kCommandLine : kDefault);
  bool auto_framework = o.lint.framework == Framework::kUnknown;
  s["framework"] = valued(auto_framework ? "auto" : std::string(framework_id(o.lint.framework)),
                          base.cli_framework              ? kCommandLine
                          : (config && config->framework) ? kConfiguration
                                                          : kDefault);
  s["framework_source"] = valued(o.framework_source ? json(*o.framework_source) : json(nullptr),
                                 o.framework_source ? kConfiguration : kDefault);
  s["megatron_core_version"] =
      valued(o.lint.megatron_core ? json(o.lint.megatron_core->text()) : json(nullptr),
             o.lint.megatron_core ? kConfiguration : kDefault);

  json exclude_cli = json::array(), exclude_config = json::array();
  bool excluded = false;
  std::string relative = fs::path(file).lexically_normal().generic_string();
  while (relative.starts_with("./")) relative.erase(0, 2);
  for (const auto& g : o.exclude) {
    exclude_cli.push_back(g.pattern());
    excluded |= g.matches(relative);
  }
  if (config)
    for (const auto& g : config->exclude) exclude_config.push_back(g.pattern());
  excluded |= config && config->excludes(file);
  json exclude = {{"command_line", exclude_cli}, {"configuration", exclude_config}};
  exclude["relative_to"] = config ? json(config->dir.generic_string()) : json(nullptr);
  exclude["excluded"] = folder ? json(nullptr) : json(excluded);
  exclude["force_exclude"] = base.force_exclude;
  s["exclude"] = exclude;
  s["max_file_size"] = o.max_file_size;
  return s;
}

std::string join(const json& list, std::string_view sep = ", ") {
  std::string out;
  for (const auto& item : list) {
    if (!out.empty()) out += sep;
    out += item.is_string() ? item.get<std::string>() : item.dump();
  }
  return out;
}

std::string origin(const json& v) {
  return " (" + v.value("from", std::string(kDefault)) + ")";
}

// The same document as aligned lines, one setting each.
std::string settings_text(const json& s) {
  std::string out = fmt::format("Settings for {}{}\n", s["path"].get<std::string>(),
                                s["kind"] == "folder" ? " (a file directly in this folder)" : "");
  auto line = [&](std::string_view label, const std::string& value) {
    out += fmt::format("  {:<23}{}\n", label, value);
  };
  const json& c = s["configuration"];
  if (c.is_null()) {
    line("configuration", "none (no .parlint.yaml or [tool.parlint] in a pyproject.toml above it)");
  } else {
    std::string where = c["table"].is_null() ? c["path"].get<std::string>()
                                             : "[tool.parlint] in " + c["path"].get<std::string>();
    line("configuration", where + " (" + c["found"].get<std::string>() + ")");
    if (!c["not_used"].is_null())
      line("", "not used: " + c["not_used"].get<std::string>() + " (.parlint.yaml in the same folder wins)");
  }
  const json& select = s["select"];
  line("select",
       select["value"].empty() ? std::string("all rules (default)") : join(select["value"]) + origin(select));
  const json& ignore = s["ignore"];
  line("ignore",
       ignore["value"].empty() ? std::string("none (default)") : join(ignore["value"]) + origin(ignore));
  bool first = true;
  for (const auto& p : s["per_file_ignores"]) {
    std::string matches = p["matches"].is_null()     ? ""
                          : p["matches"].get<bool>() ? " (matches this file)"
                                                     : " (does not match this file)";
    // fmt rather than `"..." + std::string`: GCC 12 reports a false -Wrestrict on that at -O3.
    line(first ? "per-file-ignores" : "",
         fmt::format("\"{}\": {}{}", p["pattern"].get<std::string>(), join(p["rules"]), matches));
    first = false;
  }
  std::string overrides;
  for (const auto& r : s["rules"]) {
    if (r["from"] == kConfiguration) {
      if (!overrides.empty()) overrides += ", ";
      overrides += fmt::format("{}: {}", r["code"].get<std::string>(), r["severity"].get<std::string>());
    }
  }
  // The codes wrapped under their label, ten to a line.
  std::string codes;
  int on_line = 0;
  for (const auto& r : s["rules"]) {
    if (on_line == 10) {
      codes += "\n" + std::string(25, ' ');
      on_line = 0;
    }
    if (on_line++) codes += ' ';
    codes += r["code"].get<std::string>();
  }
  line("rules enabled", fmt::format("{} of {}: {}", s["rules"].size(), s["rule_count"].get<int>(), codes));
  line("severity", overrides.empty() ? std::string("each rule's default (parlint rules)")
                                     : overrides + " (configuration); the others their default");
  const json& fail_on = s["fail_on"];
  line("fail-on",
       fail_on["value"].get<std::string>() + origin(fail_on) + "; one threshold for the whole run");
  const json& cl = s["cluster"];
  std::string memory = cl["gpu_memory_gib"].is_null()
                           ? std::string("GPU memory not known")
                           : fmt::format("{} GiB per GPU", cl["gpu_memory_gib"].get<double>());
  std::string numbers = fmt::format("{} GPUs per node, NVLink domain {}, {}, {}, {}",
                                    cl["gpus_per_node"].get<int>(), cl["nvlink_domain"].get<int>(), memory,
                                    cl["interconnect"].get<std::string>(), cl["gpu"].get<std::string>());
  if (cl["from"] == kDefault)
    line("cluster",
         "none chosen: GPUs per node from each job, the NVLink domain from the job's GPUs per node,");
  if (cl["from"] == kDefault)
    line("", "else " + cl["name"].get<std::string>() + " (" + numbers + ")");
  else
    line("cluster", cl["name"].get<std::string>() + origin(cl) + ": " + numbers);
  for (auto [key, label, fallback] :
       {std::tuple{"gpus_per_node", "gpus-per-node", "from each job, else the cluster profile"},
        std::tuple{
            "nvlink_domain", "nvlink-domain",
            "the chosen cluster profile's, else the job's GPUs per node, else the default profile's"}}) {
    const json& v = s[key];
    line(label, v["value"].is_null() ? std::string(fallback) : v["value"].dump() + origin(v));
  }
  const json& fw = s["framework"];
  line("framework", fw["value"] == "auto" && fw["from"] == kDefault
                        ? std::string("auto (default: detected per job)")
                        : fw["value"].get<std::string>() + origin(fw));
  const json& src = s["framework_source"];
  line("framework-source", src["value"].is_null()
                               ? std::string("none: a Megatron-Bridge source is looked for above each file")
                               : src["value"].get<std::string>() + origin(src));
  const json& core = s["megatron_core_version"];
  line("megatron-core-version",
       core["value"].is_null()
           ? std::string("not set: found in the project, else the newest release's checks")
           : core["value"].get<std::string>() + origin(core));
  const json& ex = s["exclude"];
  std::string globs;
  if (!ex["command_line"].empty()) globs = join(ex["command_line"]) + " (command line)";
  if (!ex["configuration"].empty())
    globs += (globs.empty() ? "" : "; ") + join(ex["configuration"]) + " (configuration, relative to " +
             ex["relative_to"].get<std::string>() + ")";
  line("exclude", globs.empty() ? std::string("none") : globs);
  if (!ex["excluded"].is_null() && ex["excluded"].get<bool>())
    line("", ex["force_exclude"].get<bool>() ? "this file is excluded (--force-exclude)"
                                             : "this file matches: skipped in folders, linted when named "
                                               "(unless --force-exclude)");
  std::size_t size = s["max_file_size"].get<std::size_t>();
  line("max-file-size", size % (1u << 20) == 0   ? fmt::format("{} MiB", size >> 20)
                        : size % (1u << 10) == 0 ? fmt::format("{} KiB", size >> 10)
                                                 : fmt::format("{} bytes", size));
  return out;
}

}  // namespace

int run_show_settings(const std::vector<std::string>& paths, const EngineOptions& options,
                      const SettingsContext& context, bool as_json) {
  ConfigResolver configs(options.config, options.discover_config);
  json all = json::array();
  for (const std::string& p : paths) {
    bool from_stdin = p == "-";
    std::string shown = from_stdin ? options.stdin_filename : p;
    std::error_code ec;
    bool folder = !from_stdin && fs::is_directory(p, ec);
    if (!from_stdin && !fs::exists(p, ec)) return usage_error(p + ": No such file or directory");
    std::string lookup = from_stdin ? "./" + shown : folder ? (fs::path(p) / "-").string() : p;
    const Config* config = configs.for_file(lookup);
    for (const auto& e : configs.errors()) return usage_error(e);
    all.push_back(settings_for(shown, folder, config, options, context));
  }
  if (as_json) {
    json doc = {{"version", 1}, {"settings", all}};
    std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    for (std::size_t i = 0; i < all.size(); ++i) std::cout << (i ? "\n" : "") << settings_text(all[i]);
  }
  return kExitClean;
}

}  // namespace parlint::cli
