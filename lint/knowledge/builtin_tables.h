#pragma once
// The tables of rules/data/*.yaml (cluster profiles, models, recipes) as C++ code written at build time
// by cmake/builtin_tables_gen.cpp: a run builds them directly instead of parsing YAML at start-up.
#include <cstddef>
#include <vector>

#include "lint/knowledge/cluster_profile.h"
#include "lint/knowledge/model_table.h"

namespace parlint {

struct BuiltinClusterProfiles {
  std::vector<ClusterProfile> list;
  std::size_t default_index = 0;
};

BuiltinClusterProfiles generated_cluster_profiles();
std::vector<ModelInfo> generated_models();
std::vector<RecipeInfo> generated_recipes();

}  // namespace parlint
