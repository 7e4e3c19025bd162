// parlint check: lint files and folders, report in the chosen format, exit with the findings' verdict.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "lint/cli/commands.h"
#include "lint/engine/config.h"
#include "lint/reporters/reporter.h"

namespace parlint::cli {
namespace {

// Inputs that could not be read (or fixed files not written), on stderr; the exit code they call for.
std::optional<int> report_input_errors(const RunResult& result) {
  bool internal = false;
  for (const auto& e : result.errors) {
    internal |= e.internal;
    std::cerr << "parlint: " << escape_control(e.path) << ": " << escape_control(e.message) << "\n";
  }
  if (internal) return kExitInternal;
  if (!result.errors.empty()) return kExitUsage;
  return std::nullopt;
}

// --diff: the fixes as one unified diff, nothing written; exit 1 when there is a fix (DESIGN §4).
int report_diff(const RunResult& result, const std::string& output) {
  std::string diff;
  std::size_t fixed = 0;
  for (const auto& f : result.fixes) {
    // patch(1) skips text before a file's "---" line: it says why a file that was only read changes.
    if (!f.edited_for.empty() && f.fixed != f.original)
      diff += fmt::format("parlint: {} is edited for {}, which reads its values\n", f.path, f.edited_for);
    diff += unified_diff(f.path, f.original, f.fixed);
    fixed += f.applied.size();
  }
  if (output.empty()) {
    std::cout << diff << std::flush;
  } else {
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    out << diff;
    if (!out) return usage_error("cannot write " + output);
  }
  std::cerr << fmt::format("Would fix {} finding{}.\n", fixed, fixed == 1 ? "" : "s");
  if (auto code = report_input_errors(result)) return *code;
  return fixed > 0 ? kExitFindings : kExitClean;
}

}  // namespace

int run_check_command(const CheckArgs& a) {
  EngineOptions options;
  auto selection = RuleSelection::make(split_list(a.select), split_list(a.ignore));
  if (!selection) return usage_error(selection.error());
  options.rules = std::move(*selection);
  options.cli_rules = !a.select.empty() || !a.ignore.empty();
  options.cli_select = split_list(a.select);
  options.cli_ignore = split_list(a.ignore);
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
  if (auto error = apply_job_options(a.job, options)) return usage_error(*error);
  options.jobs = a.jobs;
  options.force_exclude = a.force_exclude;
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
  options.fix = a.diff ? FixMode::kDiff : a.fix ? FixMode::kApply : FixMode::kOff;
  options.unsafe_fixes = a.unsafe_fixes;
  if (a.show_settings) {
    bool fail_on_configured = !a.fail_on_given && config_fail_on;
    SettingsContext context{a.fail_on_given ? a.fail_on : config_fail_on.value_or(a.fail_on),
                            a.fail_on_given      ? "command line"
                            : fail_on_configured ? "configuration"
                                                 : "default"};
    return run_show_settings(paths, options, context, a.format == "json");
  }
  if (a.add_noqa) {
    if (options.fix != FixMode::kOff)
      return usage_error("--add-noqa cannot be combined with --fix or --diff");
    if (std::find(paths.begin(), paths.end(), "-") != paths.end())
      return usage_error("--add-noqa edits files in place and cannot edit standard input; name the files");
    return run_add_noqa(paths, options);
  }

  RunResult result = run_check(paths, options);
  for (const auto& f : result.fixes)
    for (const auto& d : f.dropped)
      std::cerr << fmt::format("parlint: {}:{}: the fix for {} was not applied: {}\n", escape_control(f.path),
                               d.at.range.start.line, d.code, d.why);
  if (options.fix == FixMode::kDiff) return report_diff(result, a.output);

  // In GitHub Actions the default is annotations (DESIGN §4); an explicit --format always wins.
  const char* actions = std::getenv("GITHUB_ACTIONS");
  std::string format = !a.format.empty()                                ? a.format
                       : actions && std::string_view(actions) == "true" ? "github"
                                                                        : "text";
  ReportOptions report;
  report.quiet = a.quiet;
  report.unsafe_fixes = a.unsafe_fixes;
  report.show_fixes = a.show_fixes;
  report.statistics = a.statistics;
  const char* summary_path = std::getenv("GITHUB_STEP_SUMMARY");
  report.step_summary = format == "github" && summary_path && *summary_path;
  bool tty = a.output.empty() && ::isatty(STDOUT_FILENO);
  bool no_color = std::getenv("NO_COLOR") && *std::getenv("NO_COLOR");
  report.color = a.color == "always" || (a.color == "auto" && tty && !no_color);

  std::ostringstream buffer;
  const ReportFormat& chosen = *find_report_format(format);  // --format allows only their names
  // The text report with --statistics is the table alone, as ruff prints it: the counts are what was
  // asked for. The other formats keep their report (a machine reads it) and add the counts to it or to
  // stderr.
  if (a.statistics && chosen.statistics == ReportFormat::Statistics::kAfterReport)
    buffer << statistics_text(result);
  else
    chosen.write(result, report, buffer);
  if (a.statistics && chosen.statistics == ReportFormat::Statistics::kStderr)
    std::cerr << statistics_text(result);
  // `-` with --fix: the fixed text is the output, and the report goes to stderr (as ruff does).
  const FileFix* fixed_stdin = nullptr;
  for (const auto& f : result.fixes)
    if (f.from_stdin) fixed_stdin = &f;
  bool stdin_fixed = options.fix == FixMode::kApply &&
                     std::any_of(a.paths.begin(), a.paths.end(), [](const auto& p) { return p == "-"; });
  if (stdin_fixed) {
    if (fixed_stdin) std::cout << fixed_stdin->fixed << std::flush;
  }
  if (a.show_fixes && format != "text") std::cerr << fixes_listing(result);
  if (stdin_fixed && a.output.empty()) {
    std::cerr << buffer.view() << std::flush;
  } else if (a.output.empty()) {
    std::cout << buffer.view() << std::flush;
  } else {
    std::ofstream out(a.output, std::ios::binary | std::ios::trunc);
    out << buffer.view();
    if (!out) return usage_error("cannot write " + a.output);
  }
  if (report.step_summary) {
    // Appended: other steps' tools write to the same file.
    std::ofstream summary(summary_path, std::ios::binary | std::ios::app);
    summary << github_step_summary(result) << "\n";
    if (!summary) std::cerr << "parlint: warning: cannot write the job summary to " << summary_path << "\n";
  }
  if (auto code = report_input_errors(result)) return *code;
  std::string fail_on = a.fail_on_given ? a.fail_on : config_fail_on.value_or(a.fail_on);
  if (fail_on == "never") return kExitClean;
  Severity threshold = *severity_from_name(fail_on);
  for (const auto& d : result.diagnostics)
    if (d.diagnostic.severity >= threshold) return kExitFindings;
  return kExitClean;
}

}  // namespace parlint::cli
