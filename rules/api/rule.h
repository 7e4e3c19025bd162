#pragma once
// The rule interface and registry. Each rule lives in one file under rules/, carries its own
// documentation, and registers itself with PARLINT_REGISTER_RULE. Rules see resolved jobs (and, for
// PL900, a file's syntax errors) — never syntax trees or files.
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "lint/model/parsed_file.h"
#include "lint/resolve/job.h"
#include "rules/api/diagnostic.h"

namespace parlint {

struct RuleInfo {
  std::string_view code;     // "PL101"
  std::string_view name;     // "tp-crosses-nvlink-domain"
  Severity severity;         // default severity
  std::string_view summary;  // one line
  std::string_view docs;     // markdown: What / Why / Example / Fix / Framework behaviour / References
  // The settings its job check reads: `plan` names the rules an unknown value keeps from checking, and a
  // test holds every rule to what it declares (tests/unit/rule_keys_test.cpp).
  std::span<const Key> reads = {};
  // Whether its findings carry a fix, and which kind (its documentation's "Fix" section says what it does).
  FixAvailability fix = FixAvailability::kNone;
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  virtual void check_job(const Job& /*job*/, std::vector<Finding>& /*out*/) const {}
  virtual void check_file(const ParsedFile& /*file*/, std::vector<Finding>& /*out*/) const {}
};

// The published documentation of a rule: docs/rules.md at PARLINT_DOCS_URL, anchored at its heading
// ("...#pl101-tp-crosses-nvlink-domain"). SARIF's helpUri and the language server's code links use it.
std::string rule_docs_url(std::string_view code, std::string_view name);

class RuleRegistry {
 public:
  static RuleRegistry& instance();
  void add(std::unique_ptr<Rule> rule);
  // Sorted by code.
  const std::vector<std::unique_ptr<Rule>>& rules() const { return rules_; }
  // By code ("PL101", any case) or name ("tp-crosses-nvlink-domain").
  const Rule* find(std::string_view code_or_name) const;

 private:
  std::vector<std::unique_ptr<Rule>> rules_;
};

template <typename R>
struct RuleRegistration {
  RuleRegistration() { RuleRegistry::instance().add(std::make_unique<R>()); }
};

// A rule file keeps its own names (kInfo, kReads, helpers) in `namespace { namespace PARLINT_UNITY_ID {`:
// the unity build compiles several rule files as one unit and defines PARLINT_UNITY_ID to a name unique
// to each file (CMake's UNITY_BUILD_UNIQUE_ID). Compiled alone, a file's inner namespace is anonymous too.
#ifndef PARLINT_UNITY_ID
#define PARLINT_UNITY_ID
#endif

#define PARLINT_REGISTER_RULE(Class) \
  static const ::parlint::RuleRegistration<Class> parlint_registration_##Class {}

}  // namespace parlint
