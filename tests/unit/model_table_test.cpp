// Every row of the built-in model and recipe tables is checked against its own arithmetic.
#include "lint/model_table.h"

#include <gtest/gtest.h>

#include <cmath>

namespace parlint {
namespace {

TEST(ModelTable, EveryModelIsConsistent) {
  ASSERT_GE(builtin_models().size(), 35u);
  for (const auto& m : builtin_models()) {
    SCOPED_TRACE(m.key);
    EXPECT_FALSE(m.source.empty());
    EXPECT_GT(m.layers, 0);
    EXPECT_GT(m.heads, 0);
    EXPECT_EQ(m.heads % m.groups, 0) << "heads must be a multiple of the query groups";
    if (!m.kv_channels && !m.mla) {
      EXPECT_EQ(m.hidden % m.heads, 0) << "hidden/heads must be a whole head dim";
    }
    if (m.is_moe()) {
      EXPECT_GT(m.topk, 0);
      EXPECT_LE(m.topk, m.experts);
      EXPECT_GT(m.moe_ffn, 0);
      EXPECT_LT(m.active_b, m.params_b);
    } else {
      EXPECT_GT(m.ffn, 0);
      EXPECT_DOUBLE_EQ(m.active_b, m.params_b);
    }
    // The published parameter count must follow from the architecture (within 5%; active counts differ in
    // how vendors count embeddings, so within 15%).
    double total = estimate_params_b(m, false);
    EXPECT_NEAR(total / m.params_b, 1.0, 0.05) << "computed " << total << "B";
    double active = estimate_params_b(m, true);
    EXPECT_NEAR(active / m.active_b, 1.0, 0.15) << "computed active " << active << "B";
  }
}

TEST(ModelTable, LookupByKeyAndHuggingFaceId) {
  ASSERT_NE(find_model("llama3-70b"), nullptr);
  EXPECT_EQ(find_model("meta-llama/Meta-Llama-3-70B"), find_model("llama3-70b"));
  EXPECT_EQ(find_model("Qwen3_235B_A22B"), find_model("qwen3-235b-a22b"));
  EXPECT_EQ(find_model("no-such-model"), nullptr);
}

TEST(RecipeTable, EveryRecipeNamesAKnownModelAndAValidLayout) {
  ASSERT_EQ(builtin_recipes().size(), 25u);
  for (const auto& r : builtin_recipes()) {
    SCOPED_TRACE(r.function);
    const ModelInfo* m = find_model(r.model);
    ASSERT_NE(m, nullptr);
    std::int64_t tp = r.tp.value_or(1);
    EXPECT_EQ(m->heads % tp, 0) << "TP must divide the heads";
    EXPECT_TRUE(m->groups % tp == 0 || tp % m->groups == 0) << "query groups vs TP";
    if (r.ep) {
      EXPECT_EQ(m->experts % *r.ep, 0) << "EP must divide the experts";
    }
    if (r.seq && r.cp.value_or(1) > 1) {
      EXPECT_EQ(*r.seq % (2 * *r.cp), 0);
    }
    EXPECT_EQ(find_recipe(r.function), &r);
    if (!r.alias.empty()) {
      EXPECT_EQ(find_recipe(r.alias), &r);
    }
  }
  EXPECT_EQ(find_recipe("llm.recipes.deepseek_v3_pretrain_config"),
            find_recipe("deepseek_v3_pretrain_config"));
}

TEST(RecipeTable, FactsSitBelowEverythingWritten) {
  const RecipeInfo* r = find_recipe("deepseek_v3_pretrain_config");
  ASSERT_NE(r, nullptr);
  auto facts = recipe_facts(*r);
  bool ep = false;
  for (const auto& f : facts) {
    EXPECT_EQ(f.priority, 0);
    EXPECT_EQ(f.origin, Origin::kRecipeDefault);
    if (f.key == Key::kExpertModelParallelSize) ep = f.value.as_int() == 64;
  }
  EXPECT_TRUE(ep);
}

}  // namespace
}  // namespace parlint
