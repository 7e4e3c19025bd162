// PL904 unresolved-launch: a launch whose parallel sizes or world size parlint could not resolve.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize,
                          Key::kContextParallelSize, Key::kExpertModelParallelSize, Key::kWorldSize};

constexpr RuleInfo kInfo{"PL904",
                         "unresolved-launch",
                         Severity::kInfo,
                         "a launch whose parallel sizes or world size parlint could not resolve",
                         R"md(# PL904 unresolved-launch

## What it does
Reports, once per job, a training launch (or a recipe parlint does not know) whose tensor, pipeline,
context or expert parallel size, or whose world size, ended **unknown**, and says what was not known and
why: a recipe parlint does not know, a `source`d file it could not read, `--nproc_per_node=gpu`, a value
set only at run time (`$SLURM_NNODES`, a script argument), a checkpoint the layout is loaded from
(`--use-checkpoint-args`), an argument list hidden in `$EXTRA_ARGS`.

## Why
An unknown value never fires a rule (a guess would give definite, false findings), so the checks that
need it — the world size against TP·PP·CP (PL102), TP against the NVLink domain (PL101), layers against
PP (PL402) — are skipped for that job. Without this note, `parlint check` prints nothing and exits 0 on a
launch it never understood, and a CI run goes green on it. Like shellcheck's SC1091 ("not following"),
PL904 says what was not followed. It is an `info`, so `--fail-on` is not affected; a team that wants every
launch resolved selects it (`--select PL904 --fail-on info`).

## Example
```bash
#!/bin/bash
#SBATCH --nodes=2
torchrun --nproc_per_node=gpu --nnodes=$SLURM_NNODES pretrain_gpt.py \
    --tensor-model-parallel-size 8 --pipeline-model-parallel-size 2
```
gives `info[PL904] this launch was not fully resolved, so the checks that need its world size did not
run: world size unknown (...)`.

## Fix
Write the value where parlint can read it:
```bash
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
torchrun --nproc_per_node=8 --nnodes=2 pretrain_gpt.py \
    --tensor-model-parallel-size 8 --pipeline-model-parallel-size 2
```
or pass it on parlint's command line (`--gpus-per-node 8`, a cluster profile), or accept that it is known
only at run time and suppress the note (`# parlint: ignore[PL904]`).

## Framework behaviour
Not a framework error: the framework reads the value at run time. The note is about what parlint could
check.

## References
- [How far it can be trusted](reliability.md): a value parlint did not read is unknown, never a default,
  and an unknown value never makes a finding
- shellcheck SC1091, https://www.shellcheck.net/wiki/SC1091 (the same idea for `source`)
)md",
                         kReads};

class UnresolvedLaunch final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    struct Named {
      Key key;
      const char* name;
    };
    static constexpr Named kSizes[] = {{Key::kTensorModelParallelSize, "TP"},
                                       {Key::kPipelineModelParallelSize, "PP"},
                                       {Key::kContextParallelSize, "CP"},
                                       {Key::kExpertModelParallelSize, "EP"},
                                       {Key::kWorldSize, "world size"}};
    // The unknown sizes, grouped by why (one reason often covers several: "TP, PP unknown (...)").
    std::vector<std::pair<std::string, std::string>> unknown;  // names, reason
    bool from_unknown_recipe = false;
    for (const auto& [key, name] : kSizes) {
      const Fact* f = job.fact(key);
      if (!f || f->value.is_known() || f->value.kind() == Value::Kind::kNull) continue;
      if (f->origin == Origin::kRecipeDefault) from_unknown_recipe = true;
      const std::string& reason = f->value.unknown_reason();
      auto same =
          std::find_if(unknown.begin(), unknown.end(), [&](const auto& u) { return u.second == reason; });
      if (same != unknown.end())
        same->first += std::string(", ") + name;
      else
        unknown.emplace_back(name, reason);
    }
    if (unknown.empty() || !(job.gpu_entry_point() || from_unknown_recipe)) return;
    Finding f;
    f.location = {job.path(), job.range()};
    std::string joined;
    for (const auto& [names, reason] : unknown)
      joined += (joined.empty() ? "" : "; ") +
                (reason.empty() ? names + " unknown" : fmt::format("{} unknown ({})", names, reason));
    f.message =
        fmt::format("{} was not fully resolved, so the checks that need these values did not run: {}",
                    job.description().empty() ? std::string("this launch") : job.description(), joined);
    f.help =
        "write the value where parlint can read it (in the script, a config it names, or --gpus-per-node / "
        "--cluster on parlint's command line); if it is known only at run time, suppress this note";
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(UnresolvedLaunch);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
