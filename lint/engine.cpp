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

#include "lint/cross_file.h"
#include "lint/gitignore.h"
#include "lint/source_text.h"
#include "lint/suppressions.h"
#include "parsers/python_parser.h"
#include "parsers/shell_parser.h"
#include "parsers/source_files.h"
#include "parsers/yaml_parser.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

struct Input {
  std::string path;
  bool from_stdin = false;
  const Config* config = nullptr;  // the configuration that applies to this file
};

bool is_skipped_folder(const std::string& name) {
  static const std::set<std::string> kSkip = {".git",        ".hg",    ".svn",        "node_modules",
                                              "__pycache__", ".venv",  "venv",        ".tox",
                                              "build",       "_build", ".mypy_cache", ".ruff_cache"};
  return kSkip.count(name) > 0 || name.starts_with("cmake-build-");
}

bool has_lint_extension(const fs::path& p) {
  static const std::set<std::string> kExt = {".py",     ".yaml",  ".yml",  ".sh", ".bash",
                                             ".sbatch", ".slurm", ".slrm", ".sub"};
  return kExt.count(p.extension().string()) > 0;
}

// First bytes of a file, to recognise shell scripts without an extension.
std::string read_head(const fs::path& p, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string buf(n, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(n));
  buf.resize(static_cast<std::size_t>(in.gcount()));
  return buf;
}

bool looks_like_shell(std::string_view head) {
  if (head.starts_with("#!")) {
    std::string_view first = head.substr(0, head.find('\n'));
    return first.find("sh") != std::string_view::npos && first.find("python") == std::string_view::npos;
  }
  return head.find("#SBATCH") != std::string_view::npos;
}

bool excluded(const std::string& path, const EngineOptions& options, ConfigResolver* configs = nullptr) {
  for (const Glob& g : options.exclude)
    if (g.matches(path)) return true;
  if (configs)
    if (const Config* c = configs->for_file(path); c && c->excludes(path)) return true;
  return false;
}

void walk_folder(const fs::path& dir, const EngineOptions& options, GitIgnore& gitignore,
                 ConfigResolver& configs, std::vector<Input>& out, std::vector<InputError>& errors,
                 int depth) {
  if (depth > 256) return;
  std::error_code ec;
  // A folder that cannot be listed is reported (exit 2), not skipped in silence.
  fs::directory_iterator it(dir, ec);
  if (ec) {
    errors.push_back({dir.generic_string(), "cannot list this folder: " + ec.message()});
    return;
  }
  std::vector<fs::directory_entry> entries;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      errors.push_back({dir.generic_string(), "listing stopped: " + ec.message()});
      break;
    }
    entries.push_back(*it);
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path() < b.path(); });
  for (const auto& e : entries) {
    std::string path = e.path().generic_string();
    std::error_code sec;
    bool symlink = e.is_symlink(sec);
    bool is_dir = e.is_directory(sec);
    if (is_dir) {
      // Symlinked folders are not followed: they make loops and lint the same files twice.
      if (symlink || is_skipped_folder(e.path().filename().string())) continue;
      if (excluded(path, options, &configs) || gitignore.ignored(e.path(), true)) continue;
      walk_folder(e.path(), options, gitignore, configs, out, errors, depth + 1);
      continue;
    }
    if (!e.is_regular_file(sec) || e.path().filename() == ".parlint.yaml") continue;  // our own configuration
    if (excluded(path, options, &configs) || gitignore.ignored(e.path(), false)) continue;
    bool wanted = has_lint_extension(e.path());
    if (!wanted && e.path().extension().empty()) wanted = looks_like_shell(read_head(e.path(), 4096));
    if (wanted) out.push_back({path});
  }
}

std::vector<Input> collect_inputs(const std::vector<std::string>& paths, const EngineOptions& options,
                                  ConfigResolver& configs, std::vector<InputError>& errors) {
  std::vector<Input> out;
  GitIgnore gitignore;
  for (const std::string& p : paths) {
    if (p == "-") {
      out.push_back({options.stdin_filename, true});
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      errors.push_back(
          {p, ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "No such file or directory"});
      continue;
    }
    if (fs::is_directory(st)) {
      if (options.force_exclude && excluded(fs::path(p).generic_string(), options, &configs)) continue;
      walk_folder(p, options, gitignore, configs, out, errors, 0);
      continue;
    }
    if (options.force_exclude && excluded(fs::path(p).generic_string(), options, &configs)) continue;
    out.push_back({p});
  }
  // Resolve every file's configuration here, before the worker threads start.
  for (Input& in : out) in.config = configs.for_file(in.from_stdin ? "./" + in.path : in.path);
  for (const auto& e : configs.errors())
    errors.push_back({e.substr(0, e.find(':')), e.substr(e.find(':') + 1)});
  return out;
}

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
  o.severity = c->severity;
  return o;
}

