// PL105 ranks-per-node-mismatch: processes per node differ from GPUs per node.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kGpusPerNode, Key::kNtasksPerNode, Key::kNprocPerNode, Key::kNodes};

constexpr RuleInfo kInfo{
    "PL105",
    "ranks-per-node-mismatch",
    Severity::kError,
    "ranks per node (nproc_per_node, or ntasks-per-node for srun-native launches) differ from GPUs per node",
    R"md(# PL105 ranks-per-node-mismatch

## What it does
Compares the training ranks started on each node with the GPUs each node has:
`--nproc_per_node` for torchrun, `trainer.devices` for NeMo launches, and `--ntasks-per-node` when
srun starts the ranks itself.
- **error**: more ranks than GPUs — several ranks share a GPU (out of memory, or NCCL refuses
  duplicate GPUs);
- **warning**: fewer ranks than GPUs — the rest of the node's GPUs sit idle.
- **error**: with a cluster profile chosen (`--cluster`, or `cluster:` in the configuration), a job
  that asks for more GPUs per node than the profile's nodes hold (`#SBATCH --gpus-per-node=8` with
  `cluster: gb200-nvl72`, whose nodes hold 4): SLURM refuses to queue it, and a launcher that starts
  that many ranks on such a node puts several on one GPU.

## Why
Each Megatron rank drives exactly one GPU (`torch.cuda.set_device(local_rank)`). The count per node
must match the GPUs the allocation gives each node.

## Example
```bash
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nnodes=2 --nproc_per_node=4 pretrain_gpt.py --tensor-model-parallel-size 4
```

## Fix
```bash
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
srun torchrun --nnodes=2 --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 4
```

`parlint check --fix` sets the ranks per node to the GPUs per node where the rank count is written: a
**safe** fix when there are more ranks than GPUs (that cannot run), an **unsafe** one when GPUs sit idle
(more ranks raise the data-parallel size, and with it what the batch sizes must divide).

## Framework behaviour
Too many ranks: CUDA out-of-memory or `Duplicate GPU detected` in NCCL. Too few: the job runs on
part of what it was given.

A request for more GPUs per node than the nodes hold: `sbatch` refuses it at submission with
`Requested node configuration is not available`.

## Configuration
The nodes' GPU count is the chosen profile's (`parlint clusters` lists them); a profile guessed from a
recipe's name or the default profile never makes a request too large. Without a GPU request in the job (and no `--gpus-per-node`), GPUs per node are unknown and this rule
is silent; PL107 reports the missing request. When PL104 fires for a launch, PL105 is not reported.

## References
- Megatron-LM `megatron/training/initialize.py:289@d98e8a64ddf3` (each rank takes GPU `local_rank`)
- Megatron-Bridge `src/megatron/bridge/training/initialize.py:720@067f987df03b` (the same, from the local
  rank)
- Lightning `src/lightning/fabric/plugins/environments/slurm.py:161-166@7f0c3436cd3f` (under srun, NeMo's
  `trainer.devices` must equal `--ntasks-per-node`)
- NCCL issue https://github.com/NVIDIA/nccl/issues/418 ("Duplicate GPU detected": two ranks on one GPU are
  refused; a maintainer says it cannot work)
- `man sbatch` (`--gpus-per-node`, `--ntasks-per-node`)
- SLURM `src/common/slurm_errno.c@0001e1b447b8` (`ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE`, "Requested
  node configuration is not available": the submission error for a request no node can meet)
)md",
    kReads,
    FixAvailability::kSafeOrUnsafe};

