#pragma once
// Mistakes in a batch script's form that bash and sbatch accept silently but that change what runs:
// an #SBATCH line after the first command (sbatch stops reading directives there) and a backslash
// followed by blanks or a comment (the command ends, and the flags on the next line are a command of
// their own).
#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

#include "lint/model/parsed_file.h"

namespace parlint {

// `text` is what the grammar read (`root` is its tree); positions are byte offsets into it.
struct ScriptFormFinding {
  ScriptFormNote::Kind kind;
  std::uint32_t begin, end;  // bytes of the directive, or of the backslash and what follows it
  std::string text;
  std::uint32_t other;  // byte of the first command, or of the command that was cut off
};

std::vector<ScriptFormFinding> find_script_form_mistakes(TSNode root, std::string_view text);

}  // namespace parlint
