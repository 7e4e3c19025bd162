#pragma once
// Which ranks form each parallel group, following Megatron-Core's RankGenerator
// (parallel_state.generate_masked_orthogonal_rank_groups): strides are assigned left to right in the
// order string, so the leftmost dimension varies fastest and is the most local. The dense grid is
// `tp-cp-ep-dp-pp` with ep = 1; the expert grid is `tp(=ETP)-cp(=1)-ep-dp(=EDP)-pp`.
#include <cstdint>
#include <string>
#include <vector>

#include "lint/knowledge/mesh.h"

namespace parlint {

using RankGroups = std::vector<std::vector<std::int64_t>>;

// The groups spanned by the dimensions selected by `mask` of a grid with `sizes` (in order).
RankGroups masked_orthogonal_rank_groups(std::int64_t world, const std::vector<std::int64_t>& sizes,
                                         const std::vector<bool>& mask);

struct GroupPlacement {
  std::string name;  // "TP", "CP", "DP", "PP", "EP", "expert TP", "expert DP"
  std::int64_t size = 0;
  std::int64_t groups = 0;
  std::int64_t crossing_nodes = 0;    // groups whose ranks sit on more than one node
  std::int64_t crossing_domains = 0;  // groups whose ranks sit in more than one NVLink domain
};

// Placement of every group kind of a layout on nodes of `gpus_per_node` GPUs and NVLink domains of
// `domain` GPUs (rank r on node r / gpus_per_node). `pp_last` is the default order (tp-cp-ep-dp-pp);
// false means use_tp_pp_dp_mapping (tp-cp-ep-pp-dp). Empty when `world` is not valid for the layout or
// too large to enumerate.
std::vector<GroupPlacement> place_groups(const MeshSizes& mesh, std::int64_t world,
                                         std::int64_t gpus_per_node, std::int64_t domain,
                                         bool pp_last = true);

}  // namespace parlint
