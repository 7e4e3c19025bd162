#pragma once
// The Megatron-Core version a job runs (`megatron-core-version:` in .parlint.yaml, or the package_info.py
// of the Megatron-Core source in the project): rules whose check changed between versions follow it.
#include <optional>
#include <string>

namespace parlint {

struct CoreVersion {
  int major = 0, minor = 0, patch = 0;
  std::string
      source;  // "megatron-core-version: 0.15 in ./.parlint.yaml", ".../megatron/core/package_info.py"
  bool before(int maj, int min) const { return major < maj || (major == maj && minor < min); }
  std::string text() const;  // "0.15.2"
};

// "0.15.2", "0.15", "core_v0.16.0", "0.16.0rc1"; nullopt for anything else.
std::optional<CoreVersion> parse_core_version(const std::string& text);

}  // namespace parlint
