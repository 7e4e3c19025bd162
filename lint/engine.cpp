#include "lint/engine.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "lint/file_discovery.h"
#include "lint/file_writer.h"
#include "lint/fix_resolution.h"
#include "lint/pipeline.h"
#include "lint/source_text.h"
#include "lint/suppressions.h"
#include "parsers/source_files.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

// The options for one file: its configuration below the command line's own choices.
EngineOptions options_for(const Input& input, const EngineOptions& base) {
  const Config* c = input.config;
  if (!c) return base;
  EngineOptions o = base;
  std::vector<std::string> select = base.cli_rules ? base.cli_select : c->select;
  std::vector<std::string> ignore = base.cli_rules ? base.cli_ignore : c->ignore;
  for (const auto& code : c->ignored_for(input.path)) ignore.push_back(code);
  if (auto sel = RuleSelection::make(select, ignore)) o.rules = std::move(*sel);
  if (!base.cli_cluster && c->cluster) o.lint.cluster = c->cluster;
  if (!base.cli_framework && c->framework) o.lint.framework = *c->framework;
  if (c->framework_source) o.framework_source = c->framework_source;
  if (c->megatron_core_version) o.lint.megatron_core = c->megatron_core_version;
  o.severity = c->severity;
  return o;
}

struct FileOutcome {
  std::vector<CheckedDiagnostic> diagnostics;
  std::vector<CheckedDiagnostic> suppressed;
  std::optional<InputError> error;
  std::optional<FileFix> fix;
  std::size_t syntax_errors = 0;
  bool checked = false;
};

// "(this holds for a() (line 3), b() (line 9) and 4 more, which inherit the setting)" after the message.
void name_inheriting_jobs(Diagnostic& d) {
  if (d.holds_for.empty()) return;
  if (d.message_base == 0) d.message_base = d.message.size();
  d.message.resize(d.message_base);
  std::erase_if(d.related, [](const RelatedLocation& r) { return r.message == "a job this holds for"; });
  constexpr std::size_t kNamed = 3;
  std::size_t shown = std::min(d.holds_for.size(), kNamed);
  std::string names;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& [name, at] = d.holds_for[i];
    if (i > 0) names += (i + 1 == shown && d.holds_for.size() == shown) ? " and " : ", ";
    names += fmt::format("{} (line {}{})", name, at.range.start.line,
                         at.path == d.location.path ? "" : " of " + at.path);
    d.related.push_back({at, "a job this holds for"});
  }
  if (d.holds_for.size() > kNamed) names += fmt::format(" and {} more", d.holds_for.size() - kNamed);
  d.message += fmt::format(" (this holds for {}, which {} the setting)", names,
                           d.holds_for.size() == 1 ? "inherits" : "inherit");
}

Diagnostic& diagnostic_of(Diagnostic& d) {
  return d;
}
Diagnostic& diagnostic_of(CheckedDiagnostic& c) {
  return c.diagnostic;
}

// The message before the "(this holds for ...)" that name_inheriting_jobs adds.
std::string base_message(const Diagnostic& d) {
  return d.message_base ? d.message.substr(0, d.message_base) : d.message;
}

// One finding at one setting that holds for several recipes inheriting it is reported once, naming them;
// per file, and again over the whole run (a helper file inherited by recipes in several files).
template <typename T>
void merge_inherited(std::vector<T>& found) {
  using Key = std::tuple<std::string, std::string, SourceRange, std::string>;
  auto key_of = [](const Diagnostic& d) {
    return Key{d.code, d.location.path, d.location.range, base_message(d)};
  };
  std::set<Key> own;  // reported by the job that writes the setting: that one report says it all
  for (auto& item : found)
    if (diagnostic_of(item).holds_for.empty()) own.insert(key_of(diagnostic_of(item)));
  std::vector<T> out;
  std::map<Key, std::size_t> first;
  for (auto& item : found) {
    Diagnostic& d = diagnostic_of(item);
    if (d.holds_for.empty()) {
      out.push_back(std::move(item));
      continue;
    }
    Key key = key_of(d);
    if (own.count(key)) continue;
    auto [it, fresh] = first.emplace(key, out.size());
    if (fresh) {
      out.push_back(std::move(item));
      continue;
    }
    auto& into = diagnostic_of(out[it->second]).holds_for;
    for (auto& h : d.holds_for)
      if (std::none_of(into.begin(), into.end(),
                       [&](const auto& x) { return x.first == h.first && x.second.path == h.second.path; }))
        into.push_back(std::move(h));
  }
  for (auto& item : out) name_inheriting_jobs(diagnostic_of(item));
  found = std::move(out);
}

