#include "lint/engine/engine.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
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

#include "lint/engine/file_discovery.h"
#include "lint/engine/fix/file_writer.h"
#include "lint/engine/fix/fix_resolution.h"
#include "lint/engine/pipeline.h"
#include "lint/engine/suppressions.h"
#include "lint/model/source_files.h"
#include "lint/model/source_text.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

EngineOptions options_for(const Input& input, const EngineOptions& base) {
  return options_for_config(input.path, input.config, base);
}

}  // namespace

EngineOptions options_for_config(const std::string& path, const Config* c, const EngineOptions& base) {
  if (!c) return base;
  EngineOptions o = base;
  std::vector<std::string> select = base.cli_rules ? base.cli_select : c->select;
  std::vector<std::string> ignore = base.cli_rules ? base.cli_ignore : c->ignore;
  for (const auto& code : c->ignored_for(path)) ignore.push_back(code);
  if (auto sel = RuleSelection::make(select, ignore)) o.rules = std::move(*sel);
  if (!base.cli_cluster && c->cluster) o.lint.cluster = c->cluster;
  if (!base.cli_framework && c->framework) o.lint.framework = *c->framework;
  if (c->framework_source) o.framework_source = c->framework_source;
  if (c->megatron_core_version) o.lint.megatron_core = c->megatron_core_version;
  o.severity = c->severity;
  return o;
}

namespace {

struct FileOutcome {
  std::vector<CheckedDiagnostic> diagnostics;
  std::vector<CheckedDiagnostic> suppressed;
  std::optional<InputError> error;
  std::size_t syntax_errors = 0;
  bool checked = false;
};

// "(this holds for a() (line 3), b() (line 9) and 4 more, which inherit the setting)" after the message.
void name_inheriting_jobs(Diagnostic& d) {
  if (d.holds_for.empty()) return;
  if (d.message_base == 0) d.message_base = d.message.size();
  d.message.resize(d.message_base);
  std::erase_if(d.related, [](const RelatedLocation& r) { return r.message == "a job this holds for"; });
  // Rules say "X at line N" of a setting in the job's own file (describe_source); held for one job of
  // another file (the config an environment file sets), that line needs the job's file named.
  if (const auto& at = d.holds_for.front().second; d.holds_for.size() == 1 && at.path != d.location.path) {
    const std::string bare = " at line ", named = " at " + at.path + ":";
    for (auto i = d.message.find(bare); i != std::string::npos; i = d.message.find(bare, i + named.size()))
      if (i + bare.size() < d.message.size() &&
          std::isdigit(static_cast<unsigned char>(d.message[i + bare.size()])))
        d.message.replace(i, bare.size(), named);
    d.message_base = d.message.size();
  }
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
  FileReader reader(options.max_file_size, options.overlay, options.paths);
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
    // A binary file's "line" is kilobytes of escaped bytes: no snippet (as ruff's E902 has none).
    if (line.find('\0') != std::string::npos) return std::string();
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
    if (d.fix_request && !d.fix) d.fix = resolve_fix(*d.fix_request, source_of);  // suppression fixes
    std::string line = masked_line_of(d);
    outcome.diagnostics.push_back({std::move(d), std::move(line), std::nullopt});
  }
  return outcome;
}

// What fixing needs from the run: every rule (a fix must not break what another rule checks), the
// other files as the fixes so far left them, and each file's own parser for the files a fix edits.
FixEnvironment environment(const std::string& path, const EngineOptions& options) {
  FixEnvironment env;
  EngineOptions all = options;
  all.rules = *RuleSelection::make({}, {});
  env.lint = [path, all](const std::string& text, const std::map<std::string, std::string>& others) {
    SourceOverlay local;
    if (all.overlay) local.buffers = all.overlay->buffers;
    for (const auto& [p, t] : others) local.buffers[normalized_path(p)] = t;
    EngineOptions o = all;
    o.overlay = &local;
    FileOutcome r = lint_text(path, text, o);
    LintedText l;
    l.syntax_errors = r.syntax_errors;
    for (auto& cd : r.diagnostics) l.diagnostics.push_back(std::move(cd.diagnostic));
    return l;
  };
  env.read = [max = options.max_file_size, overlay = options.overlay](const std::string& p) {
    return FileReader(max, overlay).read(p);
  };
  env.syntax_errors = [max = options.max_file_size](const std::string& p, const std::string& text) {
    SourceText source(text);
    FileReader reader(max);
    return parse_source(p, source, reader).errors.size();
  };
  env.selected = [rules = options.rules](std::string_view code) { return rules.enabled(code); };
  env.unsafe = options.unsafe_fixes;
  return env;
}

FileOutcome lint_input(const Input& input, const EngineOptions& base) {
  EngineOptions options = options_for(input, base);
  auto text = read_text(input, options);
  if (!text) {
    FileOutcome o;
    o.error = InputError{input.path, text.error()};
    return o;
  }
  return lint_text(input.path, std::move(*text), options);
}

