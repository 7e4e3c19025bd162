#pragma once
// YAML configs (NeMo 1, NeMo-Framework-Launcher, Megatron-Bridge dumps, Megatron-LM test configs)
// -> one job per YAML document.
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/parsed_file.h"
#include "lint/model/source_text.h"
#include "lint/model/work_budget.h"
#include "parsers/adapter/document_adapter.h"

namespace parlint {

// `adapters` are the frameworks a document may belong to (parsers/frameworks: framework_documents());
// `budget` is what reading the file may cost (a default budget of its own when null); `environment`, the
// variables the launch's environment sets, which ${oc.env:X} reads (unknown when null).
ParsedFile parse_yaml(std::string_view path, const SourceText& source, const DocumentAdapters& adapters,
                      WorkBudget* budget = nullptr,
                      const std::vector<ExportedVariable>* environment = nullptr);

// The config-group choices of a Hydra `defaults:` list (`- training: gpt3/5b`), in order; other entries
// (`_self_`, `optional x@y: z`, plain names) are skipped. Empty when the file does not parse.
std::vector<std::pair<std::string, std::string>> hydra_defaults(const SourceText& source);

// Whether the key at `path` set to `value` (a YAML key or a launch's override) makes the model config
// come from a .nemo checkpoint (NeMo 1 fine-tuning, NeMo-Aligner): what the config leaves out is then
// the checkpoint's, not a default.
bool restores_checkpoint_config(const std::vector<std::string>& path, std::string_view value);

}  // namespace parlint
