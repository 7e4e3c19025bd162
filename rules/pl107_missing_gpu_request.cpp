// PL107 missing-gpu-request: a GPU training launch under SLURM that requests no GPUs.
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kGpusPerNode};

constexpr RuleInfo kInfo{
    "PL107",
    "missing-gpu-request",
    Severity::kWarning,
    "a GPU training launch under SLURM with no --gpus-per-node, --gres=gpu:N, --gpus or -G",
    R"md(# PL107 missing-gpu-request

## What it does
Reports a training launch in an sbatch script whose `#SBATCH` directives make the allocation when
neither the directives nor srun request GPUs: no `--gpus-per-node`, `--gres=gpu:N`, `--gpus` or `-G`.
A script without directives runs inside an allocation made elsewhere (`salloc`, or `sbatch` options on
its command line), and an `srun` step there gets the GPUs that allocation holds (srun(1), `--gres`: a
step is allocated all of the job's generic resources by default), so it is not reported. Nor is a script
whose directives only name the job (`--job-name`, `--time`, `--output`, `--account`): its size — nodes,
tasks, GPUs, partition — is given on the `sbatch` command line that submits it (benchmark wrappers such
as `sbatch -N $DGXNNODES run.sub`), which parlint does not see.

With `#SBATCH --exclusive` (whole nodes) it is an info: on most GPU partitions a whole node comes
with its GPUs, so the job runs; naming them still documents the requirement and lets parlint check GPUs
per node.

## Why
Many clusters give a job no GPUs unless it asks (`CUDA_VISIBLE_DEVICES` is empty, cgroups hide the
devices), so the job waits in the queue and then fails at `torch.cuda.set_device`. Where a
partition does hand out GPUs by default, saying so in the script documents the requirement and lets
parlint check GPUs per node (PL101, PL105).

## Example
```bash
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
srun python pretrain_gpt.py --tensor-model-parallel-size 8
```

## Fix
```bash
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
srun python pretrain_gpt.py --tensor-model-parallel-size 8
```

## Framework behaviour
CUDA initialisation fails (`no CUDA GPUs are available`) on clusters without default GPUs.

## References
- `man sbatch` (`--gpus-per-node`, `--gres=gpu:N`, `--gpus`/`-G`: the forms of a GPU request)
- Slurm, Generic Resource (GRES) Scheduling, https://slurm.schedmd.com/gres.html (GPUs are a generic
  resource; a job sees only the GPUs it was allocated)
)md",
    kReads};

class MissingGpuRequest final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    // Without #SBATCH directives the script runs inside an allocation made elsewhere (salloc, sbatch
    // options on its command line), and an srun step gets the GPUs that allocation holds.
    if (!job.under_slurm() || !job.allocates() || !job.gpu_entry_point() || job.is_written(Key::kGpusPerNode))
      return;
    Finding f;
    f.location = {job.path(), job.range()};
    if (const auto& whole = job.whole_nodes()) {
      // Whole nodes of a GPU partition come with their GPUs on most clusters; where GPUs are a
      // consumable resource that must be named, they do not. Advice, not an error.
      f.severity = Severity::kInfo;
      f.message =
          "this training launch asks for whole nodes (--exclusive) but names no GPUs (no --gpus-per-node, "
          "--gres=gpu:N, --gpus or -G): it gets the nodes' GPUs where the partition hands them out with the "
          "node, and none where GPUs must be requested as a resource";
      f.related.push_back({*whole, "whole nodes requested here"});
    } else {
      f.message =
          "this training launch runs under SLURM but the job requests no GPUs (no --gpus-per-node, "
          "--gres=gpu:N, --gpus or -G): where GPUs are not given by default it starts without any";
    }
    f.help = "add #SBATCH --gpus-per-node=8 (or the count your nodes have)";
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(MissingGpuRequest);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
