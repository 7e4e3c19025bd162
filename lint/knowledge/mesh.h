#pragma once
// Mesh arithmetic of Megatron-Core's process grid (parallel_state.initialize_model_parallel):
// the dense mesh TP·CP·DP·PP and the expert mesh ETP·EP·EDP·PP share every pipeline stage's GPUs.
#include <cstdint>
#include <optional>
#include <vector>

namespace parlint {

struct MeshSizes {
  std::int64_t tp = 1, pp = 1, cp = 1, ep = 1, etp = 1;
};

std::int64_t gcd64(std::int64_t a, std::int64_t b);
std::int64_t lcm64(std::int64_t a, std::int64_t b);

// TP·PP·CP: the dense model-parallel size W must be a multiple of.
std::int64_t dense_model_size(const MeshSizes& m);
// PP·EP·ETP: the expert model-parallel size W must be a multiple of.
std::int64_t expert_model_size(const MeshSizes& m);
// M = PP · lcm(TP·CP, EP·ETP): the smallest valid world size; every valid W is a multiple of it.
std::int64_t min_world_size(const MeshSizes& m);
// PP·TP·CP·EP·ETP: the often-used product, which over-allocates whenever EP·ETP and TP·CP overlap.
std::int64_t product_world_size(const MeshSizes& m);
// DP = W / (TP·PP·CP) and EDP = W / (PP·EP·ETP), when W divides evenly.
std::optional<std::int64_t> data_parallel_size(const MeshSizes& m, std::int64_t world);
std::optional<std::int64_t> expert_data_parallel_size(const MeshSizes& m, std::int64_t world);
bool world_size_valid(const MeshSizes& m, std::int64_t world);

// Node counts closest to `nodes` (one below, one above when they exist) whose world size
// nodes·gpus_per_node is a multiple of `min_world`.
std::vector<std::int64_t> nearest_valid_node_counts(std::int64_t min_world, std::int64_t gpus_per_node,
                                                    std::int64_t nodes);
// Divisors of n, ascending.
std::vector<std::int64_t> divisors(std::int64_t n);

}  // namespace parlint
