#pragma once
// Per-GPU training memory of the most-loaded pipeline stage, after Megatron-LM's theoretical memory
// formulas (reference/memory-and-hardware.md §3): parameters in TP-sharded, replicated and
// expert-sharded buckets, bytes per parameter (18, or 6 + 12/DP with the distributed optimizer; experts
// use expert DP), and activations (SP + selective recompute branch, or the branch without SP).
#include <optional>
#include <string>
#include <vector>

#include "lint/job.h"

namespace parlint {

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
};

// Inputs the estimate needs that are missing or unknown, by name (empty when it can be computed).
std::vector<std::string> memory_inputs_missing(const Job& job);
std::optional<MemoryEstimate> estimate_memory(const Job& job);

}  // namespace parlint
