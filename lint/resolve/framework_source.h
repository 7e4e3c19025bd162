#pragma once
// The user's own copy of the frameworks (DESIGN §4 `framework-source:`, `megatron-core-version:`): a
// Megatron-Bridge tree the project vendors (3rdparty/Megatron-Bridge, a megatron/bridge package in the
// checkout, or the configured path) is where its recipes are read from, statically, in place of the
// built-in table; and the Megatron-Core version a job runs decides the rules whose checks changed between
// versions. Nothing found: the built-in table and the newest semantics.
#include <optional>
#include <string>

#include "lint/knowledge/core_version.h"
#include "lint/model/parsed_file.h"
#include "lint/model/source_files.h"
#include "parsers/python/python_module_cache.h"

namespace parlint {

struct FrameworkSource {
  std::string package;  // the megatron/bridge folder
  std::string version;  // "0.7.0" from its package_info.py; empty when it names none
  std::string how;      // "framework-source: in ./.parlint.yaml", "found above the file"
};

// The Megatron-Bridge source that applies to `file`: `configured` (absolute; a checkout, its src folder or
// the megatron/bridge folder itself) when given, else the first of 3rdparty/Megatron-Bridge, src/ and the
// checkout itself found in the file's folder or above it, up to the top of its git checkout.
std::optional<FrameworkSource> bridge_source_for(const std::string& file,
                                                 const std::optional<std::string>& configured,
                                                 const FileReader& reader);

// The version `configured` declares, else the one of the Megatron-Core source in the file's checkout
// (3rdparty/Megatron-LM, a megatron/core package above the file); nullopt: unknown (the newest rules).
std::optional<CoreVersion> core_version_for(const std::string& file,
                                            const std::optional<CoreVersion>& configured,
                                            const FileReader& reader);

// Every job of `file` that starts from a Megatron-Bridge recipe takes that recipe's settings from the
// source (below the job's own, as for a local recipe), and the built-in table is not consulted for it.
// `modules`, when given, holds the Python modules the run parsed already.
void read_recipes_from_source(ParsedFile& file, const FrameworkSource& source, const FileReader& reader,
                              PythonModuleCache* modules = nullptr);

}  // namespace parlint
