#pragma once
// SLURM and shell launch scripts -> one job per training launch (torchrun, srun, python, bash -c
// strings, heredocs), with #SBATCH resources, shell variables, arrays and sourced files resolved
// statically. Nothing is ever executed.
#include <string_view>

#include "lint/model/parsed_file.h"
#include "lint/model/source_files.h"
#include "lint/model/source_text.h"
#include "lint/model/work_budget.h"
#include "parsers/adapter/launch_adapter.h"

namespace parlint {

class TreeCache;
class UncalledFunctionMemo;

// `adapters` are the frameworks a launch may belong to (parsers/frameworks: framework_adapters());
// `budget` is what reading the file may cost (a default budget of its own when null); `trees`, when
// given, holds the file's tree from its last parse, and the file is reparsed from it (an edited buffer);
// `uncalled`, when given, holds the walks of the file's never-called functions from its last lints, and
// replays those a fresh walk would repeat exactly.
ParsedFile parse_shell(std::string_view path, const SourceText& source, const LaunchAdapters& adapters,
                       const FileReader& reader = FileReader::disk(), WorkBudget* budget = nullptr,
                       TreeCache* trees = nullptr, UncalledFunctionMemo* uncalled = nullptr);

}  // namespace parlint
