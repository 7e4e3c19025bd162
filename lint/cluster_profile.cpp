#include "lint/cluster_profile.h"

#include <yaml-cpp/yaml.h>

#include <stdexcept>

extern const std::string_view kClusterProfilesYaml;

namespace parlint {
namespace {

struct Profiles {
  std::vector<ClusterProfile> list;
  std::size_t default_index = 0;
};

const Profiles& profiles() {
  static const Profiles p = [] {
    Profiles out;
    YAML::Node root = YAML::Load(std::string(kClusterProfilesYaml));
    std::string def = root["default"].as<std::string>();
    for (const auto& kv : root["profiles"]) {
      ClusterProfile c;
      c.name = kv.first.as<std::string>();
      c.gpus_per_node = kv.second["gpus_per_node"].as<int>();
      c.nvlink_domain = kv.second["nvlink_domain"].as<int>();
      c.gpu_memory_gib = kv.second["gpu_memory_gib"].as<double>();
      c.interconnect = kv.second["interconnect"].as<std::string>();
      c.gpu = kv.second["gpu"].as<std::string>();
      if (c.name == def) out.default_index = out.list.size();
      out.list.push_back(std::move(c));
    }
    if (out.list.empty()) throw std::logic_error("no built-in cluster profiles");
    return out;
  }();
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
  return std::nullopt;
}

}  // namespace parlint