FileOutcome lint_text(const std::string& path, std::string text, const EngineOptions& options) {
  FileOutcome outcome;
  outcome.checked = true;
  FileReader reader(options.max_file_size, options.overlay);
  AnalysedFile analysed = analyse_file(path, std::move(text), reader, options);
  const SourceText& source = *analysed.source;
  outcome.syntax_errors = analysed.parsed.errors.size();
  Location file_start{path, {{1, 1}, {1, 1}}};
  std::vector<Diagnostic> found = std::move(analysed.file_findings);
  for (auto& job_found : analysed.job_findings)
    std::move(job_found.begin(), job_found.end(), std::back_inserter(found));
  merge_inherited(found);
  std::map<std::string, std::unique_ptr<SourceText>> others;  // files findings point into (cross-file)
  auto source_of = [&](const std::string& p) -> const SourceText* {
    if (p == path) return &source;
    auto it = others.find(p);
    if (it == others.end()) {
      auto other = reader.read(p);  // an open editor buffer wins
      it = others.emplace(p, other ? std::make_unique<SourceText>(std::move(*other)) : nullptr).first;
    }
    return it->second.get();
  };
  auto line_of = [&](const Location& loc) -> std::string {
    const SourceText* s = source_of(loc.path);
    return s ? std::string(s->line(loc.range.start.line)) : std::string();
  };
  // The primary line with a secret itself masked: snippets reach people and CI logs.
  auto masked_line_of = [&](const Diagnostic& d) {
    std::string line = line_of(d.location);
    if (d.sensitive && !line.empty()) {
      std::size_t b = column_to_byte(line, d.location.range.start.column);
      std::size_t e = d.location.range.end.line == d.location.range.start.line
                          ? column_to_byte(line, d.location.range.end.column)
                          : line.size();
      for (std::size_t i = b; i < e && i < line.size(); ++i) line[i] = '*';
    }
    return line;
  };

  // Suppression comments apply at a finding's primary location, in whichever file that is.
  if (options.apply_suppressions) {
    std::map<std::string, std::unique_ptr<Suppressions>> comments;
    auto suppressions_of = [&](const std::string& p) -> Suppressions* {
      auto it = comments.find(p);
      if (it == comments.end()) {
        const SourceText* s = source_of(p);
        it = comments.emplace(p, s ? std::make_unique<Suppressions>(p, *s) : nullptr).first;
      }
      return it->second.get();
    };
    std::vector<Diagnostic> kept;
    for (auto& d : found) {
      Suppressions* s = suppressions_of(d.location.path);
      if (auto by = s ? s->suppresses(d) : std::nullopt) {
        std::string line = masked_line_of(d);
        outcome.suppressed.push_back({std::move(d), std::move(line), std::move(by)});
      } else {
        kept.push_back(std::move(d));
      }
    }
    found = std::move(kept);
    std::vector<std::string> enabled;
    for (const auto& r : RuleRegistry::instance().rules())
      if (options.rules.enabled(r->info().code)) enabled.emplace_back(r->info().code);
    Suppressions* own = suppressions_of(path);
    auto report = [&](const char* code, std::vector<Finding> findings) {
      const Rule* rule = RuleRegistry::instance().find(code);
      if (!rule || !options.rules.enabled(code)) return;
      for (auto& f : findings)
        found.push_back(to_diagnostic(*rule, std::move(f), file_start, options.severity));
    };
    if (own) {
      report("PL901", own->unused(enabled));
      report("PL902", own->invalid());
    }
  }
  for (auto& d : found) {
    // A fix as text edits where the text to change is found (reported findings only).
    if (d.fix_request) d.fix = resolve_fix(*d.fix_request, source_of);
    std::string line = masked_line_of(d);
    outcome.diagnostics.push_back({std::move(d), std::move(line), std::nullopt});
  }
  return outcome;
}

