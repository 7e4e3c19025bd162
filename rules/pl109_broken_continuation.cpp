// PL109 broken-continuation: a backslash followed by blanks or a comment, which ends the command.
#include <fmt/format.h>

#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL109", "broken-continuation", Severity::kWarning,
                         "a backslash followed by blanks or a comment: the command ends there",
                         R"md(# PL109 broken-continuation

## What it does
Reports a line that seems to continue the command (it ends in a backslash) but does not, because blanks
or a comment follow the backslash, when the next line then starts with a flag or a Hydra override
(`policy.megatron_cfg.pipeline_model_parallel_size=2`, `+key=value`, `~key`).

## Why
A backslash continues a command only when it is the last character of the line. `\ ` followed by more
blanks is an escaped blank (an argument that is one space), and `\ # note` is that argument followed by
a comment: bash ends the command at the end of the line. The flags on the next lines become a command of
their own (`--num-layers: command not found`), which under `set -e` stops the script after the launch
and otherwise passes unnoticed; the launcher itself runs without them, with the framework's defaults.
parlint reads the launch the way bash does, so the flags after the break are not used by other checks.

## Example
```bash
torchrun --nproc_per_node 8 pretrain_gpt.py \
  --tensor-model-parallel-size 4 \  # TP inside the node
  --pipeline-model-parallel-size 2
```

## Fix
```bash
# TP inside the node
torchrun --nproc_per_node 8 pretrain_gpt.py \
  --tensor-model-parallel-size 4 \
  --pipeline-model-parallel-size 2
```

## Framework behaviour
bash runs the first part as the launch and tries to run the rest as a command called like the first flag.

## References
- bash(1), QUOTING: "A \<newline> pair is treated as a line continuation"
)md"};

class BrokenContinuation final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const ParsedFile& file, std::vector<Finding>& out) const override {
    for (const auto& note : file.script_form) {
      if (note.kind != ScriptFormNote::Kind::kBrokenContinuation) continue;
      Finding f;
      f.location = {file.path, note.range};
      f.message = fmt::format(
          "the backslash is followed by blanks or a comment, so it does not continue the line: bash ends the "
          "command here and runs line {} (`{} ...`) as a command of its own; its {} never reach the "
          "launch",
          note.other_line, note.text, note.text.starts_with("-") ? "flags" : "overrides");
      f.help =
          "end the line with the backslash itself: remove what follows it and put the comment on a line "
          "of its own";
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(BrokenContinuation);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
