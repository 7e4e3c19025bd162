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

// Written member by member, each diagnostic as it is turned into JSON, in the layout of nlohmann's
// dump(2): a document of the whole report held the findings twice more (the tree and its text) at the
// moment the run's memory peaked.
void report_json(const RunResult& result, const ReportOptions& options, std::ostream& out) {
  using json = nlohmann::ordered_json;
  // Invalid UTF-8 from input files is replaced rather than aborting the report.
  nlohmann::detail::serializer<json> serializer(nlohmann::detail::output_adapter<char>(out), ' ',
                                                json::error_handler_t::replace);
  auto member = [&](std::string_view key, const json& value, bool last = false) {
    out << "  \"" << key << "\": ";
    serializer.dump(value, true, false, 2, 2);
    out << (last ? "\n" : ",\n");
  };
  out << "{\n";
  member("version", 1);
  member("tool", {{"name", "parlint"}, {"version", PARLINT_VERSION}});
  member("files_checked", result.files_checked);
  int counts[3] = {0, 0, 0};
  out << "  \"diagnostics\": ";
  if (result.diagnostics.empty()) out << "[]";
  for (std::size_t i = 0; i < result.diagnostics.size(); ++i) {
    const Diagnostic& d = result.diagnostics[i].diagnostic;
    ++counts[static_cast<int>(d.severity)];
    out << (i == 0 ? "[\n    " : ",\n    ");
    serializer.dump(diagnostic_json(d), true, false, 2, 4);
    if (i + 1 == result.diagnostics.size()) out << "\n  ]";
  }
  out << ",\n";
  json errors = json::array();
  for (const auto& e : result.errors) errors.push_back({{"path", e.path}, {"message", e.message}});
  member("errors", errors);
  json summary = {{"error", counts[2]}, {"warning", counts[1]}, {"info", counts[0]}};
  if (!options.statistics) {
    member("summary", summary, true);
  } else {
    member("summary", summary);
    json rules = json::array();
    for (const auto& c : rule_counts(result))
      rules.push_back({{"code", c.code}, {"name", c.name}, {"count", c.count}});
    member("statistics", {{"rules", rules}, {"suppressed", result.suppressed.size()}}, true);
  }
  out << "}\n";
}

}  // namespace parlint
