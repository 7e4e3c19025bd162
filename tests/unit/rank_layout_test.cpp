// The rank layout follows Megatron-Core's RankGenerator.
#include "lint/knowledge/rank_layout.h"

#include <gtest/gtest.h>

namespace parlint {
namespace {

TEST(RankLayout, MegatronDocstringExample) {
  // 16 GPUs, TP2 PP4 (DP2), order tp-cp-ep-dp-pp: TP groups are consecutive pairs, PP groups stride 4.
  std::vector<std::int64_t> sizes{2, 1, 1, 2, 4};
  auto tp = masked_orthogonal_rank_groups(16, sizes, {true, false, false, false, false});
  ASSERT_EQ(tp.size(), 8u);
  EXPECT_EQ(tp[0], (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(tp[7], (std::vector<std::int64_t>{14, 15}));
  auto pp = masked_orthogonal_rank_groups(16, sizes, {false, false, false, false, true});
  EXPECT_EQ(pp[0], (std::vector<std::int64_t>{0, 4, 8, 12}));
  auto dp = masked_orthogonal_rank_groups(16, sizes, {false, false, false, true, false});
  EXPECT_EQ(dp[0], (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(dp[1], (std::vector<std::int64_t>{1, 3}));
}

TEST(RankLayout, CrossingGroups) {
  // TP8 PP2 on 2 nodes of 8: TP stays in a node, PP crosses.
  auto p = place_groups({.tp = 8, .pp = 2, .cp = 1, .ep = 1, .etp = 8}, 16, 8, 8);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].name, "TP");
  EXPECT_EQ(p[0].crossing_nodes, 0);
  bool pp_crosses = false;
  for (const auto& g : p)
    if (g.name == "PP") pp_crosses = g.crossing_nodes == g.groups;
  EXPECT_TRUE(pp_crosses);
  // TP16 on 8-GPU nodes: every TP group crosses.
  auto q = place_groups({.tp = 16, .pp = 1, .cp = 1, .ep = 1, .etp = 16}, 32, 8, 8);
  EXPECT_EQ(q[0].crossing_nodes, 2);
  // MoE: EP8 with ETP1 and TP2 on one node of 8: expert groups stay inside it.
  auto moe = place_groups({.tp = 2, .pp = 1, .cp = 1, .ep = 8, .etp = 1}, 8, 8, 8);
  for (const auto& g : moe) EXPECT_EQ(g.crossing_nodes, 0) << g.name;
  EXPECT_TRUE(
      place_groups({.tp = 3, .pp = 1, .cp = 1, .ep = 1, .etp = 3}, 8, 8, 8).empty());  // invalid world
}

}  // namespace
}  // namespace parlint
