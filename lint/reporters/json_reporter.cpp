// The JSON shape of DESIGN §5.
#include <nlohmann/json.hpp>

#include "generated/version.h"
#include "lint/reporters/json_range.h"
#include "lint/reporters/reporter.h"

namespace parlint {

nlohmann::ordered_json range_json(const SourceRange& r) {
  return {{"start", {{"line", r.start.line}, {"column", r.start.column}}},
          {"end", {{"line", r.end.line}, {"column", r.end.column}}}};
}

namespace {

nlohmann::ordered_json fix_json(const std::optional<Fix>& fix) {
  if (!fix) return nullptr;
  nlohmann::ordered_json edits = nlohmann::ordered_json::array();
  for (const auto& e : fix->edits)
    edits.push_back(
        {{"path", e.location.path}, {"range", range_json(e.location.range)}, {"new_text", e.new_text}});
  return {{"applicability", std::string(applicability_name(fix->applicability))},
          {"message", fix->message},
          {"edits", edits}};
}

}  // namespace

void report_json(const RunResult& result, const ReportOptions& options, std::ostream& out) {
  nlohmann::ordered_json diags = nlohmann::ordered_json::array();
  int counts[3] = {0, 0, 0};
  for (const auto& cd : result.diagnostics) {
    const Diagnostic& d = cd.diagnostic;
    ++counts[static_cast<int>(d.severity)];
    nlohmann::ordered_json related = nlohmann::ordered_json::array();
    for (const auto& r : d.related)
      related.push_back(
          {{"path", r.location.path}, {"range", range_json(r.location.range)}, {"message", r.message}});
    diags.push_back({{"code", d.code},
                     {"name", d.name},
                     {"severity", std::string(severity_name(d.severity))},
                     {"message", d.message},
                     {"path", d.location.path},
                     {"range", range_json(d.location.range)},
                     {"related", related},
                     {"help", d.help},
                     {"fix", fix_json(d.fix)}});
  }
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const auto& e : result.errors) errors.push_back({{"path", e.path}, {"message", e.message}});
  nlohmann::ordered_json doc = {
      {"version", 1},
      {"tool", {{"name", "parlint"}, {"version", PARLINT_VERSION}}},
      {"files_checked", result.files_checked},
      {"diagnostics", diags},
      {"errors", errors},
      {"summary", {{"error", counts[2]}, {"warning", counts[1]}, {"info", counts[0]}}}};
  if (options.statistics) {
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (const auto& c : rule_counts(result))
      rules.push_back({{"code", c.code}, {"name", c.name}, {"count", c.count}});
    doc["statistics"] = {{"rules", rules}, {"suppressed", result.suppressed.size()}};
  }
  // Invalid UTF-8 from input files is replaced rather than aborting the report.
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace parlint
