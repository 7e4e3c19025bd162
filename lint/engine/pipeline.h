#pragma once
// One file through parlint, the same for `check`, `plan` and the language server: its text -> the parsed
// file (every file it refers to read through one FileReader, with the size limit and the editor's open
// buffers) -> its jobs -> the findings of the selected rules. What the callers do with the result
// (suppressions and snippets for check, layouts for plan, hovers in the editor) is theirs.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lint/engine/engine.h"
#include "lint/model/parsed_file.h"
#include "lint/model/source_files.h"
#include "lint/model/source_text.h"
#include "lint/model/work_budget.h"
#include "lint/resolve/job.h"
#include "rules/api/diagnostic.h"
#include "rules/api/rule.h"

namespace parlint {

struct AnalysedFile {
  std::string path;
  std::unique_ptr<SourceText> source;  // lone CRs end lines here, for every reader alike
  ParsedFile parsed;
  std::vector<std::unique_ptr<Job>> jobs;
  std::vector<Diagnostic> file_findings;              // of the rules that read the file
  std::vector<std::vector<Diagnostic>> job_findings;  // of the rules that read a job, per job
};

// `options` are the file's own (its configuration applied). Findings are not yet suppressed.
AnalysedFile analyse_file(const std::string& path, std::string text, const FileReader& reader,
                          const EngineOptions& options);

// The findings of the selected job rules for one job, in rule order (a job from the command line, or
// one of a file's).
std::vector<Diagnostic> check_job(const Job& job, const EngineOptions& options);

// A rule's finding as a diagnostic: the rule's code, name and severity (a configured override, and at most
// a warning when it rests on a fallback value), at `fallback` when the finding names no place.
Diagnostic to_diagnostic(const Rule& rule, Finding&& f, const Location& fallback,
                         const std::map<std::string, Severity>& overrides);

// The parser its kind calls for, then the files it refers to (configs, sourced scripts) resolved, all
// within `budget` (a default one when null). Lines left unread for the budget are in `unread` (PL903).
// `trees` keeps the file's parse tree for reparsing it after an edit (the language server's buffers), and
// `uncalled` a shell file's walks of its never-called functions. `referenced` and `modules`, when given,
// hold the referenced files and the imported Python modules the run parsed already.
ParsedFile parse_source(const std::string& path, const SourceText& source, const FileReader& reader,
                        WorkBudget* budget = nullptr, TreeCache* trees = nullptr,
                        ReferencedFiles* referenced = nullptr, PythonModuleCache* modules = nullptr,
                        UncalledFunctionMemo* uncalled = nullptr);

}  // namespace parlint
