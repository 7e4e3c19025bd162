// The JSON shape of DESIGN §5.
#include <nlohmann/json.hpp>

#include "generated/version.h"
#include "lint/reporters/json_range.h"
#include "lint/reporters/json_stream.h"
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

nlohmann::ordered_json diagnostic_json(const Diagnostic& d) {
  nlohmann::ordered_json related = nlohmann::ordered_json::array();
  for (const auto& r : d.related)
    related.push_back(
        {{"path", r.location.path}, {"range", range_json(r.location.range)}, {"message", r.message}});
  return {{"code", d.code},
          {"name", d.name},
          {"severity", std::string(severity_name(d.severity))},
          {"message", d.message},
          {"path", d.location.path},
          {"range", range_json(d.location.range)},
          {"related", std::move(related)},
          {"help", d.help},
          {"fix", fix_json(d.fix)}};
}

}  // namespace

// Written member by member, each diagnostic as it is converted (JsonStream): a document of the whole
// report held every finding three more times (the tree, its copy, its text) when the run's memory peaked.
void report_json(const RunResult& result, const ReportOptions& options, std::ostream& out) {
  using json = nlohmann::ordered_json;
  JsonStream doc(out);
  doc.begin_object();
  doc.member("version", 1);
  doc.member("tool", {{"name", "parlint"}, {"version", PARLINT_VERSION}});
  doc.member("files_checked", result.files_checked);
  int counts[3] = {0, 0, 0};
  doc.begin_array("diagnostics");
  for (const auto& cd : result.diagnostics) {
    ++counts[static_cast<int>(cd.diagnostic.severity)];
    doc.item(diagnostic_json(cd.diagnostic));
  }
  doc.end();
  json errors = json::array();
  for (const auto& e : result.errors) errors.push_back({{"path", e.path}, {"message", e.message}});
  doc.member("errors", errors);
  doc.member("summary", {{"error", counts[2]}, {"warning", counts[1]}, {"info", counts[0]}});
  if (options.statistics) {
    json rules = json::array();
    for (const auto& c : rule_counts(result))
      rules.push_back({{"code", c.code}, {"name", c.name}, {"count", c.count}});
    doc.member("statistics", {{"rules", rules}, {"suppressed", result.suppressed.size()}});
  }
  doc.end();
}

}  // namespace parlint