RunResult merge(std::vector<FileOutcome>& outcomes, std::vector<InputError> errors) {
  RunResult result;
  result.errors = std::move(errors);
  for (auto& o : outcomes) {
    result.files_checked += o.checked;
    if (o.error) result.errors.push_back(std::move(*o.error));
    std::move(o.diagnostics.begin(), o.diagnostics.end(), std::back_inserter(result.diagnostics));
    std::move(o.suppressed.begin(), o.suppressed.end(), std::back_inserter(result.suppressed));
  }
  // A shared helper that recipes in several files inherit from: one finding naming all of them.
  merge_inherited(result.diagnostics);
  merge_inherited(result.suppressed);
  // One mistake, one finding: a file linted on its own and also pulled in by a launch, or a value several
  // jobs share (a NeMo-Run script's recipe and its executor), reports a code at a place once — the most
  // severe of its findings there.
  // The same mistake may be told for several jobs ("... (this holds for X)"), and from another file
  // ("at path/to/this.py:332" for "at line 332"): neither is part of it.
  auto mistake = [](const Diagnostic& d) {
    std::string m = d.message.substr(0, d.message.rfind(" (this holds for "));
    const std::string here = "at " + d.location.path + ":";
    for (auto at = m.find(here); at != std::string::npos; at = m.find(here, at))
      m.replace(at, here.size(), "at line ");
    return m;
  };
  auto same = [&](const CheckedDiagnostic& a, const CheckedDiagnostic& b) {
    return a.diagnostic.code == b.diagnostic.code &&
           a.diagnostic.location.path == b.diagnostic.location.path &&
           a.diagnostic.location.range == b.diagnostic.location.range &&
           mistake(a.diagnostic) == mistake(b.diagnostic);
  };
  for (auto* list : {&result.diagnostics, &result.suppressed}) {
    // In report order, and among the findings of one code at one place the most severe first.
    std::stable_sort(list->begin(), list->end(), [](const auto& a, const auto& b) {
      const Diagnostic &x = a.diagnostic, &y = b.diagnostic;
      int sx = -static_cast<int>(x.severity), sy = -static_cast<int>(y.severity);
      return std::tie(x.location.path, x.location.range.start, x.code, x.location.range.end, sx, x.message) <
             std::tie(y.location.path, y.location.range.start, y.code, y.location.range.end, sy, y.message);
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

// --fix and --diff (DESIGN §4). Inputs go one after another, because a fix may edit a file that another
// input reads (a params.sh several launch scripts source): each fixed text is kept in an overlay that
// later inputs read. Then the changed files are written (--fix), and every input is linted again, as
// the fixes left it, for the report.
RunResult run_fix(const std::vector<std::string>& paths, const EngineOptions& options) {
  std::vector<InputError> errors;
  ConfigResolver configs(options.config, options.discover_config);
  std::vector<Input> inputs = collect_inputs(paths, options, configs, errors);
  SourceOverlay overlay;
  if (options.overlay) overlay.buffers = options.overlay->buffers;
  std::map<std::string, FileFix> changed;  // by normalized path (standard input by its own key)
  std::vector<std::optional<std::string>> texts(inputs.size());
  auto key_of = [](const Input& input) {
    return input.from_stdin ? std::string("\n<stdin>") : normalized_path(input.path);
  };
  auto entry = [&](const std::string& key, const std::string& path, const std::string& original,
                   bool from_stdin) -> FileFix& {
    auto [it, fresh] = changed.try_emplace(key);
    if (fresh) {
      it->second.path = path;
      it->second.from_stdin = from_stdin;
      it->second.original = it->second.fixed = original;
    }
    return it->second;
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Input& input = inputs[i];
    EngineOptions o = options_for(input, options);
    o.overlay = &overlay;
    const std::string key = key_of(input);
    if (auto it = overlay.buffers.find(key); !input.from_stdin && it != overlay.buffers.end()) {
      texts[i] = it->second;
    } else if (auto t = read_text(input, o)) {
      texts[i] = std::move(*t);
    } else {
      errors.push_back({input.path, t.error()});
      continue;
    }
    try {
      FixEnvironment env = environment(input.path, o);
      if (input.from_stdin) env.others_refused = "and fixes of standard input change only its own text";
      FixedText fixed = fix_text(input.path, *texts[i], env);
      FileFix& own = entry(key, input.path, *texts[i], input.from_stdin);
      own.fixed = fixed.text;
      if (!input.from_stdin) overlay.buffers[key] = fixed.text;
      for (auto& [p, after] : fixed.others_after) {
        std::string k = normalized_path(p);
        FileFix& other = entry(k, p, fixed.others_before[p], false);
        other.fixed = after;
        if (other.edited_for.empty()) other.edited_for = input.path;
        overlay.buffers[k] = std::move(after);
      }
      // Each fix is listed with the file its first edit changes.
      for (auto& a : fixed.applied) {
        const std::string& p = a.fix.edits.front().location.path;
        (p == input.path ? own : changed[normalized_path(p)]).applied.push_back(std::move(a));
      }
      for (auto& d : fixed.dropped) own.dropped.push_back(std::move(d));
      // Nothing to say about this one: its text need not be kept (the report reads it again).
      if (own.fixed == own.original && own.applied.empty() && own.dropped.empty() && !input.from_stdin) {
        changed.erase(key);
        overlay.buffers.erase(key);
      }
      if (!input.from_stdin) texts[i] = std::string();  // read again for the report
    } catch (const std::exception& e) {
      errors.push_back({input.path, std::string("internal error: ") + e.what(), true});
      texts[i].reset();
    }
  }
  // Written only where the text changed; a file that cannot be written keeps what it had, and the
  // report reads it from disk again.
  for (auto& [key, f] : changed) {
    if (options.fix != FixMode::kApply || f.from_stdin || f.fixed == f.original) continue;
    if (auto why = replace_file_text(f.path, f.original, f.fixed)) {
      errors.push_back({f.path, *why});
      f.applied.clear();
      f.fixed = f.original;
      overlay.buffers.erase(key);
    } else {
      f.written = true;
    }
  }
  std::vector<FileOutcome> outcomes;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!texts[i]) continue;
    EngineOptions o = options_for(inputs[i], options);
    o.overlay = &overlay;
    const std::string key = key_of(inputs[i]);
    std::string text;
    if (auto own = changed.find(key); own != changed.end()) {
      text = own->second.fixed;
    } else if (inputs[i].from_stdin) {
      text = std::move(*texts[i]);
    } else if (auto t = read_text(inputs[i], o)) {
      text = std::move(*t);
    } else {
      errors.push_back({inputs[i].path, t.error()});
      continue;
    }
    try {
      outcomes.push_back(lint_text(inputs[i].path, text, o));
    } catch (const std::exception& e) {
      errors.push_back({inputs[i].path, std::string("internal error: ") + e.what(), true});
    }
  }
  RunResult result = merge(outcomes, std::move(errors));
  for (auto& [_, f] : changed)
    if (f.from_stdin || f.fixed != f.original || !f.applied.empty() || !f.dropped.empty())
      result.fixes.push_back(std::move(f));
  std::sort(result.fixes.begin(), result.fixes.end(),
            [](const FileFix& a, const FileFix& b) { return a.path < b.path; });
  return result;
}

}  // namespace

RunResult run_check(const std::vector<std::string>& paths, const EngineOptions& options) {
  if (options.fix != FixMode::kOff) return run_fix(paths, options);
  std::vector<InputError> errors;
  ConfigResolver configs(options.config, options.discover_config);
  std::vector<Input> inputs = collect_inputs(paths, options, configs, errors);
  std::vector<FileOutcome> outcomes(inputs.size());
  // Files on disk do not change during the run: a config or recipe several inputs refer to is parsed once.
  // Nor does what a path is: the walks up the folders from each input ask the disk once per path.
  ReferencedFiles referenced;
  PathCache path_cache;
  PythonModuleCache python_modules;
  EngineOptions run_options = options;
  if (!options.overlay && !options.referenced_files) {
    run_options.referenced_files = &referenced;
    run_options.paths = &path_cache;
    run_options.python_modules = &python_modules;
  }
  // One file is linted on this thread: no pool, and no look at the CPU count (a read of sysfs).
  unsigned workers = inputs.size() <= 1 ? 1
                     : options.jobs > 0 ? static_cast<unsigned>(options.jobs)
                                        : std::thread::hardware_concurrency();
  workers = std::clamp<unsigned>(workers, 1, static_cast<unsigned>(std::max<std::size_t>(inputs.size(), 1)));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      try {
        outcomes[i] = lint_input(inputs[i], run_options);
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
  ReferencedFiles referenced;  // as in run_check: parsed once for the run
  PathCache path_cache;
  PythonModuleCache python_modules;
  for (const Input& input : collect_inputs(paths, options, configs, result.errors)) {
    auto text = read_text(input, options);
    if (!text) {
      result.errors.push_back({input.path, text.error()});
      continue;
    }
    EngineOptions file_options = options_for(input, options);
    if (!file_options.overlay && !file_options.referenced_files) {
      file_options.referenced_files = &referenced;
      file_options.paths = &path_cache;
      file_options.python_modules = &python_modules;
    }
    FileReader reader(file_options.max_file_size, file_options.overlay, file_options.paths);
    add_to_plan(analyse_file(input.path, std::move(*text), reader, file_options), result);
  }
  return result;
}

PlanResult plan_from_layout(const RawJob& raw, const EngineOptions& options) {
  PlanResult result;
  result.jobs.push_back(std::make_unique<Job>(std::string(kCommandLinePath), raw, options.lint));
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
  FixEnvironment env = environment(path, file_options);
  env.others_refused = "and fixing one document changes only that document";
  return fix_text(path, std::move(text), env);
}

RunResult check_text(const std::string& path, std::string text, const EngineOptions& options) {
  std::vector<FileOutcome> outcomes;
  outcomes.push_back(lint_text(path, std::move(text), options));
  return merge(outcomes, {});
}

}  // namespace parlint
