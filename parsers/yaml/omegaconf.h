#pragma once
// OmegaConf interpolation in YAML values, resolved statically: ${a.b}, relative ${.x} / ${..x},
// and the arithmetic resolvers NeMo configs use (${multiply:${a},${b}}). Anything that needs the
// run-time environment (${oc.env:X}, shell-style ${VAR}) is unknown, never guessed.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/parsed_file.h"
#include "lint/model/source_range.h"
#include "lint/model/value.h"

namespace parlint {

struct InterpolationResult {
  Value value;
  std::vector<Location> via;  // where the referenced values were written
  // The value is an environment variable's default (${oc.env:TP,8}): what runs when the variable is
  // unset, a fallback the launch's environment overrides (DESIGN "Weak values").
  std::string weak_note = {};
  // The environment variables of the launch's environment the value was read from (an environment
  // file's exports), where they are assigned: the first is where the value was written.
  std::vector<Location> environment = {};
};

class OmegaConfResolver {
 public:
  // Looks a dotted absolute path up; returns the scalar text it holds (resolving nested
  // interpolations itself through this resolver) or nullopt when the path does not exist.
  struct Target {
    std::string raw;  // the scalar as written
    bool quoted = false;
    Location location;
    std::string path;  // the absolute dotted path of the target (its parent is the base for ${.x})
  };
  using Lookup = std::function<std::optional<Target>(std::string_view dotted_path)>;

  // `environment`: the variables the launch's environment sets (an environment file's exports); null
  // when it is not known, so that ${oc.env:X} is unknown (or its default, a weak value).
  explicit OmegaConfResolver(Lookup lookup, const std::vector<ExportedVariable>* environment = nullptr)
      : lookup_(std::move(lookup)), environment_(environment) {}

  static bool has_interpolation(std::string_view raw) { return raw.find("${") != std::string_view::npos; }

  // Resolves `raw`, written at the dotted path `at`, to a typed value.
  InterpolationResult resolve(std::string_view raw, std::string_view at);

 private:
  InterpolationResult resolve_depth(std::string_view raw, std::string_view at, int depth);
  InterpolationResult resolve_expression(std::string_view expr, std::string_view at, int depth);
  InterpolationResult resolve_path(std::string_view ref, std::string_view at, int depth);

  Lookup lookup_;
  const std::vector<ExportedVariable>* environment_;
  std::vector<std::string> stack_;  // paths being resolved, for cycle detection
};

// Reads a plain YAML scalar as the most specific value: int, bool, null, or string.
Value scalar_value(std::string_view raw, bool quoted);

}  // namespace parlint