// --fix and --diff: the file's fixes applied to its text, then the fixed text linted for the report.
// Every rule, whatever the run selects: a fix must not break what another rule checks.
LintText linter_for(const std::string& path, const EngineOptions& options) {
  EngineOptions all = options;
  all.rules = *RuleSelection::make({}, {});
  return [path, all = std::move(all)](const std::string& t) {
    FileOutcome o = lint_text(path, t, all);
    LintedText l;
    l.syntax_errors = o.syntax_errors;
    for (auto& cd : o.diagnostics) l.diagnostics.push_back(std::move(cd.diagnostic));
    return l;
  };
}

FileOutcome fix_input(const Input& input, const std::string& text, const EngineOptions& options) {
  FixedText fixed = fix_text(input.path, text, linter_for(input.path, options), options.unsafe_fixes,
                             [&](std::string_view code) { return options.rules.enabled(code); });
  FileOutcome outcome = lint_text(input.path, fixed.text, options);
  if (fixed.applied.empty() && fixed.dropped.empty() && !input.from_stdin) return outcome;
  FileFix fix;
  fix.path = input.path;
  fix.from_stdin = input.from_stdin;
  fix.original = text;
  fix.fixed = std::move(fixed.text);
  fix.applied = std::move(fixed.applied);
  fix.dropped = std::move(fixed.dropped);
  if (options.fix == FixMode::kApply && !input.from_stdin && fix.fixed != fix.original) {
    if (auto why = replace_file_text(input.path, fix.original, fix.fixed)) {
      outcome.error = InputError{input.path, *why};
      // Nothing was written: what was reported as fixed is still there.
      outcome = lint_text(input.path, text, options);
      outcome.error = InputError{input.path, *why};
      fix.applied.clear();
      fix.fixed = fix.original;
    } else {
      fix.written = true;
    }
  }
  outcome.fix = std::move(fix);
  return outcome;
}

FileOutcome lint_input(const Input& input, const EngineOptions& base) {
  EngineOptions options = options_for(input, base);
  auto text = read_text(input, options);
  if (!text) {
    FileOutcome o;
    o.error = InputError{input.path, text.error()};
    return o;
  }
  if (options.fix != FixMode::kOff) return fix_input(input, *text, options);
  return lint_text(input.path, std::move(*text), options);
}

RunResult merge(std::vector<FileOutcome>& outcomes, std::vector<InputError> errors) {
  RunResult result;
  result.errors = std::move(errors);
  for (auto& o : outcomes) {
    result.files_checked += o.checked;
    if (o.error) result.errors.push_back(std::move(*o.error));
    if (o.fix) result.fixes.push_back(std::move(*o.fix));
    std::move(o.diagnostics.begin(), o.diagnostics.end(), std::back_inserter(result.diagnostics));
    std::move(o.suppressed.begin(), o.suppressed.end(), std::back_inserter(result.suppressed));
  }
  std::sort(result.fixes.begin(), result.fixes.end(),
            [](const FileFix& a, const FileFix& b) { return a.path < b.path; });
  // A shared helper that recipes in several files inherit from: one finding naming all of them.
  merge_inherited(result.diagnostics);
  merge_inherited(result.suppressed);
  // A file linted on its own and also pulled in by a launch reports each finding once.
  auto same = [](const CheckedDiagnostic& a, const CheckedDiagnostic& b) {
    return a.diagnostic.code == b.diagnostic.code &&
           a.diagnostic.location.path == b.diagnostic.location.path &&
           a.diagnostic.location.range == b.diagnostic.location.range &&
           a.diagnostic.message == b.diagnostic.message;
  };
  for (auto* list : {&result.diagnostics, &result.suppressed}) {
    std::stable_sort(list->begin(), list->end(), [](const auto& a, const auto& b) {
      return diagnostic_less(a.diagnostic, b.diagnostic);
    });
    list->erase(std::unique(list->begin(), list->end(), same), list->end());
  }
  return result;
}

