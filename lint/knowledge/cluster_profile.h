#pragma once
// Cluster profiles: GPUs per node, NVLink domain, memory, interconnect. Built-in ones are embedded
// from rules/data/clusters.yaml.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parlint {

struct ClusterProfile {
  std::string name;
  int gpus_per_node = 8;
  int nvlink_domain = 8;
  double gpu_memory_gib = 80;  // 0: not known (no public source gives it)
  std::string interconnect = "infiniband";
  std::string gpu = "h100";
};

const std::vector<ClusterProfile>& builtin_cluster_profiles();
const ClusterProfile& default_cluster_profile();
// A profile by its name, or by the GPU it holds (`--cluster b300` is dgx-b300).
std::optional<ClusterProfile> find_cluster_profile(std::string_view name);
// The built-in profile of a GPU ("b200" -> dgx-b200), if there is one.
std::optional<ClusterProfile> cluster_for_gpu(std::string_view gpu);

}  // namespace parlint
