#include "lint/engine/pipeline.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lint/engine/file_kind.h"
#include "lint/engine/fix/fix_resolution.h"
#include "lint/resolve/cross_file.h"
#include "lint/resolve/framework_source.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/python/python_parser.h"
#include "parsers/shell/shell_parser.h"
#include "parsers/yaml/yaml_parser.h"
#include "rules/api/rule.h"

namespace parlint {

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
  d.fix_request = std::move(f.fix);
  if (!f.holds_for.empty()) d.holds_for.emplace_back(std::move(f.holds_for), std::move(f.holds_for_at));
  return d;
}

namespace {

// A finding reported at a setting outside the job it holds for (a recipe that calls another recipe and
// inherits its values, a launch that reads a config file) names that job and relates it (DESIGN
// "Findings inherited through calls").
void name_the_job(Finding& f, const Job& job) {
  // One of several roles a launch starts (verl's actor, critic, ...), or the launch one branch chose:
  // every finding says which.
  if ((!job.role().empty() || !job.branch().empty()) && f.location.in_file()) {
    f.holds_for = job.description();
    f.holds_for_at = {job.path(), {job.range().start, job.range().start}};
    return;
  }
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

bool overlaps(const Location& a, const Location& b) {
  if (!a.in_file() || !b.in_file() || a.path != b.path) return false;
  if (a.range == b.range) return true;
  return a.range.start < b.range.end && b.range.start < a.range.end;
}

bool same_edits(const Fix& a, const Fix& b) {
  if (a.edits.size() != b.edits.size()) return false;
  for (std::size_t i = 0; i < a.edits.size(); ++i)
    if (a.edits[i].location.path != b.edits[i].location.path ||
        a.edits[i].location.range != b.edits[i].location.range || a.edits[i].new_text != b.edits[i].new_text)
      return false;
  return true;
}

// Which jobs read the text on each line: a fix's edits are looked up here instead of in every job's facts
// (which made a script of many launches cost jobs^2).
class LineReaders {
 public:
  explicit LineReaders(const std::vector<std::unique_ptr<Job>>& jobs) {
    for (std::size_t j = 0; j < jobs.size(); ++j)
      for (std::size_t k = 0; k < kKeyCount; ++k) {
        const Fact* f = jobs[j]->fact(static_cast<Key>(k));
        if (!f) continue;
        add(f->location, j);
        for (const auto& w : f->written_at) add(w.location, j);
      }
  }
  // The jobs with a value written where `targets` are (each once, in order).
  std::vector<std::size_t> reading(const std::vector<Location>& targets) const {
    std::set<std::size_t> found;
    for (const auto& t : targets) {
      if (!t.in_file()) continue;
      for (int line = t.range.start.line; line <= std::max(t.range.start.line, t.range.end.line); ++line) {
        auto it = by_line_.find({t.path, line});
        if (it == by_line_.end()) continue;
        for (const auto& [loc, job] : it->second)
          if (overlaps(*loc, t)) found.insert(job);
      }
    }
    return {found.begin(), found.end()};
  }

 private:
  void add(const Location& l, std::size_t job) {
    if (!l.in_file()) return;
    for (int line = l.range.start.line; line <= std::max(l.range.start.line, l.range.end.line); ++line)
      by_line_[{l.path, line}].emplace_back(&l, job);
  }
  std::map<std::pair<std::string, int>, std::vector<std::pair<const Location*, std::size_t>>> by_line_;
};

// A fix edits text. When another job reads that text too (a YAML anchor merged into several configs, a
// TP=16 that two launches use, an #SBATCH line every srun inherits), the fix stays only if that job has
// the same finding with the same fix: otherwise it would change a job that was right. (A job the rule
// cannot judge, for want of a value the finding's job has, does not count.)
void withdraw_shared_fixes(AnalysedFile& file) {
  std::optional<LineReaders> readers;  // built when a fix needs it
  for (std::size_t j = 0; j < file.jobs.size(); ++j) {
    for (auto& d : file.job_findings[j]) {
      // Reported at a setting another recipe writes (and this job inherits): that recipe, and every other
      // one built on it, reads the text too, and parlint may not see them all (they can live in other
      // files). When the recipe that writes it has the same finding, its own report carries the fix.
      if (!d.holds_for.empty()) {
        d.fix.reset();
        d.fix_request.reset();
      }
      if (!d.fix) continue;
      // An edit in a file the job reads (a sourced params.sh) is where the value lives, but other scripts
      // may read that file with other settings: unsafe unless every value the finding rests on is written
      // in that file too (TP=1 and SP both in params.sh).
      for (const auto& e : d.fix->edits) {
        if (e.location.path == file.jobs[j]->path() || d.fix->applicability == FixApplicability::kUnsafe)
          continue;
        bool self_contained = std::all_of(d.related.begin(), d.related.end(), [&](const RelatedLocation& r) {
          return !r.location.in_file() || r.location.path == e.location.path;
        });
        if (!self_contained) {
          d.fix->applicability = FixApplicability::kUnsafe;
          d.fix->message += " (in " + e.location.path + ", which other scripts may read with other settings)";
        }
      }
      std::vector<Location> targets;
      for (const auto& e : d.fix->edits)
        if (e.location.range.start != e.location.range.end) targets.push_back(e.location);  // not insertions
      const Rule* rule = RuleRegistry::instance().find(d.code);
      // A job that lacks a value the rule needs could not have the finding: its silence says nothing.
      auto judged = [&](const Job& other) {
        if (!rule) return true;
        for (Key key : rule->info().reads) {
          const Fact* mine = file.jobs[j]->fact(key);
          const Fact* theirs = other.fact(key);
          if (mine && mine->value.is_known() && !(theirs && theirs->value.is_known())) return false;
        }
        return true;
      };
      if (targets.empty()) continue;
      if (!readers) readers.emplace(file.jobs);
      for (std::size_t k : readers->reading(targets)) {
        if (!d.fix) break;
        if (k == j || !judged(*file.jobs[k])) continue;
        const auto& theirs = file.job_findings[k];
        bool agrees = std::any_of(theirs.begin(), theirs.end(), [&](const Diagnostic& x) {
          return x.code == d.code && x.fix && same_edits(*x.fix, *d.fix);
        });
        if (!agrees) {
          d.fix.reset();
          d.fix_request.reset();
        }
      }
    }
  }
}

}  // namespace

ParsedFile parse_source(const std::string& path, const SourceText& source, const FileReader& reader,
                        WorkBudget* budget, TreeCache* trees, ReferencedFiles* referenced,
                        PythonModuleCache* modules, UncalledFunctionMemo* uncalled) {
  WorkBudget own;
  WorkBudget& work = budget ? *budget : own;
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
  std::optional<FileKind> recognized = recognized_kind(path, source.text().substr(0, 4096));
  switch (recognized.value_or(FileKind::kYaml)) {
    case FileKind::kYaml:
      parsed = parse_yaml(path, source, framework_documents(), &work);
      // A file neither its name nor its first lines call YAML (a Makefile, a LICENSE: what pre-commit
      // passes of a repository's extension-less files) and that YAML cannot read is another language:
      // not linted, and not a YAML syntax error.
      if (!recognized && !parsed.errors.empty()) {
        ParsedFile other;
        other.path = parsed.path;
        return other;
      }
      // Configs it inherits (NeMo-RL `defaults: parent.yaml`).
      resolve_referenced_files(parsed, reader, &work, referenced, modules);
      // A driver config that (with what it inherits) runs another backend has no Megatron job.
      std::erase_if(parsed.jobs, [](const RawJob& j) { return j.megatron_on == false; });
      break;
    case FileKind::kShell:
      parsed = parse_shell(path, source, framework_adapters(), reader, &work, trees, uncalled);
      resolve_referenced_files(parsed, reader, &work, referenced, modules);
      break;
    case FileKind::kPython:
      parsed = parse_python(path, source, reader, &work, modules);
      break;
    case FileKind::kNone:
      break;
  }
  // Spent on the files it refers to: the jobs that read them may lack their settings.
  bool noted = std::any_of(parsed.unread.begin(), parsed.unread.end(),
                           [&](const UnreadRegion& r) { return r.reason == work.reason(); });
  if (work.exhausted() && !noted) {
    UnreadRegion all = over_budget_region(source, 1, work);
    all.reason += " (spent on the files it refers to, whose settings were not all read)";
    parsed.unread.push_back(std::move(all));
  }
  return parsed;
}

namespace {

// A finding reported at a fallback value, or naming one among its places (an argparse option's default, a
// function parameter's default), rests on it: at most a warning, naming the fallback (DESIGN "Weak
// values"). Rules that weigh fallbacks themselves (PL102) have already said so.
void mark_weak(Finding& f, const Job& job) {
  if (f.weak) return;
  for (std::size_t k = 0; k < kKeyCount; ++k) {
    const Fact* x = job.fact(static_cast<Key>(k));
    if (!x || !x->weak || !x->location.in_file()) continue;
    auto at = [&](const Location& l) { return l.path == x->location.path && l.range == x->location.range; };
    if (!at(f.location) && std::none_of(f.related.begin(), f.related.end(),
                                        [&](const RelatedLocation& r) { return at(r.location); }))
      continue;
    f.weak = true;
    if (!x->weak_note.empty() && f.message.find(x->weak_note) == std::string::npos)
      f.message += " (" + x->weak_note + ")";
    return;
  }
}

}  // namespace

std::vector<Diagnostic> check_job(const Job& job, const EngineOptions& options) {
  std::vector<Diagnostic> out;
  Location start{job.path(), {job.range().start, job.range().start}};
  for (const auto& rule : RuleRegistry::instance().rules()) {
    if (!options.rules.enabled(rule->info().code)) continue;
    std::vector<Finding> findings;
    rule->check_job(job, findings);
    for (auto& f : findings) {
      mark_weak(f, job);
      name_the_job(f, job);
      out.push_back(to_diagnostic(*rule, std::move(f), start, options.severity));
    }
  }
  return out;
}

AnalysedFile analyse_file(const std::string& path, std::string text, const FileReader& reader,
                          const EngineOptions& options) {
  AnalysedFile out;
  out.path = path;
  out.source = std::make_unique<SourceText>(std::move(text));
  WorkBudget budget(options.file_budget);
  out.parsed = parse_source(path, *out.source, reader, &budget, options.trees, options.referenced_files,
                            options.python_modules, options.uncalled_functions);
  // The user's own framework source: its recipes, and the Megatron-Core version it runs.
  if (std::any_of(out.parsed.jobs.begin(), out.parsed.jobs.end(),
                  [](const RawJob& j) { return !j.recipe.empty(); }))
    if (auto source = bridge_source_for(path, options.framework_source, reader))
      read_recipes_from_source(out.parsed, *source, reader, options.python_modules);
  LintOptions lint = options.lint;
  if (!lint.megatron_core) lint.megatron_core = core_version_for(path, std::nullopt, reader);
  Location file_start{path, {{1, 1}, {1, 1}}};
  for (const auto& rule : RuleRegistry::instance().rules()) {
    if (!options.rules.enabled(rule->info().code)) continue;
    std::vector<Finding> findings;
    rule->check_file(out.parsed, findings);
    for (auto& f : findings)
      out.file_findings.push_back(to_diagnostic(*rule, std::move(f), file_start, options.severity));
  }
  for (const RawJob& raw : out.parsed.jobs) {
    out.jobs.push_back(std::make_unique<Job>(path, raw, lint));
    out.job_findings.push_back(check_job(*out.jobs.back(), options));
  }
  // Fixes as text edits, here where the jobs are known (the file's text, and others through the reader).
  std::map<std::string, std::unique_ptr<SourceText>> others;
  SourceLookup source_of = [&](const std::string& p) -> const SourceText* {
    if (p == path) return out.source.get();
    auto it = others.find(p);
    if (it == others.end()) {
      auto read = reader.read(p);
      it = others.emplace(p, read ? std::make_unique<SourceText>(std::move(*read)) : nullptr).first;
    }
    return it->second.get();
  };
  auto resolve = [&](std::vector<Diagnostic>& found) {
    for (auto& d : found)
      if (d.fix_request) d.fix = resolve_fix(*d.fix_request, source_of);
  };
  resolve(out.file_findings);
  for (auto& found : out.job_findings) resolve(found);
  withdraw_shared_fixes(out);
  return out;
}

}  // namespace parlint
