#include "lint/knowledge/mesh.h"

#include <gtest/gtest.h>

namespace parlint {
namespace {

struct MeshCase {
  MeshSizes mesh;
  std::int64_t product;
  std::int64_t minimum;
};

// The "wrong product -> correct minimum" table of the foundation issue.
class MeshTable : public ::testing::TestWithParam<MeshCase> {};

TEST_P(MeshTable, ProductAndMinimum) {
  const auto& c = GetParam();
  EXPECT_EQ(product_world_size(c.mesh), c.product);
  EXPECT_EQ(min_world_size(c.mesh), c.minimum);
  EXPECT_TRUE(world_size_valid(c.mesh, c.minimum));
  EXPECT_TRUE(world_size_valid(c.mesh, c.product));
  // Nothing smaller than M is valid.
  for (std::int64_t w = 1; w < c.minimum; ++w) EXPECT_FALSE(world_size_valid(c.mesh, w)) << w;
}

INSTANTIATE_TEST_SUITE_P(Foundation, MeshTable,
                         ::testing::Values(MeshCase{{.tp = 2, .pp = 1, .cp = 1, .ep = 8, .etp = 1}, 16, 8},
                                           MeshCase{{.tp = 4, .pp = 1, .cp = 1, .ep = 8, .etp = 1}, 32, 8},
                                           MeshCase{{.tp = 2, .pp = 1, .cp = 2, .ep = 8, .etp = 1}, 32, 8},
                                           MeshCase{{.tp = 2, .pp = 1, .cp = 4, .ep = 8, .etp = 1}, 64, 8},
                                           MeshCase{{.tp = 2, .pp = 2, .cp = 1, .ep = 8, .etp = 1}, 32, 16},
                                           MeshCase{{.tp = 2, .pp = 1, .cp = 1, .ep = 4, .etp = 2}, 16, 8},
                                           // Non-powers of two: lcm, not max.
                                           MeshCase{{.tp = 2, .pp = 1, .cp = 3, .ep = 4, .etp = 1}, 24, 12},
                                           MeshCase{{.tp = 4, .pp = 1, .cp = 1, .ep = 6, .etp = 1}, 24, 12}));

TEST(Mesh, MaxFormulaIsWrongForNonPowersOfTwo) {
  MeshSizes m{.tp = 4, .pp = 1, .cp = 1, .ep = 6, .etp = 1};
  EXPECT_FALSE(world_size_valid(m, 6));  // PP·max(TP·CP, EP·ETP) = 6 is rejected by Megatron-Core
  EXPECT_EQ(min_world_size(m), 12);
}

TEST(Mesh, DataParallelSizes) {
  MeshSizes m{.tp = 2, .pp = 8, .cp = 1, .ep = 64, .etp = 1};
  EXPECT_EQ(data_parallel_size(m, 1024), 64);
  EXPECT_EQ(expert_data_parallel_size(m, 1024), 2);
  EXPECT_EQ(min_world_size(m), 512);
  EXPECT_FALSE(data_parallel_size(m, 1000).has_value());
}

TEST(Mesh, NearestValidNodeCounts) {
  // M = 64 on 8-GPU nodes: node counts must be multiples of 8.
  EXPECT_EQ(nearest_valid_node_counts(64, 8, 62), (std::vector<std::int64_t>{56, 64}));
  EXPECT_EQ(nearest_valid_node_counts(64, 8, 64), (std::vector<std::int64_t>{56, 72}));
  EXPECT_EQ(nearest_valid_node_counts(12, 8, 1), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(nearest_valid_node_counts(4, 8, 3), (std::vector<std::int64_t>{2, 4}));
}

TEST(Mesh, Divisors) {
  EXPECT_EQ(divisors(12), (std::vector<std::int64_t>{1, 2, 3, 4, 6, 12}));
}

}  // namespace
}  // namespace parlint