std::string size_text(std::size_t bytes) {
  if (bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// Reads a regular file whole; FIFOs, devices and oversized files are refused before opening.
Expected<std::string, std::string> read_input(const std::string& path, std::size_t max_size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Unexpected(std::string(std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return Unexpected(std::string("not a regular file"));
  if (static_cast<std::size_t>(st.st_size) > max_size)
    return Unexpected("file is " + std::to_string(st.st_size) + " bytes, over the " + size_text(max_size) +
                      " limit (--max-file-size); not read");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected(std::string(std::strerror(errno)));
  auto text = read_stream(in, static_cast<std::size_t>(st.st_size), max_size);
  if (!text) return Unexpected(std::string("read error, or the file grew over the limit while being read"));
  return std::move(*text);
}

struct FileOutcome {
  std::vector<CheckedDiagnostic> diagnostics;
  std::vector<CheckedDiagnostic> suppressed;
  std::optional<InputError> error;
  bool checked = false;
};

Diagnostic to_diagnostic(const Rule& rule, Finding&& f, const Location& fallback,
                         const std::map<std::string, Severity>& overrides) {
  Diagnostic d;
  d.code = std::string(rule.info().code);
  d.name = std::string(rule.info().name);
  d.severity = f.severity.value_or(rule.info().severity);
  if (auto o = overrides.find(d.code); o != overrides.end()) d.severity = o->second;
  // A finding that rests on a fallback value is at most a warning (DESIGN "Weak values").
  if (f.weak && d.severity == Severity::kError) d.severity = Severity::kWarning;
  d.message = std::move(f.message);
  d.location = f.location.in_file() ? std::move(f.location) : fallback;
  // The same related place can arrive through several facts (a config selected once, used by many keys).
  for (auto& r : f.related) {
    bool seen = std::any_of(d.related.begin(), d.related.end(), [&](const RelatedLocation& x) {
      return x.location.path == r.location.path && x.location.range == r.location.range &&
             x.message == r.message;
    });
    if (!seen && !(r.location.path == d.location.path && r.location.range == d.location.range))
      d.related.push_back(std::move(r));
  }
  d.help = std::move(f.help);
  d.sensitive = f.sensitive;
  if (!f.holds_for.empty()) d.holds_for.emplace_back(std::move(f.holds_for), std::move(f.holds_for_at));
  return d;
}

// A finding reported at a setting outside the job it holds for (a recipe that calls another recipe and
// inherits its values, a launch that reads a config file) names that job and relates it (DESIGN
// "Findings inherited through calls").
void name_the_job(Finding& f, const Job& job) {
  // Recipe functions only (their extent is known): a launch's settings are written around it (TP=16
  // above the torchrun line), and a module-level object's keywords are part of it.
  const SourceRange& extent = job.extent();
  if (!extent.valid() || !f.location.in_file() || job.description().empty()) return;
  bool inside = f.location.path == job.path() && !(f.location.range.start < extent.start) &&
                !(extent.end < f.location.range.end);
  if (inside) return;
  f.holds_for = job.description();
  f.holds_for_at = {job.path(), {job.range().start, job.range().start}};
}

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

ParsedFile parse_source(const std::string& path, const SourceText& source, const FileReader& reader) {
  ParsedFile parsed;
  parsed.path = path;
  // A NUL byte near the start means a binary file (as git decides): reported, not parsed as text.
  std::string_view head = source.text().substr(0, 8192);
  if (auto nul = head.find('\0'); nul != std::string_view::npos) {
    SourcePosition at = source.position(nul);
    parsed.errors.push_back(
        {{at, {at.line, at.column + 1}},
         "binary file (a NUL byte at byte " + std::to_string(nul) + "); not linted",
         "parlint reads text files only; if this is not a configuration or script, add it to "
         "exclude: in .parlint.yaml"});
    return parsed;
  }
  switch (file_kind(path, source.text().substr(0, 4096))) {
    case FileKind::kYaml:
      parsed = parse_yaml(path, source);
      resolve_referenced_files(parsed, reader);  // configs it inherits (NeMo-RL `defaults: parent.yaml`)
      // A driver config that (with what it inherits) runs another backend has no Megatron job.
      std::erase_if(parsed.jobs, [](const RawJob& j) { return j.megatron_on == false; });
      break;
    case FileKind::kShell:
      parsed = parse_shell(path, source, reader);
      resolve_referenced_files(parsed, reader);
      break;
    case FileKind::kPython:
      parsed = parse_python(path, source, reader);
      break;
    case FileKind::kNone:
      break;
  }
  return parsed;
}

FileOutcome lint_text(const std::string& path, std::string text, const EngineOptions& options) {
  FileOutcome outcome;
  outcome.checked = true;
  SourceText source(std::move(text));  // a lone CR ends a line there, for every reader alike
  FileReader reader(options.max_file_size, options.overlay);
  ParsedFile parsed = parse_source(path, source, reader);
  std::vector<Diagnostic> found;
  Location file_start{path, {{1, 1}, {1, 1}}};
  std::vector<std::unique_ptr<Job>> jobs;
  for (const RawJob& raw : parsed.jobs) jobs.push_back(std::make_unique<Job>(path, raw, options.lint));
  for (const auto& rule : RuleRegistry::instance().rules()) {
    if (!options.rules.enabled(rule->info().code)) continue;
    std::vector<Finding> findings;
    rule->check_file(parsed, findings);
    for (auto& f : findings)
      found.push_back(to_diagnostic(*rule, std::move(f), file_start, options.severity));
    for (const auto& job : jobs) {
      findings.clear();
      rule->check_job(*job, findings);
      Location job_start{path, {job->range().start, job->range().start}};
      for (auto& f : findings) {
        name_the_job(f, *job);
        found.push_back(to_diagnostic(*rule, std::move(f), job_start, options.severity));
      }
    }
  }
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
    std::string line = masked_line_of(d);
    outcome.diagnostics.push_back({std::move(d), std::move(line), std::nullopt});
  }
  return outcome;
}

// The text of an input: stdin, or a regular file within the size limit.
Expected<std::string, std::string> read_text(const Input& input, const EngineOptions& options) {
  if (!input.from_stdin) return read_input(input.path, options.max_file_size);
  // Standard input has no size to check first: read at most one buffer past the limit.
  std::string text;
  char buf[65536];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > options.max_file_size)
      return Unexpected("standard input is over the " + size_text(options.max_file_size) +
                        " limit (--max-file-size); not read");
  }
  return text;
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

// The findings of every job rule for one job (plan shows them next to the layout).
std::vector<Diagnostic> job_findings(const Job& job, const EngineOptions& options) {
  std::vector<Diagnostic> out;
  Location start{job.path(), {job.range().start, job.range().start}};
  for (const auto& rule : RuleRegistry::instance().rules()) {
    if (!options.rules.enabled(rule->info().code)) continue;
    std::vector<Finding> findings;
    rule->check_job(job, findings);
    for (auto& f : findings) {
      name_the_job(f, job);
      out.push_back(to_diagnostic(*rule, std::move(f), start, options.severity));
    }
  }
  merge_inherited(out);
  std::sort(out.begin(), out.end(), diagnostic_less);
  return out;
}

}  // namespace

FileKind file_kind(std::string_view path, std::string_view head) {
  fs::path p(path);
  // A template (`slurm.sh.j2`, `ray.sub.jinja`) is the syntax its inner extension names.
  if (p.extension() == ".j2" || p.extension() == ".jinja" || p.extension() == ".jinja2") p = p.stem();
  std::string ext = p.extension().string();
  if (ext == ".yaml" || ext == ".yml") return FileKind::kYaml;
  if (ext == ".py") return FileKind::kPython;
  if (ext == ".sh" || ext == ".bash" || ext == ".sbatch" || ext == ".slurm" || ext == ".slrm" ||
      ext == ".sub")
    return FileKind::kShell;
  if (head.starts_with("#!") && head.substr(0, head.find('\n')).find("python") != std::string_view::npos)
    return FileKind::kPython;
  if (looks_like_shell(head)) return FileKind::kShell;
  // A file named explicitly with another name is read as YAML, the most common config syntax.
  return FileKind::kYaml;
}

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
    SourceText source(std::move(*text));
    FileReader reader(options.max_file_size, options.overlay);
    ParsedFile parsed = parse_source(input.path, source, reader);
    EngineOptions file_options = options_for(input, options);
    for (const RawJob& raw : parsed.jobs) {
      result.jobs.push_back(std::make_unique<Job>(input.path, raw, file_options.lint));
      result.findings.push_back(job_findings(*result.jobs.back(), file_options));
    }
  }
  return result;
}

PlanResult plan_from_layout(const RawJob& raw, const EngineOptions& options) {
  PlanResult result;
  result.jobs.push_back(std::make_unique<Job>("<command line>", raw, options.lint));
  result.findings.push_back(job_findings(*result.jobs.back(), options));
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
  SourceText source(std::move(text));
  FileReader reader(options.max_file_size, options.overlay);
  ParsedFile parsed = parse_source(path, source, reader);
  for (const RawJob& raw : parsed.jobs) {
    result.jobs.push_back(std::make_unique<Job>(path, raw, file_options.lint));
    result.findings.push_back(job_findings(*result.jobs.back(), file_options));
  }
  return result;
}

RunResult check_text(const std::string& path, std::string text, const EngineOptions& options) {
  std::vector<FileOutcome> outcomes;
  outcomes.push_back(lint_text(path, std::move(text), options));
  return merge(outcomes, {});
}

}  // namespace parlint
