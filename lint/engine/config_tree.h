#pragma once
// The configuration as a plain tree, whatever file it was written in: `.parlint.yaml` (yaml-cpp) and the
// `[tool.parlint]` table of a pyproject.toml (toml++) are both read into it, so that one function checks
// every key (lint/engine/config.cpp) and both files accept and refuse the same things with the same messages.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lint/model/expected.h"

namespace parlint {

struct ConfigEntry;

struct ConfigNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  std::string scalar;             // a scalar's text: TOML integers, floats and booleans as they read in YAML
  std::vector<ConfigNode> items;  // kSequence
  std::vector<ConfigEntry> entries;  // kMap: key, value (in file order)
  int line = 0;                      // 1-based; 0 when not known

  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_map() const { return kind == Kind::kMap; }
  bool is_null() const { return kind == Kind::kNull; }
};

// A mapping's entry. Not std::pair: a pair of the still incomplete ConfigNode inside ConfigNode is refused
// by libstdc++'s checks under clang.
struct ConfigEntry {
  ConfigNode key, value;
};

// The `[tool.parlint]` table of a pyproject.toml's text, nullopt when it has none; the error says
// "path:line: invalid TOML: ..." (lint/engine/config_toml.cpp, the one file that includes toml++).
Expected<std::optional<ConfigNode>, std::string> pyproject_parlint_table(const std::string& text,
                                                                         const std::string& path);

}  // namespace parlint
