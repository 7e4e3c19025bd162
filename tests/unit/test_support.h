#pragma once
// Helpers shared by the unit tests: parse YAML text, resolve jobs, lint in memory.
#include <string>
#include <vector>

#include "lint/engine/engine.h"
#include "lint/model/source_text.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/yaml/yaml_parser.h"

namespace parlint::testing {

inline ParsedFile parse(const std::string& yaml, const std::string& path = "t.yaml") {
  SourceText source(yaml);
  return parse_yaml(path, source, framework_documents());
}

// The fact that wins for `key`: the highest priority, the last among equals (as Job resolves it).
inline const Fact* find_fact(const RawJob& job, Key key) {
  const Fact* winner = nullptr;
  for (const auto& f : job.facts)
    if (f.key == key && (!winner || f.priority >= winner->priority)) winner = &f;
  return winner;
}

inline EngineOptions default_options() {
  EngineOptions o;
  o.rules = *RuleSelection::make({}, {});
  return o;
}

inline std::vector<Diagnostic> lint(const std::string& yaml, EngineOptions options = default_options(),
                                    const std::string& path = "t.yaml") {
  RunResult r = check_text(path, yaml, options);
  std::vector<Diagnostic> out;
  for (auto& d : r.diagnostics) out.push_back(d.diagnostic);
  return out;
}

inline std::vector<std::string> codes(const std::vector<Diagnostic>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.code);
  return out;
}

}  // namespace parlint::testing
