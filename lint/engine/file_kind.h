#pragma once
// What kind of syntax a file holds, from its name and (for unknown names) its first bytes. One table of
// extensions, for the folder walk and for the parser choice alike.
#include <optional>
#include <string_view>

namespace parlint {

enum class FileKind { kYaml, kPython, kShell, kNone };

// The syntax an extension (".sh", ".yaml") names, or kNone.
FileKind kind_of_extension(std::string_view extension);

// A shell script without an extension: a shell #! line, or #SBATCH directives.
bool looks_like_shell(std::string_view head);

// The syntax a file's name or first bytes name: its extension (a template's inner one: slurm.sh.j2), its
// #! line, its #SBATCH directives; standard input ("-") is YAML unless its first bytes say otherwise.
// nullopt for any other file (a Makefile, a LICENSE, an extension-less name pre-commit passes).
std::optional<FileKind> recognized_kind(std::string_view path, std::string_view head);

// The parser for a file: its recognized kind, else YAML, the most common config syntax (the pipeline
// keeps what YAML reads of an unrecognized file only when it is YAML: see recognized_kind).
FileKind file_kind(std::string_view path, std::string_view head);

}  // namespace parlint
