#pragma once
// The engine: walk paths, read and parse files, resolve jobs, run the selected rules, and collect
// diagnostics in a deterministic order. Files are processed in parallel.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lint/engine/config.h"
#include "lint/engine/fix/fixer.h"
#include "lint/engine/glob.h"
#include "lint/engine/rule_selection.h"
#include "lint/engine/smoke_test.h"
#include "lint/engine/suppressions.h"
#include "lint/model/source_files.h"
#include "lint/model/work_budget.h"
#include "lint/resolve/job.h"
#include "lint/resolve/referenced_files.h"
#include "parsers/python/python_module_cache.h"
#include "rules/api/diagnostic.h"

namespace parlint {

class TreeCache;
class UncalledFunctionMemo;

// --fix writes the fixed files, --diff only computes them (DESIGN §4).
enum class FixMode { kOff, kApply, kDiff };

struct EngineOptions {
  LintOptions lint;
  RuleSelection rules;
  int jobs = 0;  // 0 = one per hardware thread
  std::vector<Glob> exclude;
  bool force_exclude = false;  // apply `exclude` to files named on the command line too
  std::string stdin_filename = "-";
  std::optional<std::string> framework_source;  // configured Megatron-Bridge source (else looked for)
  std::size_t max_file_size = 16u << 20;        // inputs and every file they refer to
  // What linting one file may cost (its parse, and the files it refers to); PL903 says what was left.
  BudgetLimits file_budget = BudgetLimits::from_environment({});
  // The language server's open buffers, read in place of the disk copies (and the paths read recorded).
  SourceOverlay* overlay = nullptr;
  // The language server's parse trees of the buffers it lints, each reparsed from its last tree after an
  // edit. Not synchronized: only one thread may lint with it.
  TreeCache* trees = nullptr;
  // With `trees`: the walks of each shell buffer's never-called functions from its last lints, replayed
  // where a fresh walk would do the same (parsers/shell/uncalled_function_memo.h). Not synchronized either.
  UncalledFunctionMemo* uncalled_functions = nullptr;
  // The referenced files (configs, recipes, entry scripts) the run parsed already, shared by its threads;
  // set by run_check for a run over files on disk, never with an overlay.
  ReferencedFiles* referenced_files = nullptr;
  // What the disk said of each path looked up, for the run's threads; set with referenced_files.
  PathCache* paths = nullptr;
  // The local modules Python files import, read and parsed once for the run's threads; set with
  // referenced_files.
  PythonModuleCache* python_modules = nullptr;
  bool apply_suppressions = true;  // --no-suppress shows what suppression comments hide
  // Configuration: --config (fixed) or discovery of the closest .parlint.yaml. Command-line choices win:
  // the flags below say which ones were given.
  std::shared_ptr<const Config> config;
  bool discover_config = true;
  bool cli_rules = false, cli_cluster = false, cli_framework = false;
  std::vector<std::string> cli_select, cli_ignore;
  std::map<std::string, Severity> severity;  // per-rule severity from configuration
  FixMode fix = FixMode::kOff;
  bool unsafe_fixes = false;  // --unsafe-fixes: unsafe fixes are applied too
};

struct InputError {
  std::string path;
  std::string message;
  bool internal = false;  // a bug in parlint rather than a problem with the input (exit code 3)
};

struct CheckedDiagnostic {
  Diagnostic diagnostic;
  std::string source_line;  // the text of the primary line (secrets masked), for snippets and fingerprints
  std::optional<SuppressedBy> suppressed_by;  // set in RunResult::suppressed
};

// What --fix or --diff did to one input.
struct FileFix {
  std::string path;
  bool from_stdin = false;
  std::string original, fixed;
  std::vector<AppliedFix> applied;
  std::vector<DroppedFix> dropped;
  bool written = false;  // --fix replaced the file on disk
  // A file the linted one reads (a sourced params.sh), edited because the value is written there: the
  // input whose findings it fixes.
  std::string edited_for;
};

struct RunResult {
  std::vector<CheckedDiagnostic> diagnostics;  // sorted by path, line, column, code
  std::vector<CheckedDiagnostic> suppressed;   // hidden by suppression comments (for SARIF and --statistics)
  std::vector<InputError> errors;              // inputs that could not be read (or fixed files not written)
  std::vector<FileFix> fixes;                  // with --fix or --diff: the inputs a fix changed
  int files_checked = 0;
};

RunResult run_check(const std::vector<std::string>& paths, const EngineOptions& options);

// The options one file is linted with: the configuration that applies to it (`config`, nullptr for none)
// below the command line's own choices. --show-settings prints them.
EngineOptions options_for_config(const std::string& path, const Config* config, const EngineOptions& base);

// The resolved jobs of the given paths, for `parlint plan`.
struct PlanResult {
  std::vector<std::unique_ptr<Job>> jobs;
  std::vector<std::vector<Diagnostic>> findings;  // what `check` reports for each job
  std::vector<InputError> errors;
  // Per job, when asked for (plan --smoke-test, and plan's JSON): the short run that proves its layout.
  std::vector<SmokeTestResult> smoke_tests;
};
PlanResult load_jobs(const std::vector<std::string>& paths, const EngineOptions& options);
// A job described on the command line alone (parlint plan --tp 2 --pp 2 --ep 8 ...).
PlanResult plan_from_layout(const RawJob& raw, const EngineOptions& options);

// An editor buffer: linted (or explained) with the configuration that applies to its path.
RunResult check_document(const std::string& path, std::string text, const EngineOptions& options);
PlanResult plan_document(const std::string& path, std::string text, const EngineOptions& options);

// An editor buffer with its fixes applied (the safe ones, or all with options.unsafe_fixes), for the
// language server's source.fixAll.
FixedText fix_document(const std::string& path, std::string text, const EngineOptions& options);

// Lints one in-memory file with the options as given.
RunResult check_text(const std::string& path, std::string text, const EngineOptions& options);

}  // namespace parlint
