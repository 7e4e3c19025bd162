// --statistics: the findings of a run counted per rule (DESIGN §4), for the text lines and for the
// machine formats, which carry them inside their own document instead of being replaced by them.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "lint/reporters/reporter.h"

namespace parlint {

std::vector<RuleCount> rule_counts(const RunResult& result) {
  std::map<std::string, RuleCount> by_code;
  for (const auto& d : result.diagnostics) {
    RuleCount& c = by_code[d.diagnostic.code];
    c.code = d.diagnostic.code;
    c.name = d.diagnostic.name;
    ++c.count;
  }
  std::vector<RuleCount> out;
  for (auto& [_, c] : by_code) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(),
                   [](const RuleCount& a, const RuleCount& b) { return a.count > b.count; });
  return out;
}

std::string statistics_text(const RunResult& result) {
  std::string out;
  for (const auto& c : rule_counts(result)) out += fmt::format("{:>5}  {}  {}\n", c.count, c.code, c.name);
  if (!result.suppressed.empty())
    out += fmt::format("{:>5}  suppressed by comments\n", result.suppressed.size());
  return out;
}

}  // namespace parlint
