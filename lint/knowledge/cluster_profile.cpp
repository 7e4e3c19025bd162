#include "lint/knowledge/cluster_profile.h"

#include "lint/knowledge/builtin_tables.h"

namespace parlint {
namespace {

const BuiltinClusterProfiles& profiles() {
  static const BuiltinClusterProfiles p = generated_cluster_profiles();
  return p;
}

}  // namespace

const std::vector<ClusterProfile>& builtin_cluster_profiles() {
  return profiles().list;
}
const ClusterProfile& default_cluster_profile() {
  return profiles().list[profiles().default_index];
}

std::optional<ClusterProfile> find_cluster_profile(std::string_view name) {
  for (const auto& p : profiles().list)
    if (p.name == name) return p;
  return cluster_for_gpu(name);
}

std::optional<ClusterProfile> cluster_for_gpu(std::string_view gpu) {
  for (const auto& p : profiles().list)
    if (p.gpu == gpu) return p;
  return std::nullopt;
}

}  // namespace parlint
