#pragma once
// Python recipes and training scripts -> one job per function that sets parallel fields, one per
// module-level config object, and one for the module body. Nothing is imported or evaluated.
#include <string_view>

#include "lint/model/parsed_file.h"
#include "lint/model/source_files.h"
#include "lint/model/source_text.h"
#include "lint/model/work_budget.h"
#include "parsers/python/python_module_cache.h"

namespace parlint {

// `budget` is what reading the file and the local modules it imports may cost (a default budget of its
// own when null). `modules`, when given, holds the modules the run read and parsed already (and keeps
// those parsed here).
ParsedFile parse_python(std::string_view path, const SourceText& source,
                        const FileReader& reader = FileReader::disk(), WorkBudget* budget = nullptr,
                        PythonModuleCache* modules = nullptr);

}  // namespace parlint
