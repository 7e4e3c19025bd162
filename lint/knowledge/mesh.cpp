#include "lint/knowledge/mesh.h"

#include <initializer_list>
#include <limits>
#include <numeric>

namespace parlint {

namespace {
// Sizes come bounded from the job (each at most 2^24), but a product of five of them can exceed 64 bits:
// products saturate at the largest int64 instead of overflowing.
std::int64_t product(std::initializer_list<std::int64_t> factors) {
  std::int64_t p = 1;
  for (std::int64_t f : factors)
    if (__builtin_mul_overflow(p, f, &p)) return std::numeric_limits<std::int64_t>::max();
  return p;
}
}  // namespace

std::int64_t gcd64(std::int64_t a, std::int64_t b) {
  return std::gcd(a, b);
}
std::int64_t lcm64(std::int64_t a, std::int64_t b) {
  return (a == 0 || b == 0) ? 0 : product({a / std::gcd(a, b), b});
}

std::int64_t dense_model_size(const MeshSizes& m) {
  return product({m.tp, m.pp, m.cp});
}
std::int64_t expert_model_size(const MeshSizes& m) {
  return product({m.pp, m.ep, m.etp});
}
std::int64_t min_world_size(const MeshSizes& m) {
  return product({m.pp, lcm64(product({m.tp, m.cp}), product({m.ep, m.etp}))});
}
std::int64_t product_world_size(const MeshSizes& m) {
  return product({m.pp, m.tp, m.cp, m.ep, m.etp});
}

bool world_size_valid(const MeshSizes& m, std::int64_t world) {
  return world > 0 && world % dense_model_size(m) == 0 && world % expert_model_size(m) == 0;
}

std::optional<std::int64_t> data_parallel_size(const MeshSizes& m, std::int64_t world) {
  std::int64_t d = dense_model_size(m);
  if (d <= 0 || world % d != 0) return std::nullopt;
  return world / d;
}

std::optional<std::int64_t> expert_data_parallel_size(const MeshSizes& m, std::int64_t world) {
  std::int64_t e = expert_model_size(m);
  if (e <= 0 || world % e != 0) return std::nullopt;
  return world / e;
}

std::vector<std::int64_t> nearest_valid_node_counts(std::int64_t min_world, std::int64_t gpus_per_node,
                                                    std::int64_t nodes) {
  std::vector<std::int64_t> out;
  if (min_world <= 0 || gpus_per_node <= 0) return out;
  // nodes·g is a multiple of M exactly when nodes is a multiple of M / gcd(M, g).
  std::int64_t step = min_world / std::gcd(min_world, gpus_per_node);
  std::int64_t below = nodes / step * step;
  if (below == nodes) below -= step;
  if (below > 0) out.push_back(below);
  std::int64_t above = product({nodes / step + 1, step});
  out.push_back(above);
  return out;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> small, large;
  for (std::int64_t d = 1; d <= n / d; ++d) {
    if (n % d) continue;
    small.push_back(d);
    if (d != n / d) large.insert(large.begin(), n / d);
  }
  small.insert(small.end(), large.begin(), large.end());
  return small;
}

}  // namespace parlint
