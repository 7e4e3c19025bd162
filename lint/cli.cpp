// The command line (CLI11 lives in this one translation unit: it is slow to compile).
#include "lint/cli.h"

#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "generated/version.h"
#include "lint/engine.h"
#include "lint/lsp/language_server.h"
#include "lint/model_table.h"
#include "lint/reporters/reporter.h"
#include "lint/rule.h"
#include "lint/suggest.h"

namespace parlint {
namespace {

constexpr int kExitClean = 0, kExitFindings = 1, kExitUsage = 2, kExitInternal = 3;

struct CheckArgs {
  std::vector<std::string> paths;
  std::string format;
  std::string output;
  std::string config;
  std::vector<std::string> select, ignore, exclude;
  std::string fail_on = "warning";
  std::string cluster;
  std::optional<int> gpus_per_node, nvlink_domain;
  std::string framework = "auto";
  std::string stdin_filename = "-";
  std::string color = "auto";
  int jobs = 0;
  bool quiet = false;
  bool force_exclude = false;
  bool no_suppress = false;
  bool statistics = false;
  std::string max_file_size = "16MiB";
};

// "16MiB", "512KiB", "1GiB", "1048576": a byte count (binary units; the suffix's i and B are optional).
std::optional<std::size_t> parse_size(std::string s) {
  std::size_t unit = 1;
  auto ends = [&](std::string_view suffix) {
    if (s.size() > suffix.size() &&
        std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      s.resize(s.size() - suffix.size());
      return true;
    }
    return false;
  };
  for (auto [suffix, u] : {std::pair<const char*, std::size_t>{"kib", 1u << 10},
                           {"mib", 1u << 20},
                           {"gib", 1u << 30},
                           {"kb", 1u << 10},
                           {"mb", 1u << 20},
                           {"gb", 1u << 30},
                           {"k", 1u << 10},
                           {"m", 1u << 20},
                           {"g", 1u << 30},
                           {"b", 1}})
    if (ends(suffix)) {
      unit = u;
      break;
    }
  if (s.empty() || s.size() > 12 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::size_t n = std::stoull(s);
  if (n == 0) return std::nullopt;
  return n * unit;
}

int usage_error(const std::string& message) {
  std::cerr << "parlint: error: " << message << "\n";
  return kExitUsage;
}

std::string version_text() {
  return fmt::format("parlint {}\ngrammars: tree-sitter {}, tree-sitter-python {}, tree-sitter-bash {}\n",
                     PARLINT_VERSION, PARLINT_TS_VERSION, PARLINT_TS_PYTHON_VERSION, PARLINT_TS_BASH_VERSION);
}

int run_check_command(const CheckArgs& a, const CLI::App& cmd) {
  EngineOptions options;
  auto selection = RuleSelection::make(split_list(a.select), split_list(a.ignore));
  if (!selection) return usage_error(selection.error());
  options.rules = std::move(*selection);
  options.cli_rules = !a.select.empty() || !a.ignore.empty();
  options.cli_select = split_list(a.select);
  options.cli_ignore = split_list(a.ignore);
  options.cli_cluster = !a.cluster.empty();
  options.cli_framework = cmd.count("--framework") > 0;
  std::optional<std::string> config_fail_on;
  if (!a.config.empty()) {
    auto cfg = load_config(a.config);
    if (!cfg) return usage_error(cfg.error());
    config_fail_on = cfg->fail_on;
    options.config = std::make_shared<const Config>(std::move(*cfg));
  } else {
    ConfigResolver here;
    if (const Config* c = here.for_file("./.")) config_fail_on = c->fail_on;
    for (const auto& e : here.errors()) return usage_error(e);
  }
  if (!a.cluster.empty()) {
    options.lint.cluster = find_cluster_profile(a.cluster);
    if (!options.lint.cluster) {
      std::string names;
      for (const auto& p : builtin_cluster_profiles()) names += (names.empty() ? "" : ", ") + p.name;
      return usage_error(fmt::format("unknown cluster profile '{}' (built in: {})", a.cluster, names));
    }
  }
  options.lint.gpus_per_node = a.gpus_per_node;
  options.lint.nvlink_domain = a.nvlink_domain;
  options.lint.framework = *framework_from_id(a.framework);
  options.jobs = a.jobs;
  options.force_exclude = a.force_exclude;
  options.stdin_filename = a.stdin_filename;
  options.apply_suppressions = !a.no_suppress;
  auto max_size = parse_size(a.max_file_size);
  if (!max_size) return usage_error("invalid --max-file-size '" + a.max_file_size + "' (for example 16MiB)");
  options.max_file_size = *max_size;
  for (const auto& g : split_list(a.exclude)) {
    Glob glob(g);
    if (!glob.ok()) return usage_error("invalid --exclude pattern '" + g + "'");
    options.exclude.push_back(std::move(glob));
  }
  std::vector<std::string> paths = a.paths.empty() ? std::vector<std::string>{"."} : a.paths;

  RunResult result = run_check(paths, options);

  // In GitHub Actions the default is annotations (DESIGN §4); an explicit --format always wins.
  const char* actions = std::getenv("GITHUB_ACTIONS");
  std::string format = !a.format.empty()                                ? a.format
                       : actions && std::string_view(actions) == "true" ? "github"
                                                                        : "text";
  ReportOptions report;
  report.quiet = a.quiet;
  const char* summary_path = std::getenv("GITHUB_STEP_SUMMARY");
  report.step_summary = format == "github" && summary_path && *summary_path;
  bool tty = a.output.empty() && ::isatty(STDOUT_FILENO);
  bool no_color = std::getenv("NO_COLOR") && *std::getenv("NO_COLOR");
  report.color = a.color == "always" || (a.color == "auto" && tty && !no_color);

  std::ostringstream buffer;
  if (format == "json")
    report_json(result, report, buffer);
  else if (format == "gcc")
    report_gcc(result, report, buffer);
  else if (format == "github")
    report_github(result, report, buffer);
  else if (format == "sarif")
    report_sarif(result, report, buffer);
  else
    report_text(result, report, buffer);

  if (a.statistics) {
    // One line per rule, most frequent first: "  12  PL101  tp-crosses-nvlink-domain".
    std::map<std::string, std::pair<int, std::string>> counts;
    for (const auto& d : result.diagnostics) {
      auto& c = counts[d.diagnostic.code];
      ++c.first;
      c.second = d.diagnostic.name;
    }
    std::vector<std::pair<std::string, std::pair<int, std::string>>> rows(counts.begin(), counts.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& x, const auto& y) { return x.second.first > y.second.first; });
    if (format != "text") buffer.str("");
    for (const auto& [code, c] : rows) buffer << fmt::format("{:>5}  {}  {}\n", c.first, code, c.second);
    if (!result.suppressed.empty())
      buffer << fmt::format("{:>5}  suppressed by comments\n", result.suppressed.size());
  }
  if (a.output.empty()) {
    std::cout << buffer.str() << std::flush;
  } else {
    std::ofstream out(a.output, std::ios::binary | std::ios::trunc);
    out << buffer.str();
    if (!out) return usage_error("cannot write " + a.output);
  }
  if (report.step_summary) {
    // Appended: other steps' tools write to the same file.
    std::ofstream summary(summary_path, std::ios::binary | std::ios::app);
    summary << github_step_summary(result) << "\n";
    if (!summary) std::cerr << "parlint: warning: cannot write the job summary to " << summary_path << "\n";
  }
  bool internal = false;
  for (const auto& e : result.errors) {
    internal |= e.internal;
    std::cerr << "parlint: " << escape_control(e.path) << ": " << escape_control(e.message) << "\n";
  }
  if (internal) return kExitInternal;
  if (!result.errors.empty()) return kExitUsage;
  std::string fail_on = cmd.count("--fail-on") ? a.fail_on : config_fail_on.value_or(a.fail_on);
  if (fail_on == "never") return kExitClean;
  Severity threshold = *severity_from_name(fail_on);
  for (const auto& d : result.diagnostics)
    if (d.diagnostic.severity >= threshold) return kExitFindings;
  return kExitClean;
}

struct LayoutArgs {
  std::optional<std::int64_t> tp, pp, cp, ep, etp, vpp, gpus, nodes, seq;
  std::string model;
  bool suggest = false;
  std::string svg;
  std::optional<double> params, active_params;  // --params 70e9 [--active-params 37e9] for --suggest
  std::optional<std::int64_t> experts;          // --svg FILE: the first job's rank layout as a picture
  bool any() const { return tp || pp || cp || ep || etp || vpp || gpus || nodes || seq || !model.empty(); }
};

// A job from command-line numbers alone, every value marked as given on the command line.
RawJob layout_job(const LayoutArgs& l, const std::optional<int>& gpus_per_node) {
  RawJob job;
  job.description = "layout from the command line";
  auto add = [&](Key key, const std::optional<std::int64_t>& v, const char* flag) {
    if (!v) return;
    Fact f;
    f.key = key;
    f.value = Value::integer(*v);
    f.origin = Origin::kLauncherFlag;
    f.spelling = flag;
    job.facts.push_back(std::move(f));
  };
  add(Key::kTensorModelParallelSize, l.tp, "--tp");
  add(Key::kPipelineModelParallelSize, l.pp, "--pp");
  add(Key::kContextParallelSize, l.cp, "--cp");
  add(Key::kExpertModelParallelSize, l.ep, "--ep");
  add(Key::kExpertTensorParallelSize, l.etp, "--etp");
  add(Key::kVirtualPipelineModelParallelSize, l.vpp, "--vpp");
  add(Key::kSeqLength, l.seq, "--seq-length");
  add(Key::kNodes, l.nodes, "--nodes");
  if (gpus_per_node) add(Key::kGpusPerNode, std::optional<std::int64_t>(*gpus_per_node), "--gpus-per-node");
  if (l.gpus) {
    add(Key::kWorldSize, l.gpus, "--gpus");
    if (!l.nodes && gpus_per_node && *gpus_per_node > 0)
      add(Key::kNodes, std::optional<std::int64_t>((*l.gpus + *gpus_per_node - 1) / *gpus_per_node),
          "--gpus / --gpus-per-node");
  }
  if (!l.model.empty()) {
    if (find_recipe(l.model))
      job.recipe.name = l.model;
    else
      job.model = l.model;
  }
  return job;
}

int run_suggest(const LayoutArgs& l, const CheckArgs& a, const EngineOptions& options) {
  SuggestRequest r;
  r.model = l.model.empty() ? nullptr : find_model(l.model);
  if (!r.model && !l.model.empty()) {
    if (const RecipeInfo* recipe = find_recipe(l.model)) r.model = find_model(recipe->model);
  }
  std::string assumed;
  if (!r.model && l.params) {
    // Only a size: borrow the architecture of the built-in model closest in size (dense, or MoE when the
    // active parameters or experts are given), and say so.
    bool moe = l.active_params || l.experts;
    double best = 1e300;
    for (const auto& m : builtin_models()) {
      if (m.is_moe() != moe) continue;
      double d = std::abs(std::log(m.params_b * 1e9 / *l.params));
      if (l.active_params) d += std::abs(std::log(m.active_b * 1e9 / *l.active_params));
      if (l.experts)
        d += 0.5 * std::abs(std::log(static_cast<double>(m.experts) / static_cast<double>(*l.experts)));
      if (d < best) {
        best = d;
        r.model = &m;
      }
    }
    if (r.model) assumed = r.model->name;
  }
  if (!r.model)
    return usage_error(
        "--suggest needs --model with a built-in model (see rules/data/models.yaml), or --params");
  r.cluster = options.lint.cluster.value_or(default_cluster_profile());
  r.gpus_per_node = a.gpus_per_node.value_or(r.cluster.gpus_per_node);
  r.gpus = l.gpus ? *l.gpus : l.nodes ? *l.nodes * r.gpus_per_node : 0;
  if (r.gpus <= 0) return usage_error("--suggest needs --gpus N or --nodes N");
  r.seq_length = l.seq.value_or(0);
  auto suggestions = suggest_layouts(r, options);
  if (suggestions.empty())
    return usage_error(fmt::format("no layout of {} on {} GPUs passes every rule and fits {} GiB per GPU",
                                   r.model->name, r.gpus, r.cluster.gpu_memory_gib));
  PlanResult best = plan_from_layout(suggestions.front().job, options);
  if (a.format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& s : suggestions)
      list.push_back({{"tp", s.mesh.tp},
                      {"pp", s.mesh.pp},
                      {"cp", s.mesh.cp},
                      {"ep", s.mesh.ep},
                      {"etp", s.mesh.etp},
                      {"vpp", s.vpp ? nlohmann::ordered_json(s.vpp) : nlohmann::ordered_json(nullptr)},
                      {"sequence_parallel", s.sp},
                      {"memory_gib_per_gpu", s.memory_gib},
                      {"reasons", s.reasons}});
    std::ostringstream plan_json;
    report_plan_json(best, plan_json);
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(plan_json.str());
    doc["suggestions"] = list;
    if (!assumed.empty()) doc["assumed_architecture"] = assumed;
    std::cout << doc.dump(2) << "\n";
    return kExitClean;
  }
  for (std::size_t i = 0; i < suggestions.size(); ++i) {
    const auto& s = suggestions[i];
    std::cout << fmt::format("{} TP={} PP={}{} CP={}{} SP={} for {} on {} GPUs\n",
                             i == 0 ? "suggested:" : "alternative:", s.mesh.tp, s.mesh.pp,
                             s.vpp ? fmt::format(" VPP={}", s.vpp) : "", s.mesh.cp,
                             r.model->is_moe() ? fmt::format(" EP={} ETP={}", s.mesh.ep, s.mesh.etp) : "",
                             s.sp ? "on" : "off", r.model->name, r.gpus);
    for (const auto& reason : s.reasons) std::cout << "  - " << reason << "\n";
  }
  if (!assumed.empty())
    std::cout << "(architecture assumed from " << assumed
              << ", the built-in model closest to the given size)\n";
  std::cout << "\n";
  report_plan_text(best, std::cout);
  return kExitClean;
}

int run_plan_command(const CheckArgs& a, const LayoutArgs& layout) {
  EngineOptions options;
  options.rules = *RuleSelection::make({}, {});
  if (!a.cluster.empty()) {
    options.lint.cluster = find_cluster_profile(a.cluster);
    if (!options.lint.cluster) return usage_error(fmt::format("unknown cluster profile '{}'", a.cluster));
  }
  options.lint.gpus_per_node = a.gpus_per_node;
  options.lint.nvlink_domain = a.nvlink_domain;
  options.lint.framework = *framework_from_id(a.framework);
  options.stdin_filename = a.stdin_filename;
  if (!layout.model.empty() && !find_recipe(layout.model) && !find_model(layout.model))
    return usage_error("unknown model or recipe '" + layout.model +
                       "' (a built-in model such as llama3-70b, a "
                       "Megatron-Bridge recipe name, or a Hugging Face id)");
  if (layout.suggest) return run_suggest(layout, a, options);
  if (a.paths.empty() && !layout.any())
    return usage_error("plan needs files, or a layout such as --tp 2 --pp 2 --ep 8");
  PlanResult plan = a.paths.empty() ? plan_from_layout(layout_job(layout, a.gpus_per_node), options)
                                    : load_jobs(a.paths, options);
  if (a.format == "json")
    report_plan_json(plan, std::cout);
  else
    report_plan_text(plan, std::cout);
  for (const auto& e : plan.errors)
    std::cerr << "parlint: " << escape_control(e.path) << ": " << escape_control(e.message) << "\n";
  if (!layout.svg.empty()) {
    if (plan.jobs.empty()) return usage_error("--svg: no job to draw");
    std::string why;
    auto svg = layout_svg(*plan.jobs.front(), why);
    if (!svg) return usage_error("--svg: cannot draw the layout: " + why);
    std::ofstream out(layout.svg, std::ios::binary | std::ios::trunc);
    out << *svg;
    if (!out) return usage_error("cannot write " + layout.svg);
  }
  return plan.errors.empty() ? kExitClean : kExitUsage;
}

int run_rules_command(const std::string& format) {
  const auto& rules = RuleRegistry::instance().rules();
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rules) {
      const RuleInfo& i = r->info();
      out.push_back({{"code", i.code},
                     {"name", i.name},
                     {"severity", severity_name(i.severity)},
                     {"summary", i.summary},
                     {"docs", i.docs}});
    }
    std::cout << out.dump(2) << "\n";
  } else if (format == "markdown") {
    // The rule reference (docs/rules.md): a table, then every rule's documentation.
    std::cout << "# parlint rules\n\nGenerated by `parlint rules --format markdown`; do not edit.\n\n"
              << "| code | name | severity | summary |\n|---|---|---|---|\n";
    for (const auto& r : rules) {
      const RuleInfo& i = r->info();
      std::cout << fmt::format("| [{}](#{}-{}) | {} | {} | {} |\n", i.code, i.code, i.name, i.name,
                               severity_name(i.severity), i.summary);
    }
    for (const auto& r : rules) {
      // Rule pages use "#" for their title and "##" for sections; nest them one level down here.
      std::string docs(r->info().docs), nested;
      std::size_t pos = 0;
      bool in_code = false;
      while (pos < docs.size()) {
        std::size_t nl = docs.find('\n', pos);
        std::string line = docs.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (line.starts_with("```")) in_code = !in_code;
        if (!in_code && line.starts_with("#")) line = "#" + line;
        nested += line + "\n";
        if (nl == std::string::npos) break;
        pos = nl + 1;
      }
      std::cout << "\n" << nested;
    }
  } else {
    for (const auto& r : rules) {
      const RuleInfo& i = r->info();
      std::cout << fmt::format("{}  {:<26} {:<8} {}\n", i.code, i.name, severity_name(i.severity), i.summary);
    }
  }
  return kExitClean;
}

