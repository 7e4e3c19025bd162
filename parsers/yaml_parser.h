#pragma once
// YAML configs (NeMo 1, NeMo-Framework-Launcher, Megatron-Bridge dumps, Megatron-LM test configs)
// -> one job per YAML document.
#include <string_view>

#include "lint/source_text.h"
#include "parsers/parsed_file.h"

namespace parlint {

ParsedFile parse_yaml(std::string_view path, const SourceText& source);

}  // namespace parlint
