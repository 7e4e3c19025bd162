#pragma once
// --select / --ignore: codes, names or code prefixes ("PL1"), "ALL".
#include <set>
#include <string>
#include <string_view>
#include <vector>
#include "lint/model/expected.h"

#include "rules/api/rule.h"

namespace parlint {

class RuleSelection {
 public:
  // Every selector must name at least one rule; otherwise the error names the bad selector.
  static Expected<RuleSelection, std::string> make(const std::vector<std::string>& select,
                                                   const std::vector<std::string>& ignore);
  bool enabled(std::string_view code) const { return enabled_.count(std::string(code)) > 0; }

 private:
  std::set<std::string> enabled_;
};

// " (did you mean 'PL101'?)" for a selector that names no rule (`PL1O1`, `tp-acros-nodes`): the nearest
// rule code or name, or "" when none is near.
std::string rule_suggestion(std::string_view selector);

// Splits repeated and comma-separated option values: {"PL1,PL2", "PL301"} -> {"PL1", "PL2", "PL301"}.
std::vector<std::string> split_list(const std::vector<std::string>& values);

}  // namespace parlint
