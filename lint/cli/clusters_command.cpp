// `parlint clusters`: the built-in cluster profiles, the names --cluster and `cluster:` take.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "lint/cli/commands.h"
#include "lint/knowledge/cluster_profile.h"

namespace parlint::cli {

int run_clusters_command(const std::string& format) {
  const auto& profiles = builtin_cluster_profiles();
  const std::string& fallback = default_cluster_profile().name;
  if (format == "json") {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& p : profiles)
      out.push_back(
          {{"name", p.name},
           {"gpu", p.gpu},
           {"gpus_per_node", p.gpus_per_node},
           {"nvlink_domain", p.nvlink_domain},
           {"gpu_memory_gib", p.gpu_memory_gib > 0 ? nlohmann::ordered_json(p.gpu_memory_gib) : nullptr},
           {"interconnect", p.interconnect},
           {"default", p.name == fallback}});
    std::cout << out.dump(2) << "\n";
    return kExitClean;
  }
  std::size_t width = 4;
  for (const auto& p : profiles) width = std::max(width, p.name.size());
  std::cout << fmt::format("{:<{}}  {:<6}  {:>9}  {:>13}  {:>10}  {}\n", "name", width, "gpu", "gpus/node",
                           "nvlink domain", "memory", "interconnect");
  for (const auto& p : profiles) {
    std::string memory = p.gpu_memory_gib > 0 ? fmt::format("{:g} GiB", p.gpu_memory_gib) : "unknown";
    std::cout << fmt::format("{:<{}}  {:<6}  {:>9}  {:>13}  {:>10}  {}{}\n", p.name, width, p.gpu,
                             p.gpus_per_node, p.nvlink_domain, memory, p.interconnect,
                             p.name == fallback ? "  (the default)" : "");
  }
  std::cout
      << "\nUse one with --cluster NAME or `cluster: NAME` in .parlint.yaml; a GPU name (b200) picks its "
         "profile. A cluster of your own: cluster: {gpus_per_node: 4, nvlink_domain: 72, gpu_memory_gib: "
         "186}\n";
  return kExitClean;
}

}  // namespace parlint::cli
