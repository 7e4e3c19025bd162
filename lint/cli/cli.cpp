// The command line: every option declared here once (CLI11 lives in this one translation unit: it is
// slow to compile), each subcommand run by its own file (lint/cli/*_command.cpp).
#include "lint/cli/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "generated/version.h"
#include "lint/cli/commands.h"
#include "lint/lsp/language_server.h"
#include "lint/model/closest_name.h"
#include "lint/reporters/reporter.h"

namespace parlint {
namespace {

using namespace cli;

std::string version_text() {
  return fmt::format("parlint {}\ngrammars: tree-sitter {}, tree-sitter-python {}, tree-sitter-bash {}\n",
                     PARLINT_VERSION, PARLINT_TS_VERSION, PARLINT_TS_PYTHON_VERSION, PARLINT_TS_BASH_VERSION);
}

// One of `names`, checked as CLI11's IsMember would, with the name the user most likely meant: a
// misspelling's nearest name, or the format another linter calls it by (ruff's `concise` is one line a
// finding, parlint's `gcc`).
CLI::Validator choice(std::vector<std::string> names) {
  static const std::vector<std::pair<std::string, std::string>> kOtherLintersNames = {
      {"concise", "gcc"},  {"pylint", "gcc"},        {"full", "text"},
      {"grouped", "text"}, {"pretty", "text"},       {"json-lines", "json"},
      {"jsonl", "json"},   {"checkstyle", "gitlab"}, {"annotations", "github"}};
  std::string listed, set;  // "a, b, c" for the message; "{a,b,c}" in --help, as IsMember writes it
  for (const auto& n : names) {
    listed += (listed.empty() ? "" : ", ") + n;
    set += (set.empty() ? "{" : ",") + n;
  }
  return CLI::Validator(
      [names, listed](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        std::string hint = did_you_mean(value, names);
        for (const auto& [other, ours] : kOtherLintersNames)
          if (hint.empty() && value == other && std::find(names.begin(), names.end(), ours) != names.end())
            hint = " (did you mean '" + ours + "'?)";
        return "'" + value + "' is not one of " + listed + hint;
      },
      set + "}");
}

// The options check and plan share: how jobs are read.
void add_job_options(CLI::App* cmd, JobOptions& job) {
  cmd->add_option("--cluster", job.cluster, "cluster profile (dgx-h100, gb200-nvl72, ...)");
  cmd->add_option("--gpus-per-node", job.gpus_per_node, "GPUs per node when a job does not say")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--nvlink-domain", job.nvlink_domain, "GPUs that share one NVLink fabric")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--framework", job.framework, "framework semantics to apply")
      ->check(choice({"auto", "megatron-lm", "megatron-bridge", "nemo1", "nemo2"}));
  cmd->add_option("--stdin-filename", job.stdin_filename, "file name to report for \"-\"");
}

void add_check_options(CLI::App* cmd, CheckArgs& check) {
  cmd->add_option("paths", check.paths, "files and folders to lint");
  std::vector<std::string> formats;
  for (const ReportFormat& f : report_formats()) formats.emplace_back(f.name);
  cmd->add_option("--format", check.format, "output format")->check(choice(formats));
  cmd->add_option("-o,--output", check.output, "write the report to FILE");
  cmd->add_option(
      "--config", check.config,
      "configuration file (default: the closest .parlint.yaml, or pyproject.toml with [tool.parlint])");
  cmd->add_option("--select", check.select, "rules to enable: codes, names or prefixes (PL1)")
      ->allow_extra_args(false);
  cmd->add_option("--ignore", check.ignore, "rules to disable: codes, names or prefixes")
      ->allow_extra_args(false);
  cmd->add_option("--fail-on", check.fail_on, "lowest severity that makes the exit code 1")
      ->check(choice({"error", "warning", "info", "never"}));
  add_job_options(cmd, check.job);
  cmd->add_option("--exclude", check.exclude, "glob of paths to skip in folders (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--force-exclude", check.force_exclude, "apply --exclude to files named explicitly too");
  cmd->add_option("--color", check.color, "colour the text output")
      ->check(choice({"auto", "always", "never"}));
  cmd->add_option("-j,--jobs", check.jobs, "files linted in parallel (default: one per CPU)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("-q,--quiet", check.quiet, "print findings only, no summary");
  cmd->add_flag("--no-suppress", check.no_suppress, "ignore suppression comments (show what they hide)");
  cmd->add_flag(
      "--statistics", check.statistics,
      "count the findings per rule: the table alone in text, inside JSON and SARIF, on stderr otherwise");
  cmd->add_flag("--fix", check.fix, "apply the safe fixes in place and report what remains");
  cmd->add_flag("--unsafe-fixes", check.unsafe_fixes,
                "with --fix or --diff, apply the unsafe fixes too (they change the layout or allocation)");
  cmd->add_flag("--diff", check.diff, "print the fixes as a unified diff and change nothing");
  cmd->add_flag("--show-fixes", check.show_fixes, "list the findings --fix fixed");
  cmd->add_option("--max-file-size", check.max_file_size,
                  "larger files are reported and not read (default 16MiB)");
  cmd->add_flag(
      "--show-settings", check.show_settings,
      "print the settings each PATH is linted with (configuration file, rules, severities, "
      "fail-on, cluster profile, ...) and where each came from; lint nothing (JSON with --format json)");
  cmd->add_flag("--add-noqa", check.add_noqa,
                "add a suppression comment (# parlint: ignore[CODE] -- TODO: reason) for every finding, "
                "codes of one line together, and print how many were added");
}

void add_plan_options(CLI::App* cmd, PlanArgs& plan) {
  LayoutArgs& layout = plan.layout;
  cmd->add_option("paths", plan.paths, "files to explain (or give a layout with the options below)");
  cmd->add_option("--tp", layout.spec.tp, "tensor-parallel size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--pp", layout.spec.pp, "pipeline-parallel size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--cp", layout.spec.cp, "context-parallel size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--ep", layout.spec.ep, "expert-parallel size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--etp", layout.spec.etp, "expert tensor-parallel size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--vpp", layout.spec.vpp, "virtual pipeline size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--gpus", layout.spec.gpus, "world size")->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--nodes", layout.spec.nodes, "node count")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--seq-length", layout.spec.seq, "sequence length")->check(CLI::Range(1, 1 << 30));
  cmd->add_option("--mbs", layout.spec.mbs, "micro-batch size (the memory estimate assumes 1 without it)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--gbs", layout.spec.gbs, "global batch size")->check(CLI::Range(1, 1 << 24));
  auto* sp = cmd->add_flag_callback(
      "--sequence-parallel", [&layout] { layout.spec.sequence_parallel = true; }, "sequence parallelism on");
  cmd->add_flag_callback(
         "--no-sequence-parallel", [&layout] { layout.spec.sequence_parallel = false; },
         "sequence parallelism off")
      ->excludes(sp);
  auto* distopt = cmd->add_flag_callback(
      "--distributed-optimizer", [&layout] { layout.spec.distributed_optimizer = true; },
      "the distributed optimizer on (without it, the memory estimate assumes the framework's default)");
  cmd->add_flag_callback(
         "--no-distributed-optimizer", [&layout] { layout.spec.distributed_optimizer = false; },
         "the distributed optimizer off")
      ->excludes(distopt);
  cmd->add_option("--recompute", layout.spec.recompute, "activation recompute: selective, full or none")
      ->check(CLI::IsMember({"selective", "full", "none"}));
  cmd->add_option("--model", layout.spec.model, "built-in model, Megatron-Bridge recipe or Hugging Face id");
  cmd->add_flag("--suggest", layout.suggest,
                "suggest a layout for --model on --gpus/--nodes (and --seq-length)");
  cmd->add_flag("--smoke-test", layout.smoke_test,
                "print the short run that proves each job's layout initialises (a command check accepts)");
  cmd->add_option("--svg", layout.svg, "write a job's rank layout as an SVG picture to FILE");
  cmd->add_option("--job", layout.job, "the job to explain and draw: its number (1, 2, ...) or its name");
  cmd->add_option("--params", layout.params,
                  "model size in parameters, for --suggest without --model (70e9)");
  cmd->add_option("--active-params", layout.active_params, "active parameters of an MoE model (37e9)");
  cmd->add_option("--experts", layout.experts, "routed experts of an MoE model");
  cmd->add_option("--format", plan.format, "output format")->check(choice({"text", "json"}));
  add_job_options(cmd, plan.job);
}

// A word the command line did not expect, said as what it most likely is: a misspelt command (`chek`) or
// option (`--selct`), with the name meant. nullopt: CLI11's own message says it best.
std::optional<std::string> explain_mistake(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (const auto* invalid = dynamic_cast<const CLI::ValidationError*>(&e))
    return std::string(invalid->what());
  if (!dynamic_cast<const CLI::ExtrasError*>(&e) || argc < 2) return std::nullopt;
  std::vector<std::string> commands;
  CLI::App* command = nullptr;
  for (CLI::App* sub : app.get_subcommands({})) {
    commands.push_back(sub->get_name());
    if (sub->get_name() == argv[1]) command = sub;
  }
  std::string first = argv[1];
  if (!command && !first.starts_with("-"))
    return "unknown command '" + first + "'" + did_you_mean(first, commands) +
           "; the commands are check, plan, rules, rule, clusters, lsp (parlint --help)";
  CLI::App& scope = command ? *command : app;
  std::vector<std::string> options;
  for (const CLI::Option* o : scope.get_options()) {
    for (const auto& n : o->get_lnames()) options.push_back("--" + n);
    for (const auto& n : o->get_snames()) options.push_back("-" + n);
  }
  for (int i = command ? 2 : 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") break;
    if (!word.starts_with("-") || word == "-") continue;
    std::string name = word.substr(0, word.find('='));
    if (std::find(options.begin(), options.end(), name) != options.end()) continue;
    std::string where = command ? "parlint " + command->get_name() : "parlint";
    return "unknown option '" + name + "' for " + where + did_you_mean(name, options) + " (" + where +
           " --help lists them)";
  }
  return std::nullopt;
}

int run_lsp(int debounce_ms) {
  lsp::ServerOptions options;
  options.debounce = std::chrono::milliseconds(debounce_ms);
  // One worker lints every open document in turn: a document may hold it for a quarter of the command
  // line's work (under 3 s here on the costliest shapes), so it never stalls the others for longer (PL903
  // says what it left unread); the same text gets the same diagnostics whatever else the machine does.
  options.engine.file_budget =
      BudgetLimits::from_environment({.work = 100'000'000, .time = std::chrono::milliseconds(10'000)});
  std::ios::sync_with_stdio(false);
  // stdout carries the protocol: only MessageWriter may touch it, under its lock. std::cin and std::cerr
  // are tied to std::cout, so every read (reader thread) and every log line (either thread) would flush
  // cout unlocked, racing a message another thread is writing (seen as a Content-Length header twice).
  std::cin.tie(nullptr);
  std::cerr.tie(nullptr);
  return lsp::run_language_server(std::cin, std::cout, options);
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"parlint: a static linter for distributed-training launch configurations", "parlint"};
  app.require_subcommand(0, 1);
  bool show_version = false;
  app.add_flag("-V,--version", show_version, "print the version and the pinned grammar versions");

  // check's and plan's options are declared when their subcommand is about to parse its arguments: CLI11
  // builds each option eagerly, and declaring both sets cost every run 0.85 M instructions (1.37 M in all
  // for `parlint --version`). The other subcommands have an option or two.
  CheckArgs check;
  CLI::App* check_cmd =
      app.add_subcommand("check", "lint files and folders (default \".\"); \"-\" reads stdin");
  check_cmd->preparse_callback([check_cmd, &check](std::size_t) { add_check_options(check_cmd, check); });

  PlanArgs plan;
  CLI::App* plan_cmd =
      app.add_subcommand("plan", "explain jobs: every resolved value, where it came from, derived layout");
  plan_cmd->preparse_callback([plan_cmd, &plan](std::size_t) { add_plan_options(plan_cmd, plan); });

  std::string rules_format = "text";
  CLI::App* rules_cmd = app.add_subcommand("rules", "list every rule");
  rules_cmd->add_option("--format", rules_format, "output format")
      ->check(choice({"text", "json", "markdown"}));

  std::string clusters_format = "text";
  CLI::App* clusters_cmd =
      app.add_subcommand("clusters", "list the built-in cluster profiles (--cluster NAME)");
  clusters_cmd->add_option("--format", clusters_format, "output format")->check(choice({"text", "json"}));

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
    if (auto mistake = explain_mistake(app, e, argc, argv)) {
      usage_error(*mistake);
      return kExitUsage;
    }
    int code = app.exit(e);
    return code == 0 ? kExitClean : kExitUsage;
  }
  if (show_version) {
    std::cout << version_text();
    return kExitClean;
  }
  if (check_cmd->parsed()) {
    check.fail_on_given = check_cmd->count("--fail-on") > 0;
    check.job.framework_given = check_cmd->count("--framework") > 0;
    return run_check_command(check);
  }
  if (plan_cmd->parsed()) {
    plan.job.framework_given = plan_cmd->count("--framework") > 0;
    return run_plan_command(plan);
  }
  if (rules_cmd->parsed()) return run_rules_command(rules_format);
  if (clusters_cmd->parsed()) return run_clusters_command(clusters_format);
  if (rule_cmd->parsed()) return run_rule_command(rule_name);
  if (lsp_cmd->parsed()) return run_lsp(lsp_debounce_ms);
  std::cerr << app.help();
  return kExitUsage;
}

}  // namespace parlint
