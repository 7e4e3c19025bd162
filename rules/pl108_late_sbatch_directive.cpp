// PL108 late-sbatch-directive: an #SBATCH line after the first command of a batch script.
#include <fmt/format.h>

#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL108", "late-sbatch-directive", Severity::kWarning,
                         "an #SBATCH line after the first command, which sbatch ignores",
                         R"md(# PL108 late-sbatch-directive

## What it does
Reports `#SBATCH` lines that come after the first command of a batch script.

## Why
sbatch reads directives only from the comment block at the top of the script: "The batch script may
contain options preceded with "#SBATCH" before any executable commands in the script. sbatch will stop
processing further #SBATCH directives once the first non-comment non-whitespace line has been reached
in the script" (sbatch(1), Slurm 22.05). A later `#SBATCH --nodes=4` is an ordinary comment: the job
runs with the default (or the submit command's) resources, and nothing says so. parlint reads the
directives the way sbatch does, so the sizes in such a line are not used for any other check either.

## Example
```bash
#!/bin/bash
#SBATCH --job-name=pretrain
set -euo pipefail
#SBATCH --nodes=4
#SBATCH --gpus-per-node=8
srun torchrun --nnodes 4 --nproc_per_node 8 pretrain_gpt.py
```

## Fix
```bash
#!/bin/bash
#SBATCH --job-name=pretrain
#SBATCH --nodes=4
#SBATCH --gpus-per-node=8
set -euo pipefail
srun torchrun --nnodes 4 --nproc_per_node 8 pretrain_gpt.py
```

## Framework behaviour
SLURM (sbatch) ignores the line. Scripts that are not submitted with sbatch do not read directives at
all; the warning then says nothing wrong about the launch, and can be suppressed.

## References
- sbatch(1), DESCRIPTION: directives before any executable command
)md"};

class LateSbatchDirective final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const ParsedFile& file, std::vector<Finding>& out) const override {
    for (const auto& note : file.script_form) {
      if (note.kind != ScriptFormNote::Kind::kLateSbatchDirective) continue;
      std::string directive = note.text.size() > 60 ? note.text.substr(0, 57) + "..." : note.text;
      Finding f;
      f.location = {file.path, note.range};
      std::string options = directive.size() > 8 ? directive.substr(8) : directive;
      if (auto hash = options.find(" #"); hash != std::string::npos) options.resize(hash);
      f.message = fmt::format(
          "`{}` comes after the first command (line {}): sbatch stops reading #SBATCH lines at the first "
          "command, so it ignores this one and the job runs without {}",
          directive, note.other_line, options);
      f.help = fmt::format("move it above line {}, with the other #SBATCH lines", note.other_line);
      f.related.push_back({{file.path, {{note.other_line, 1}, {note.other_line, 2}}}, "the first command"});
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(LateSbatchDirective);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
