#pragma once
// The subcommands behind the command line, one file each; lint/cli/cli.cpp declares their options (once
// for the options check and plan share) and dispatches. Only that file sees CLI11.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/engine/engine.h"
#include "lint/resolve/layout_job.h"

namespace parlint::cli {

constexpr int kExitClean = 0, kExitFindings = 1, kExitUsage = 2, kExitInternal = 3;

// Prints "parlint: error: MESSAGE" and returns the usage exit code.
int usage_error(const std::string& message);

// "16MiB", "512KiB", "1GiB", "1048576": a byte count (binary units; the suffix's i and B are optional).
std::optional<std::size_t> parse_size(std::string s);

// How jobs are read, the same for check and plan.
struct JobOptions {
  std::string cluster;
  std::optional<int> gpus_per_node, nvlink_domain;
  std::string framework = "auto";
  std::string stdin_filename = "-";
  bool framework_given = false;  // --framework was on the command line (it then beats configuration)
};
// Applies them to `options`; an unknown cluster profile is a usage error naming the built-in ones.
std::optional<std::string> apply_job_options(const JobOptions& job, EngineOptions& options);

struct CheckArgs {
  std::vector<std::string> paths;
  JobOptions job;
  std::string format;
  std::string output;
  std::string config;
  std::vector<std::string> select, ignore, exclude;
  std::string fail_on = "warning";
  bool fail_on_given = false;
  std::string color = "auto";
  int jobs = 0;
  bool quiet = false;
  bool force_exclude = false;
  bool no_suppress = false;
  bool statistics = false;
  bool fix = false, unsafe_fixes = false, diff = false, show_fixes = false;
  std::string max_file_size = "16MiB";
  bool show_settings = false;  // print the settings each path is linted with, lint nothing
  bool add_noqa = false;       // add a suppression comment for every finding
};
int run_check_command(const CheckArgs& args);

// --show-settings: what a run decided once, for every file (the threshold of the exit code).
struct SettingsContext {
  std::string fail_on;
  std::string fail_on_from;  // "command line", "configuration" or "default"
};
int run_show_settings(const std::vector<std::string>& paths, const EngineOptions& options,
                      const SettingsContext& context, bool as_json);
// --add-noqa: suppression comments for the findings of `paths`; prints how many were added.
int run_add_noqa(const std::vector<std::string>& paths, const EngineOptions& options);

struct LayoutArgs {
  LayoutSpec spec;  // --tp ... --model: the layout given by numbers (gpus_per_node comes from JobOptions)
  bool suggest = false;
  bool smoke_test = false;                      // --smoke-test: the short run that proves each job's layout
  std::string svg;                              // --svg FILE: a job's rank layout as a picture
  std::string job;                              // --job N|NAME: which job to explain and draw
  std::optional<double> params, active_params;  // --params 70e9 [--active-params 37e9] for --suggest
  std::optional<std::int64_t> experts;
  bool any() const {
    const LayoutSpec& s = spec;
    return s.tp || s.pp || s.cp || s.ep || s.etp || s.vpp || s.gpus || s.nodes || s.seq || s.mbs || s.gbs ||
           s.sequence_parallel || s.distributed_optimizer || !s.recompute.empty() || !s.model.empty();
  }
};
struct PlanArgs {
  std::vector<std::string> paths;
  JobOptions job;
  std::string format = "text";
  LayoutArgs layout;
};
int run_plan_command(const PlanArgs& args);

int run_rules_command(const std::string& format);
int run_clusters_command(const std::string& format);
int run_rule_command(const std::string& which);

}  // namespace parlint::cli