// What plan shows next to a job's layout: its findings, one per place, in file order.
std::vector<Diagnostic> for_plan(std::vector<Diagnostic> found) {
  merge_inherited(found);
  std::sort(found.begin(), found.end(), diagnostic_less);
  return found;
}

void add_to_plan(AnalysedFile analysed, PlanResult& result) {
  for (std::size_t j = 0; j < analysed.jobs.size(); ++j) {
    result.jobs.push_back(std::move(analysed.jobs[j]));
    result.findings.push_back(for_plan(std::move(analysed.job_findings[j])));
  }
}

}  // namespace

RunResult run_check(const std::vector<std::string>& paths, const EngineOptions& options) {
  std::vector<InputError> errors;
  ConfigResolver configs(options.config, options.discover_config);
  std::vector<Input> inputs = collect_inputs(paths, options, configs, errors);
  std::vector<FileOutcome> outcomes(inputs.size());
  unsigned workers =
      options.jobs > 0 ? static_cast<unsigned>(options.jobs) : std::thread::hardware_concurrency();
  workers = std::clamp<unsigned>(workers, 1, static_cast<unsigned>(std::max<std::size_t>(inputs.size(), 1)));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      try {
        outcomes[i] = lint_input(inputs[i], options);
      } catch (const std::exception& e) {
        outcomes[i] = FileOutcome{};
        outcomes[i].error = InputError{inputs[i].path, std::string("internal error: ") + e.what(), true};
      }
    }
  };
  if (workers == 1) {
    work();
  } else {
    std::vector<std::jthread> pool;
    for (unsigned w = 0; w < workers; ++w) pool.emplace_back(work);
  }
  return merge(outcomes, std::move(errors));
}

PlanResult load_jobs(const std::vector<std::string>& paths, const EngineOptions& options) {
  PlanResult result;
  ConfigResolver configs(options.config, options.discover_config);
  for (const Input& input : collect_inputs(paths, options, configs, result.errors)) {
    auto text = read_text(input, options);
    if (!text) {
      result.errors.push_back({input.path, text.error()});
      continue;
    }
    EngineOptions file_options = options_for(input, options);
    FileReader reader(file_options.max_file_size, file_options.overlay);
    add_to_plan(analyse_file(input.path, std::move(*text), reader, file_options), result);
  }
  return result;
}

PlanResult plan_from_layout(const RawJob& raw, const EngineOptions& options) {
  PlanResult result;
  result.jobs.push_back(std::make_unique<Job>("<command line>", raw, options.lint));
  result.findings.push_back(for_plan(check_job(*result.jobs.back(), options)));
  return result;
}

RunResult check_document(const std::string& path, std::string text, const EngineOptions& options) {
  ConfigResolver configs(options.config, options.discover_config);
  Input input{path, false, configs.for_file(path)};
  std::vector<FileOutcome> outcomes;
  outcomes.push_back(lint_text(path, std::move(text), options_for(input, options)));
  std::vector<InputError> errors;
  for (const auto& e : configs.errors()) errors.push_back({path, e});
  return merge(outcomes, std::move(errors));
}

PlanResult plan_document(const std::string& path, std::string text, const EngineOptions& options) {
  PlanResult result;
  ConfigResolver configs(options.config, options.discover_config);
  Input input{path, false, configs.for_file(path)};
  EngineOptions file_options = options_for(input, options);
  FileReader reader(file_options.max_file_size, file_options.overlay);
  add_to_plan(analyse_file(path, std::move(text), reader, file_options), result);
  return result;
}

FixedText fix_document(const std::string& path, std::string text, const EngineOptions& options) {
  ConfigResolver configs(options.config, options.discover_config);
  Input input{path, false, configs.for_file(path)};
  EngineOptions file_options = options_for(input, options);
  return fix_text(path, std::move(text), linter_for(path, file_options), file_options.unsafe_fixes,
                  [&](std::string_view code) { return file_options.rules.enabled(code); });
}

RunResult check_text(const std::string& path, std::string text, const EngineOptions& options) {
  std::vector<FileOutcome> outcomes;
  outcomes.push_back(lint_text(path, std::move(text), options));
  return merge(outcomes, {});
}

}  // namespace parlint