class RanksPerNodeMismatch final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (request_exceeds_node(job, out)) return;
    if (!job.gpu_entry_point()) return;  // a data or checkpoint tool uses the GPUs it needs, if any
    Key ranks_key;
    switch (job.launch()) {
      case LaunchKind::kTorchrun:
      case LaunchKind::kLightning:
        ranks_key = Key::kNprocPerNode;
        break;
      case LaunchKind::kSrunNative:
        ranks_key = Key::kNtasksPerNode;
        break;
      default:
        return;
    }
    // PL104 covers srun-started torchrun with several tasks per node.
    if (job.launch() == LaunchKind::kTorchrun && job.under_srun() &&
        job.get_int(Key::kNtasksPerNode).value_or(1) > 1)
      return;
    const Fact* ranks = job.fact(ranks_key);
    const Fact* gpus = job.fact(Key::kGpusPerNode);
    auto r = job.get_int(ranks_key), g = job.get_int(Key::kGpusPerNode);
    if (!ranks || !gpus || !r || !g || *r == *g || *r <= 0 || *g <= 0) return;
    Finding f;
    f.location = ranks->location.in_file() ? ranks->location : Location{job.path(), job.range()};
    std::string ranks_text =
        ranks->location.in_file() ? describe_source(*ranks, job.path()) : ranks->spelling;
    if (*r > *g) {
      f.severity = Severity::kError;
      f.message = fmt::format(
          "{} ranks per node ({}) but {} GPUs per node ({}): {} ranks would share GPUs, which "
          "runs out of memory or fails in NCCL with duplicate GPUs",
          *r, ranks_text, *g, describe_source(*gpus, job.path()), *r - *g);
    } else {
      f.severity = Severity::kWarning;
      f.message =
          fmt::format("{} ranks per node ({}) but {} GPUs per node ({}): {} GPUs on every node stay idle", *r,
                      ranks_text, *g, describe_source(*gpus, job.path()), *g - *r);
    }
    f.help = fmt::format("start {} ranks per node (one per GPU), or request {} GPUs per node", *g, *r);
    f.related = related_locations(*gpus, "GPUs per node set here");
    // One rank per GPU: safe where ranks would share GPUs (that cannot run); unsafe where GPUs sit idle
    // (more ranks change the data-parallel size and with it the batch arithmetic).
    if (!ranks->weak && !gpus->weak)
      f.fix = FixRequest{*r > *g ? FixApplicability::kSafe : FixApplicability::kUnsafe,
                         fmt::format("start {} ranks per node (set {} to {})", *g, ranks->spelling, *g),
                         {set_value(*ranks, Value::integer(*g))}};
    out.push_back(std::move(f));
  }

 private:
  // The job's own GPUs per node against the nodes of the profile the user chose: a request no node can
  // meet. True when reported (the rank comparison would then weigh ranks against GPUs the node lacks).
  static bool request_exceeds_node(const Job& job, std::vector<Finding>& out) {
    const ClusterProfile* cluster = job.user_cluster();
    const Fact* gpus = job.fact_in_file(Key::kGpusPerNode);
    auto r = job.get_int(Key::kGpusPerNode);
    if (!cluster || cluster->gpus_per_node <= 0 || !gpus || gpus->weak || !r || *r <= cluster->gpus_per_node)
      return false;
    // `--gpus=16` is split over the nodes asked for; with no node count SLURM chooses how many.
    if (gpus->spelling.find("(total / nodes)") != std::string::npos && !job.fact_in_file(Key::kNodes))
      return false;
    const int g = cluster->gpus_per_node;
    const bool slurm = gpus->origin == Origin::kSbatchDirective ||
                       (gpus->origin == Origin::kLauncherFlag && job.under_slurm());
    Finding f;
    f.location = gpus->location;
    f.severity = Severity::kError;
    if (slurm) {
      f.message = fmt::format(
          "{} asks for {} GPUs per node, but nodes of the {} profile hold {}: SLURM refuses to queue the job "
          "(\"Requested node configuration is not available\")",
          describe_source(*gpus, job.path()), *r, cluster->name, g);
    } else {
      f.message = fmt::format(
          "{} starts {} ranks per node, but nodes of the {} profile hold {} GPUs: {} ranks would share GPUs, "
          "which runs out of memory or fails in NCCL with duplicate GPUs",
          describe_source(*gpus, job.path()), *r, cluster->name, g, *r - g);
    }
    std::string nodes;
    if (auto n = job.get_int(Key::kNodes); n && *n > 0 && job.fact_in_file(Key::kNodes))
      nodes = fmt::format(" on {} nodes instead of {} to keep {} GPUs", (*n * *r + g - 1) / g, *n, *n * *r);
    f.help = fmt::format(
        "ask for {} GPUs per node and start {} ranks per node{}; if these nodes do hold {}, choose the "
        "profile "
        "that describes them (`parlint clusters` lists them)",
        g, g, nodes, *r);
    out.push_back(std::move(f));
    return true;
  }
};

PARLINT_REGISTER_RULE(RanksPerNodeMismatch);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