int run_rule_command(const std::string& which) {
  const Rule* r = RuleRegistry::instance().find(which);
  if (!r) return usage_error("unknown rule '" + which + "' (see `parlint rules`)");
  std::cout << r->info().docs;
  return kExitClean;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"parlint: a static linter for distributed-training launch configurations", "parlint"};
  app.require_subcommand(0, 1);
  bool show_version = false;
  app.add_flag("-V,--version", show_version, "print the version and the pinned grammar versions");

  CheckArgs check;
  CLI::App* check_cmd =
      app.add_subcommand("check", "lint files and folders (default \".\"); \"-\" reads stdin");
  check_cmd->add_option("paths", check.paths, "files and folders to lint");
  check_cmd->add_option("--format", check.format, "output format")
      ->check(CLI::IsMember({"text", "gcc", "json", "github", "sarif"}));
  check_cmd->add_option("-o,--output", check.output, "write the report to FILE");
  check_cmd->add_option("--config", check.config, "configuration file (default: the closest .parlint.yaml)");
  check_cmd->add_option("--select", check.select, "rules to enable: codes, names or prefixes (PL1)")
      ->allow_extra_args(false);
  check_cmd->add_option("--ignore", check.ignore, "rules to disable: codes, names or prefixes")
      ->allow_extra_args(false);
  check_cmd->add_option("--fail-on", check.fail_on, "lowest severity that makes the exit code 1")
      ->check(CLI::IsMember({"error", "warning", "info", "never"}));
  check_cmd->add_option("--cluster", check.cluster, "cluster profile (dgx-h100, gb200-nvl72, ...)");
  check_cmd->add_option("--gpus-per-node", check.gpus_per_node, "GPUs per node when a job does not say")
      ->check(CLI::Range(1, 1 << 20));
  check_cmd->add_option("--nvlink-domain", check.nvlink_domain, "GPUs that share one NVLink fabric")
      ->check(CLI::Range(1, 1 << 20));
  check_cmd->add_option("--framework", check.framework, "framework semantics to apply")
      ->check(CLI::IsMember({"auto", "megatron-lm", "megatron-bridge", "nemo1", "nemo2"}));
  check_cmd->add_option("--stdin-filename", check.stdin_filename, "file name to report for \"-\"");
  check_cmd->add_option("--exclude", check.exclude, "glob of paths to skip in folders (repeatable)")
      ->allow_extra_args(false);
  check_cmd->add_flag("--force-exclude", check.force_exclude,
                      "apply --exclude to files named explicitly too");
  check_cmd->add_option("--color", check.color, "colour the text output")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  check_cmd->add_option("-j,--jobs", check.jobs, "files linted in parallel (default: one per CPU)")
      ->check(CLI::Range(1, 1024));
  check_cmd->add_flag("-q,--quiet", check.quiet, "print findings only, no summary");
  check_cmd->add_flag("--no-suppress", check.no_suppress,
                      "ignore suppression comments (show what they hide)");
  check_cmd->add_flag("--statistics", check.statistics, "print the number of findings per rule");
  check_cmd->add_option("--max-file-size", check.max_file_size,
                        "larger files are reported and not read (default 16MiB)");

  CheckArgs plan;
  plan.format = "text";
  CLI::App* plan_cmd =
      app.add_subcommand("plan", "explain jobs: every resolved value, where it came from, derived layout");
  LayoutArgs layout;
  plan_cmd->add_option("paths", plan.paths, "files to explain (or give a layout with the options below)");
  plan_cmd->add_option("--tp", layout.tp, "tensor-parallel size")->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--pp", layout.pp, "pipeline-parallel size")->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--cp", layout.cp, "context-parallel size")->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--ep", layout.ep, "expert-parallel size")->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--etp", layout.etp, "expert tensor-parallel size")->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--vpp", layout.vpp, "virtual pipeline size")->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--gpus", layout.gpus, "world size")->check(CLI::Range(1, 1 << 24));
  plan_cmd->add_option("--nodes", layout.nodes, "node count")->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--seq-length", layout.seq, "sequence length")->check(CLI::Range(1, 1 << 30));
  plan_cmd->add_option("--model", layout.model, "built-in model, Megatron-Bridge recipe or Hugging Face id");
  plan_cmd->add_flag("--suggest", layout.suggest,
                     "suggest a layout for --model on --gpus/--nodes (and --seq-length)");
  plan_cmd->add_option("--svg", layout.svg, "write the first job's rank layout as an SVG picture to FILE");
  plan_cmd->add_option("--params", layout.params,
                       "model size in parameters, for --suggest without --model (70e9)");
  plan_cmd->add_option("--active-params", layout.active_params, "active parameters of an MoE model (37e9)");
  plan_cmd->add_option("--experts", layout.experts, "routed experts of an MoE model");
  plan_cmd->add_option("--format", plan.format, "output format")->check(CLI::IsMember({"text", "json"}));
  plan_cmd->add_option("--cluster", plan.cluster, "cluster profile");
  plan_cmd->add_option("--gpus-per-node", plan.gpus_per_node, "GPUs per node when a job does not say")
      ->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--nvlink-domain", plan.nvlink_domain, "GPUs that share one NVLink fabric")
      ->check(CLI::Range(1, 1 << 20));
  plan_cmd->add_option("--framework", plan.framework, "framework semantics to apply")
      ->check(CLI::IsMember({"auto", "megatron-lm", "megatron-bridge", "nemo1", "nemo2"}));
  plan_cmd->add_option("--stdin-filename", plan.stdin_filename, "file name to report for \"-\"");

  std::string rules_format = "text";
  CLI::App* rules_cmd = app.add_subcommand("rules", "list every rule");
  rules_cmd->add_option("--format", rules_format, "output format")
      ->check(CLI::IsMember({"text", "json", "markdown"}));

  std::string rule_name;
  CLI::App* rule_cmd = app.add_subcommand("rule", "print a rule's documentation (markdown)");
  rule_cmd->add_option("rule", rule_name, "a rule code or name")->required();

  CLI::App* lsp_cmd = app.add_subcommand("lsp", "language server on stdio (LSP 3.17)");
  int lsp_debounce_ms = 25;
  lsp_cmd->add_option("--debounce-ms", lsp_debounce_ms, "quiet time after an edit before linting")
      ->check(CLI::Range(0, 5000));
  bool lsp_stdio = true;  // editors pass --stdio; it is the only transport
  lsp_cmd->add_flag("--stdio", lsp_stdio, "use stdin and stdout (the default and only transport)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitClean : kExitUsage;
  }
  if (show_version) {
    std::cout << version_text();
    return kExitClean;
  }
  if (check_cmd->parsed()) return run_check_command(check, *check_cmd);
  if (plan_cmd->parsed()) return run_plan_command(plan, layout);
  if (rules_cmd->parsed()) return run_rules_command(rules_format);
  if (rule_cmd->parsed()) return run_rule_command(rule_name);
  if (lsp_cmd->parsed()) {
    lsp::ServerOptions options;
    options.debounce = std::chrono::milliseconds(lsp_debounce_ms);
    std::ios::sync_with_stdio(false);
    // stdout carries the protocol: only MessageWriter may touch it, under its lock. std::cin and std::cerr
    // are tied to std::cout, so every read (reader thread) and every log line (either thread) would flush
    // cout unlocked, racing a message another thread is writing (seen as a Content-Length header twice).
    std::cin.tie(nullptr);
    std::cerr.tie(nullptr);
    return lsp::run_language_server(std::cin, std::cout, options);
  }
  std::cerr << app.help();
  return kExitUsage;
}

}  // namespace parlint
