// PL104 nested-launcher: torchrun started by srun with several tasks per node.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kNtasksPerNode, Key::kNprocPerNode};

constexpr RuleInfo kInfo{"PL104",
                         "nested-launcher",
                         Severity::kError,
                         "torchrun / torch.distributed.run started by srun with ntasks-per-node > 1",
                         R"md(# PL104 nested-launcher

## What it does
Reports `torchrun` (or `python -m torch.distributed.run` / `.launch`) started by `srun` while the
step runs more than one task per node (`--ntasks-per-node` > 1).

## Why
`srun` starts one copy of its command per task. With `--ntasks-per-node=8`, eight `torchrun`
processes start on every node and each spawns `--nproc_per_node` workers: 64 processes for 8 GPUs.
They all try to bind the same rendezvous port (`address already in use`), or, with c10d rendezvous,
form a far larger world than intended and oversubscribe every GPU. Use one launcher: either srun
starts the ranks itself (one task per GPU, no torchrun), or torchrun does (one task per node).

## Example
```bash
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
srun torchrun --nproc_per_node=8 --nnodes=2 pretrain_gpt.py --tensor-model-parallel-size 2
```

## Fix
```bash
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nproc_per_node=8 --nnodes=2 pretrain_gpt.py --tensor-model-parallel-size 2
```

## Framework behaviour
Not a framework check: torch.distributed fails at rendezvous (port collisions) or starts a wrong world.

## References
- `man srun` (srun runs one copy of its command per task; `--ntasks-per-node`)
- PyTorch torchrun documentation, https://pytorch.org/docs/stable/elastic/run.html (each torchrun starts
  `--nproc-per-node` workers)
- NeMo-Run `nemo_run/core/execution/slurm.py:710-712@0c49127199ca` (with a torchrun launcher it sets one
  task per node)
- Megatron-Bridge `skills/nemo-mbridge-multi-node-slurm/SKILL.md:101@067f987df03b` (8 tasks x 8 torchrun
  workers = 64 processes per node: EADDRINUSE)
)md",
                         kReads};

class NestedLauncher final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (job.launch() != LaunchKind::kTorchrun || !job.under_srun()) return;
    const Fact* tasks = job.fact(Key::kNtasksPerNode);
    auto n = job.get_int(Key::kNtasksPerNode);
    if (!tasks || !n || *n <= 1) return;
    auto procs = job.get_int(Key::kNprocPerNode);
    Finding f;
    f.location = tasks->location.in_file() ? tasks->location : Location{job.path(), job.range()};
    f.message = fmt::format(
        "torchrun is started by srun with {} tasks per node ({}): srun starts {} torchrun launchers on every "
        "node",
        *n, describe_source(*tasks, job.path()), *n);
    if (procs)
      f.message += fmt::format(
          ", each spawning {} workers ({} processes per node); they collide on the rendezvous "
          "port or form the wrong world",
          *procs, *n * *procs);
    else
      f.message +=
          ", each spawning its own workers; they collide on the rendezvous port or form the wrong world";
    f.help =
        "use --ntasks-per-node=1 so that one torchrun per node spawns the workers, or drop torchrun and let "
        "srun start one task per GPU";
    f.related.push_back({Location{job.path(), job.range()}, "torchrun started here"});
    if (const Fact* p = job.fact(Key::kNprocPerNode); p && p->location.in_file())
      f.related.push_back({p->location, "workers per launcher set here"});
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(NestedLauncher);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
