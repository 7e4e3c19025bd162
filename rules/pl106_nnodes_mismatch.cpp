// PL106 nnodes-mismatch: the launcher's node count differs from the allocation's.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kNodes, Key::kNnodes};

constexpr RuleInfo kInfo{"PL106",
                         "nnodes-mismatch",
                         Severity::kError,
                         "launcher --nnodes differs from the allocation's node count",
                         R"md(# PL106 nnodes-mismatch

## What it does
Compares the node count the launcher is told (`torchrun --nnodes`, NeMo's `trainer.num_nodes`) with
the node count of the SLURM allocation (`#SBATCH --nodes`, `srun -N`).

## Why
With more launcher nodes than allocated, the rendezvous waits for nodes that never come and the job
hangs until its time limit. With fewer, the extra nodes either join a rendezvous that is already
full (errors) or idle, and with NeMo the global ranks no longer match SLURM's.

## Example
```bash
#!/bin/bash
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nnodes=2 --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 8
```

## Fix
```bash
#!/bin/bash
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nnodes=$SLURM_NNODES --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 8
```

`parlint check --fix` sets the launcher's count to the allocation's where it is written (a **safe** fix:
the old count hangs or is refused). It is not offered when either count is only a fallback such as
`${SLURM_NNODES:-1}`.

## Framework behaviour
torch.distributed's rendezvous times out (or the job hangs). NeMo's `trainer.num_nodes` is checked by
PyTorch Lightning: its SLURMEnvironment.validate_settings raises when `num_nodes` differs from
`SLURM_NNODES`. A NeMo-Run job (`run.run(recipe, executor=run.SlurmExecutor(nodes=...))`) runs on the
executor's nodes; NeMo's ConfigValidationPlugin asserts `task.trainer.num_nodes == executor.nodes`
(nemo/lightning/run/plugins.py:344 at NeMo 8cfedd720346).

## References
- Lightning `src/lightning/fabric/plugins/environments/slurm.py:167-172@7f0c3436cd3f`
  (SLURMEnvironment.validate_settings: `num_nodes` must equal `SLURM_NNODES`)
- NeMo `nemo/lightning/run/plugins.py:341-345@8cfedd720346` (ConfigValidationPlugin:
  `trainer.num_nodes == executor.nodes`)
- PyTorch torchrun documentation, https://pytorch.org/docs/stable/elastic/run.html (`--nnodes`: the
  rendezvous waits for that many nodes)
- `man sbatch` (`--nodes`) and `man srun` (`-N`)
)md",
                         kReads,
                         FixAvailability::kSafe};

class NnodesMismatch final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Fact* nnodes = job.fact(Key::kNnodes);
    const Fact* nodes = job.fact(Key::kNodes);
    if (!nnodes || !nodes || !job.is_written(Key::kNnodes) || !job.is_written(Key::kNodes)) return;
    auto a = nnodes->value.as_int(), b = nodes->value.as_int();
    if (!a || !b || *a == *b) return;
    Finding f;
    f.location = nnodes->location;
    f.weak = nnodes->weak || nodes->weak;
    // NeMo's trainer.num_nodes is what Lightning is told, not a launcher: Lightning checks it.
    bool lightning = nnodes->spelling.ends_with("num_nodes");
    if (lightning) {
      f.message = fmt::format(
          "the trainer is told num_nodes={} ({}) but the job runs on {} node{} ({}): PyTorch Lightning "
          "refuses to start (SLURMEnvironment raises \"You set `num_nodes={}` in Lightning, but the number "
          "of nodes configured in SLURM `--nodes={}` does not match\")",
          *a, describe_source(*nnodes, job.path()), *b, *b == 1 ? "" : "s",
          describe_source(*nodes, job.path()), *a, *b);
      f.help = fmt::format("set {} to {} (the node count the job is given)", nnodes->spelling, *b);
    } else {
      f.message = fmt::format("the launcher starts {} node{} ({}) but the allocation has {} ({}): {}", *a,
                              *a == 1 ? "" : "s", describe_source(*nnodes, job.path()), *b,
                              describe_source(*nodes, job.path()),
                              *a > *b ? "the rendezvous waits for nodes that never arrive and the job hangs"
                                      : "the other allocated nodes join a full rendezvous or sit idle");
      f.help = fmt::format("set {} to {} (or $SLURM_NNODES) so that both agree", nnodes->spelling, *b);
    }
    f.related = related_locations(*nodes, "allocation's node count set here");
    // Safe: a launch told another node count than it is given hangs or is refused. Only when both counts
    // are written values, not fallbacks.
    if (!f.weak)
      f.fix = FixRequest{FixApplicability::kSafe,
                         fmt::format("set {} to {}, the allocation's node count", nnodes->spelling, *b),
                         {set_value(*nnodes, Value::integer(*b))}};
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(NnodesMismatch);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
