#pragma once
// Per-GPU training memory of the most-loaded pipeline stage, after Megatron-LM's theoretical memory
// formulas (reference/memory-and-hardware.md §3): parameters in TP-sharded, replicated and
// expert-sharded buckets, bytes per parameter (18, or 6 + 12/DP with the distributed optimizer; experts
// use expert DP), and activations (SP + selective recompute branch, or the branch without SP).
#include <optional>
#include <string>
#include <vector>

#include "lint/resolve/job.h"

namespace parlint {

// An input the estimate did not find in the job and assumed: the key, the value used, whose default that
// is and why (DESIGN §5 `memory_assumptions`).
struct AssumedInput {
  Key key;
  Value value;
  Framework framework = Framework::kUnknown;  // the framework whose default (or recipes) it follows
  std::string reason;
};

struct MemoryEstimate {
  double params_per_gpu = 0;             // parameters held by one GPU of the first stage
  double expert_params_per_gpu = 0;      // of which routed-expert parameters
  double weights_optimizer_gib = 0;      // parameters, gradients and optimizer state (Megatron-LM's formula)
  double weights_optimizer_min_gib = 0;  // the same with bf16 gradients: a lower bound on any setting
  double activations_gib = 0;
  double total_gib = 0;
  std::vector<std::string> terms;  // each term with its numbers, for messages and `plan`
  std::vector<std::string> assumptions;
  bool recompute_known = false;  // the activation term follows a stated recompute setting
  // Inputs assumed because the job leaves them out (only estimate_memory_assuming() fills this).
  std::vector<AssumedInput> assumed;
};

// Inputs the estimate needs that are missing or unknown, by name (empty when it can be computed).
std::vector<std::string> memory_inputs_missing(const Job& job);
// The estimate from the job's own values: nullopt unless every input is known. PL601 uses this one, so a
// finding never rests on an assumption.
std::optional<MemoryEstimate> estimate_memory(const Job& job);
// For `plan`: when the only inputs missing are the micro-batch size and the optimizer's sharding, the
// estimate with them assumed (micro-batch 1; the distributed optimizer as the job's framework leaves it),
// each listed in `assumed`. Otherwise the same as estimate_memory().
std::optional<MemoryEstimate> estimate_memory_assuming(const Job& job);
// The estimate with the distributed optimizer set to `on` (other inputs as estimate_memory_assuming()
// finds or assumes them): what turning it on or off would change.
std::optional<MemoryEstimate> estimate_memory_with_distributed_optimizer(const Job& job, bool on);

}  // namespace parlint
