#pragma once
// `parlint plan --suggest`: a starting layout for a model on a number of GPUs, following the sizing
// guidance (dense: TP grows with size inside the NVLink domain, PP across nodes; MoE: TP 1-2, EP as the
// main axis, ETP 1; long sequences: CP), checked by every rule and by the memory model.
#include <optional>
#include <string>
#include <vector>

#include "lint/engine.h"
#include "lint/model_table.h"

namespace parlint {

struct SuggestRequest {
  const ModelInfo* model = nullptr;
  std::int64_t gpus = 0;
  std::int64_t gpus_per_node = 8;
  std::int64_t seq_length = 0;  // 0: the model's default
  ClusterProfile cluster;
};

struct Suggestion {
  MeshSizes mesh;
  std::int64_t vpp = 0;  // 0: none
  bool sp = false;
  double memory_gib = 0;
  std::vector<std::string> reasons;
  RawJob job;  // the layout as a job, for `plan` to explain
};

// The best layout first, then up to two alternatives; empty when nothing valid fits.
std::vector<Suggestion> suggest_layouts(const SuggestRequest& request, const EngineOptions& options);

}  // namespace parlint
