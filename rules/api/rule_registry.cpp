#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>

#include "generated/version.h"
#include "rules/api/rule.h"

namespace parlint {

std::string rule_docs_url(std::string_view code, std::string_view name) {
  std::string anchor = std::string(code) + "-" + std::string(name);
  for (char& c : anchor) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Appended, not `std::string(...) + "#" + anchor`: GCC 12 -O2 reports a false -Warray-bounds on that
  // temporary (GCC PR 105651) once <string> comes from the precompiled header.
  std::string url = PARLINT_DOCS_URL;
  url += '#';
  url += anchor;
  return url;
}

RuleRegistry& RuleRegistry::instance() {
  static RuleRegistry registry;
  return registry;
}

void RuleRegistry::add(std::unique_ptr<Rule> rule) {
  // A copied rule file that keeps its code or name would otherwise register silently and shadow (or be
  // shadowed by) the original; at start-up this throw ends the program with the message.
  for (const auto& r : rules_)
    if (r->info().code == rule->info().code || r->info().name == rule->info().name)
      throw std::logic_error("rule " + std::string(rule->info().code) + " (" +
                             std::string(rule->info().name) +
                             ") is registered twice: " + std::string(r->info().code) + " (" +
                             std::string(r->info().name) + ") has that code or name");
  auto pos = std::lower_bound(rules_.begin(), rules_.end(), rule,
                              [](const auto& a, const auto& b) { return a->info().code < b->info().code; });
  rules_.insert(pos, std::move(rule));
}

const Rule* RuleRegistry::find(std::string_view code_or_name) const {
  std::string upper(code_or_name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& r : rules_)
    if (r->info().code == upper || r->info().name == code_or_name) return r.get();
  return nullptr;
}

}  // namespace parlint
