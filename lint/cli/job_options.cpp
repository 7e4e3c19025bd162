#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "lint/cli/commands.h"
#include "lint/knowledge/cluster_profile.h"
#include "lint/model/closest_name.h"
#include "lint/reporters/reporter.h"

namespace parlint::cli {

int usage_error(const std::string& message) {
  // Configuration errors quote keys from the file: nothing in them may drive the terminal. Several errors
  // (a configuration's every mistake) come one a line.
  for (std::size_t start = 0; start <= message.size();) {
    std::size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::cerr << "parlint: error: " << escape_control(message.substr(start, end - start)) << "\n";
    start = end + 1;
  }
  return kExitUsage;
}

std::optional<std::size_t> parse_size(std::string s) {
  std::size_t unit = 1;
  auto ends = [&](std::string_view suffix) {
    if (s.size() > suffix.size() &&
        std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      s.resize(s.size() - suffix.size());
      return true;
    }
    return false;
  };
  for (auto [suffix, u] : {std::pair<const char*, std::size_t>{"kib", 1u << 10},
                           {"mib", 1u << 20},
                           {"gib", 1u << 30},
                           {"kb", 1u << 10},
                           {"mb", 1u << 20},
                           {"gb", 1u << 30},
                           {"k", 1u << 10},
                           {"m", 1u << 20},
                           {"g", 1u << 30},
                           {"b", 1}})
    if (ends(suffix)) {
      unit = u;
      break;
    }
  if (s.empty() || s.size() > 12 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::size_t n = std::stoull(s);
  if (n == 0) return std::nullopt;
  return n * unit;
}

std::optional<std::string> apply_job_options(const JobOptions& job, EngineOptions& options) {
  if (!job.cluster.empty()) {
    options.lint.cluster = find_cluster_profile(job.cluster);
    if (!options.lint.cluster) {
      std::vector<std::string> names;
      std::string listed;
      for (const auto& p : builtin_cluster_profiles()) {
        names.push_back(p.name);
        listed += (listed.empty() ? "" : ", ") + p.name;
      }
      return fmt::format("unknown cluster profile '{}' (built in: {}){}", job.cluster, listed,
                         did_you_mean(job.cluster, names));
    }
  }
  options.cli_cluster = !job.cluster.empty();
  options.cli_framework = job.framework_given;
  options.lint.gpus_per_node = job.gpus_per_node;
  options.lint.nvlink_domain = job.nvlink_domain;
  options.lint.framework = *framework_from_id(job.framework);
  options.stdin_filename = job.stdin_filename;
  return std::nullopt;
}

}  // namespace parlint::cli
