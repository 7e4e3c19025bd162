// PL903 unread-region: lines of a valid file that parlint's grammar could not read.
#include <fmt/format.h>

#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL903", "unread-region", Severity::kInfo,
                         "lines a valid file holds that parlint could not read",
                         R"md(# PL903 unread-region

## What it does
Reports lines that the file's own language accepts but that parlint's grammar (tree-sitter-bash) could
not read, and template files (Jinja `{{ ... }}`, `{% ... %}`) whose placeholders are filled in before the
shell sees them. Settings written on those lines are not checked; every fact outside them still is.

It also reports where parlint stopped reading a file that was over its per-file budget (400 million
units of work in `check` and `plan`, 100 million in the language server, counted rather than timed so the
same file stops at the same line on any machine; `PARLINT_FILE_BUDGET` changes them): the lines from there on are not checked, the lines before are, and every other file is linted as
usual. And a YAML document over parlint's bounds, which its own loader accepts: aliases that expand to
more than 200,000 values (an alias bomb), more than 200,000 values written out, or mappings nested more
than 512 deep. Nothing of such a document is read, so that finding is a warning (with the default
`--fail-on warning`, CI does not pass a file whose settings were never seen); the others are info.

## Why
A syntax error (PL900) is reported only where the file's own language refuses it: parlint checks a
shell file against bash's own rules (unclosed quotes, expansions and compound commands, a closing
keyword with nothing open, a redirection without a target) before calling it broken. A construct bash
accepts but the grammar does not read is parlint's limitation, not the user's mistake, so it is an
`info` that says which lines were skipped. parlint already reads the forms the grammar lacks that real
launch scripts use (a backslash continuation on the last line, `$((10#$i))`, `${A:$K+1}`, heredoc
bodies with lines that start with the delimiter, `;&` and `;;&` in `case`).

## Example
`\<` inside `[ ]` is a valid string comparison that the grammar does not read:
```bash
if [ "$A" \< "$B" ]; then echo older; fi
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2
```
gives `info[PL903] line 1 was not read: valid bash that parlint's grammar (tree-sitter-bash) does not
read; settings there are not checked`, and the launch on line 2 is still checked.

## Fix
Nothing is wrong with the file. To have the line read, write it in a form the grammar reads:
```bash
if [[ "$A" < "$B" ]]; then echo older; fi
torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2
```
or suppress the note with `# parlint: ignore[PL903]`.

## Framework behaviour
bash runs the file as written (Python and YAML loaders too: nothing here is the file's error).

## References
- tree-sitter-bash 0.25.1 (the grammar parlint reads shell with, pinned in deps.lock),
  https://github.com/tree-sitter/tree-sitter-bash
- bash(1), SHELL GRAMMAR and QUOTING (what bash itself accepts)
- Jinja, Template Designer Documentation, https://jinja.palletsprojects.com/en/stable/templates/
  (`{{ ... }}` and `{% ... %}` are filled in before the shell runs the file)
)md"};

class UnreadRegion final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const ParsedFile& file, std::vector<Finding>& out) const override {
    for (const auto& region : file.unread) {
      Finding f;
      f.location = {file.path, region.range};
      int first = region.range.start.line, last = region.range.end.line;
      f.message = fmt::format(
          "{} not read: {}; settings there are not checked",
          first == last ? fmt::format("line {} was", first) : fmt::format("lines {}-{} were", first, last),
          region.reason);
      if (region.nothing_read) f.severity = Severity::kWarning;
      f.help = region.help.empty() ? "nothing is wrong with the file; write the settings there in a plainer "
                                     "form to have them checked"
                                   : region.help;
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(UnreadRegion);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
