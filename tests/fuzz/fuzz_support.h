#pragma once
// Shared set-up of the libFuzzer targets: every rule on, no configuration discovery, no threads.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lint/engine/engine.h"

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

inline std::size_t syntax_errors(const RunResult& r) {
  std::size_t n = 0;
  for (const auto& d : r.diagnostics) n += d.diagnostic.code == "PL900";
  return n;
}

// The whole pipeline on one in-memory file: parse, resolve, every rule, suppressions; then --fix with
// the unsafe fixes too, whose result must parse wherever the input did.
inline void check_as(const char* path, const std::uint8_t* data, std::size_t size) {
  std::string input = text(data, size);
  RunResult r = check_text(path, input, options());
  // Every finding must point at a real position or none.
  for (const auto& d : r.diagnostics)
    if (d.diagnostic.location.range.start.line < 0) __builtin_trap();
  static const EngineOptions fixing = [] {
    EngineOptions e = options();
    e.unsafe_fixes = true;
    return e;
  }();
  FixedText fixed = fix_document(path, input, fixing);
  if (fixed.applied.empty()) return;
  if (syntax_errors(check_text(path, fixed.text, options())) > syntax_errors(r)) __builtin_trap();
}

}  // namespace parlint::fuzz
