#pragma once
// SLURM resource options as written after #SBATCH, sbatch, srun and salloc: --nodes / -N (ranges,
// placeholders), --gpus-per-node ([type:]N), --gres=gpu[:type]:N, --gpus / -G (total),
// --ntasks-per-node, --ntasks / -n.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/word.h"

namespace parlint {

// The resources one allocation (or one het-job group, or one srun step) provides.
struct Allocation {
  std::optional<Fact> nodes, gpus_per_node, ntasks_per_node, ntasks, gpus_total;
  std::optional<Fact> gpus_per_task;  // --gpus-per-task (or --gpus-per-socket: per_task_unit says which)
  std::string per_task_unit;
  std::optional<Location> exclusive;  // --exclusive (whole nodes), where it was written
  bool any = false;                   // some SLURM option was seen
};

// Reads options from `words` into `alloc`. With `stop_at_command` (srun, salloc, sbatch command lines)
// it stops at the first word that is not an option and returns its index; otherwise it reads all.
std::size_t parse_slurm_options(std::span<const Word> words, Allocation& alloc, Origin origin,
                                std::string_view prefix, bool stop_at_command);

// Derives GPUs per node from a total (--gpus=16 over 2 nodes) or a per-task count (--gpus-per-task=1 with
// --ntasks-per-node=8) when only that is known.
void derive_gpus_per_node(Allocation& alloc);

}  // namespace parlint
