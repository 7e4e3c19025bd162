// PL900 syntax-error: a file (or a string parsed as shell) could not be parsed.
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{"PL900", "syntax-error", Severity::kError, "a file could not be parsed",
                         R"md(# PL900 syntax-error

## What it does
Reports input that parlint could not parse, at the broken region: invalid YAML, YAML nested deeper
than the parser allows, YAML whose aliases expand to more than a million nodes, and (with the shell
and Python parsers) broken scripts and command strings.

A training launch whose command line its entry point's argparse refuses is reported here too: a flag
that takes a value (`--tensor-model-parallel-size`, `-tp`) followed by another flag or by the end of the
line. That is what an unquoted variable that is empty gives (`--tensor-model-parallel-size $TP` with TP
empty is no word at all), always (`TP=`) or on one path of the script (`if [ $NODES -le 4 ]; then TP=4;
fi` leaves TP empty when the test is false; the message names that path). A variable whose own test
decides the branch (`if [ -z "${TP:-}" ]; then TP=4; fi`) comes from the environment otherwise, and is
not reported.

After a line bash refuses, the rest of the script is still read, as the user means it: a variable set
on the refused line (`CHECKPOINT=<path>`) is unknown from there on, never its earlier value or a default.

## Why
A file that does not parse will also fail in the framework (OmegaConf, Hydra, bash, Python), and
parlint cannot check the settings in the broken part. Facts from the parts that did parse are still
used.

## Example
```yaml
model:
  tensor_model_parallel_size: 2
   pipeline_model_parallel_size: 2   # PL900: bad indentation
```

## Fix
```yaml
model:
  tensor_model_parallel_size: 2
  pipeline_model_parallel_size: 2
```

## Framework behaviour
OmegaConf and PyYAML refuse the file when the job starts; bash stops at the line it cannot parse.
Python's argparse exits with "error: argument --tensor-model-parallel-size: expected one argument"
before Megatron-LM or Megatron-Bridge's run_recipe.py reads anything (`argparse.py`, `_match_argument`).

## References
- YAML 1.2.2 specification, https://yaml.org/spec/1.2.2/ (what a well-formed YAML document is)
- OmegaConf `omegaconf/_yaml.py:75-90@63b63041ed30` (OmegaConf's loader also refuses documents whose
  aliases expand past its node limit)
- bash(1), SHELL GRAMMAR and `bash -n` (a script bash itself cannot parse)
- The Python Language Reference, docs.python.org (what Python itself parses)
)md"};

class SyntaxErrorRule final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const ParsedFile& file, std::vector<Finding>& out) const override {
    for (const SyntaxError& e : file.errors) {
      Finding f;
      f.location = {file.path, e.range};
      f.message = e.message;
      f.help =
          e.help.empty() ? "fix the syntax here; settings in the unreadable part are not checked" : e.help;
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(SyntaxErrorRule);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
