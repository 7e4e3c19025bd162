// PL108 late-sbatch-directive: an #SBATCH line after the first command of a batch script.
#include <fmt/format.h>

#include <map>

#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL108", "late-sbatch-directive", Severity::kWarning,
                         "an #SBATCH line after the first command, which sbatch ignores",
                         R"md(# PL108 late-sbatch-directive

## What it does
Reports `#SBATCH` lines that come after the first command of a batch script. The lines one command cuts
off are one finding, at the first of them, naming every option lost and pointing at the others.

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

  // One finding per cause: the late #SBATCH lines a first command cut off are reported together, at the
  // first of them, with the others as related lines (a misplaced block of directives was a warning per
  // line, each saying the same thing).
  void check_file(const ParsedFile& file, std::vector<Finding>& out) const override {
    std::map<int, std::vector<const ScriptFormNote*>> by_command;  // the first command's line -> its notes
    for (const auto& note : file.script_form)
      if (note.kind == ScriptFormNote::Kind::kLateSbatchDirective)
        by_command[note.other_line].push_back(&note);
    for (const auto& [command_line, notes] : by_command) {
      std::vector<std::string> options;
      for (const ScriptFormNote* note : notes) options.push_back(options_of(note->text));
      const ScriptFormNote& first = *notes.front();
      std::string directive = shortened(first.text);
      Finding f;
      f.location = {file.path, first.range};
      if (notes.size() == 1) {
        f.message = fmt::format(
            "`{}` comes after the first command (line {}): sbatch stops reading #SBATCH lines at the first "
            "command, so it ignores this one and the job runs without {}",
            directive, command_line, options.front());
        f.help = fmt::format("move it above line {}, with the other #SBATCH lines", command_line);
      } else {
        int last = notes.back()->range.start.line;
        std::string listed;
        constexpr std::size_t kListed = 6;
        for (std::size_t i = 0; i < options.size() && i < kListed; ++i)
          listed += (i == 0 ? "" : i + 1 == options.size() ? " and " : ", ") + options[i];
        if (options.size() > kListed) listed += fmt::format(" and {} more", options.size() - kListed);
        f.message = fmt::format(
            "{} #SBATCH lines (lines {}-{}, from `{}`) come after the first command (line {}): sbatch stops "
            "reading #SBATCH lines at the first command, so it ignores them and the job runs without {}",
            notes.size(), first.range.start.line, last, directive, command_line, listed);
        f.help = fmt::format("move them above line {}, with the other #SBATCH lines", command_line);
      }
      f.related.push_back({{file.path, {{command_line, 1}, {command_line, 2}}}, "the first command"});
      for (std::size_t i = 1; i < notes.size(); ++i)
        f.related.push_back({{file.path, notes[i]->range}, "ignored as well: " + shortened(notes[i]->text)});
      out.push_back(std::move(f));
    }
  }

 private:
  static std::string shortened(const std::string& text) {
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  }
  // "--nodes=4" of "#SBATCH --nodes=4 # four nodes".
  static std::string options_of(const std::string& text) {
    std::string options = shortened(text);
    options = options.size() > 8 ? options.substr(8) : options;
    if (auto hash = options.find(" #"); hash != std::string::npos) options.resize(hash);
    return options;
  }
};

PARLINT_REGISTER_RULE(LateSbatchDirective);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
