#pragma once
// Cross-file resolution for launches: a shell launch pulls in the local files it names — the Python
// script it runs (its module body, or the function named by --recipe), config files (--config-file,
// Hydra --config-path/--config-name) and config-group choices (NeMo-Framework-Launcher training=gpt3/5b
// -> conf/training/gpt3/5b.yaml) — at lower precedence than the launch's own arguments. Files are looked
// for next to the launching script, then at the top of its git checkout, then in the working directory.
#include <cstddef>

#include "lint/model/parsed_file.h"
#include "lint/model/source_files.h"
#include "lint/model/work_budget.h"
#include "lint/resolve/referenced_files.h"
#include "parsers/python/python_module_cache.h"

namespace parlint {

// The files it refers to are read with `budget` (the referring file's), or each with its own when null;
// `shared`, when given, holds those the run parsed already (and keeps the ones parsed here); `modules`,
// the Python modules they import.
void resolve_referenced_files(ParsedFile& file, const FileReader& reader, WorkBudget* budget = nullptr,
                              ReferencedFiles* shared = nullptr, PythonModuleCache* modules = nullptr);

}  // namespace parlint
