#pragma once
// `parlint plan --suggest`: a starting layout for a model on a number of GPUs. A published recipe's layout
// comes first when it fits; otherwise the sizing guidance ranks the candidates (dense: TP grows with size
// inside the NVLink domain, PP across nodes; MoE: TP 1-2, EP as the main axis, ETP 1, PP across nodes;
// long sequences: CP). Every candidate goes through every rule and the memory model, and must leave 10% of
// the GPU's memory free.
#include <optional>
#include <string>
#include <vector>

#include "lint/engine/engine.h"
#include "lint/knowledge/model_table.h"

namespace parlint {

struct SuggestRequest {
  const ModelInfo* model = nullptr;
  std::int64_t gpus = 0;
  std::int64_t gpus_per_node = 8;
  std::string gpus_per_node_source = "the dgx-h100 profile";  // for the stated assumptions
  std::int64_t seq_length = 0;  // 0: not given (the published recipe's, else the model table's, is assumed)
  ClusterProfile cluster;
  std::string cluster_option;  // --cluster NAME when one was chosen, repeated in each layout's options
};

// The share of a GPU's memory a suggested layout may use: the rest is left for what the estimate leaves
// out (NCCL buffers, the allocator's fragmentation, CUDA graphs).
constexpr double kMemoryBudget = 0.9;

struct Suggestion {
  MeshSizes mesh;
  std::int64_t vpp = 0;  // 0: none
  bool sp = false;
  double memory_gib = 0;
  std::string published;  // the recipe that publishes this layout ("" when the guidance chose it)
  std::vector<std::string> reasons;
  RawJob job;           // the layout as a job, for `plan` to explain
  std::string options;  // and as `parlint plan` options
};

struct Suggestions {
  std::vector<Suggestion> layouts;  // the best first, then up to two alternatives; empty: nothing fits
  std::int64_t seq_length = 0;
  std::vector<std::string>
      assumptions;  // every value the suggestions assume (sequence length, micro-batch...)
};

Suggestions suggest_layouts(const SuggestRequest& request, const EngineOptions& options);

}  // namespace parlint
