#pragma once
// Shared set-up of the libFuzzer targets: every rule on, no configuration discovery, no threads.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lint/engine.h"

namespace parlint::fuzz {

inline const EngineOptions& options() {
  static const EngineOptions o = [] {
    EngineOptions e;
    e.rules = *RuleSelection::make({}, {});
    e.discover_config = false;
    e.jobs = 1;
    return e;
  }();
  return o;
}

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The whole pipeline on one in-memory file: parse, resolve, every rule, suppressions.
inline void check_as(const char* path, const std::uint8_t* data, std::size_t size) {
  RunResult r = check_text(path, text(data, size), options());
  // Every finding must point at a real position or none.
  for (const auto& d : r.diagnostics)
    if (d.diagnostic.location.range.start.line < 0) __builtin_trap();
}

}  // namespace parlint::fuzz
