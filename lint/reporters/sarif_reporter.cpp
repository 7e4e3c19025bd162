// SARIF 2.1.0 (DESIGN §5) for GitHub code scanning and other SARIF viewers: every rule's metadata with
// its documentation, results with related locations and parlint's own fingerprints, and the findings
// that suppression comments hid, listed with `suppressions` so viewers show them as suppressed.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "generated/version.h"
#include "lint/model/uri.h"
#include "lint/reporters/json_stream.h"
#include "lint/reporters/reporter.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {

using json = nlohmann::ordered_json;

json artifact_location(const std::string& path) {
  std::string p = path;
  while (p.starts_with("./")) p.erase(0, 2);
  if (!p.empty() && p[0] == '/') return {{"uri", "file://" + percent_encode_path(p)}};
  return {{"uri", percent_encode_path(p)}, {"uriBaseId", "%SRCROOT%"}};
}

json physical_location(const Location& loc) {
  json region;
  const SourceRange& r = loc.range;
  // SARIF needs a start line; a finding about a whole file points at its first line.
  region["startLine"] = r.start.line > 0 ? r.start.line : 1;
  if (r.start.line > 0 && r.start.column > 0) {
    region["startColumn"] = r.start.column;
    int end_line = std::max(r.end.line, r.start.line);
    region["endLine"] = end_line;
    // endColumn is the column after the last character, as in parlint's own ranges.
    if (r.end.column > 0 && (end_line > r.start.line || r.end.column >= r.start.column))
      region["endColumn"] = r.end.column;
  }
  return {{"artifactLocation", artifact_location(loc.path)}, {"region", region}};
}

// A fix as SARIF artifactChanges: per file, each edit a deleted region (empty for an insertion) and the
// text put there.
json fix_json(const Fix& fix) {
  json changes = json::array();
  for (const auto& e : fix.edits) {
    const SourceRange& r = e.location.range;
    json replacement = {{"deletedRegion",
                         {{"startLine", r.start.line},
                          {"startColumn", r.start.column},
                          {"endLine", r.end.line},
                          {"endColumn", r.end.column}}}};
    if (!e.new_text.empty()) replacement["insertedContent"] = {{"text", e.new_text}};
    if (changes.empty() || changes.back()["artifactLocation"] != artifact_location(e.location.path))
      changes.push_back(
          {{"artifactLocation", artifact_location(e.location.path)}, {"replacements", json::array()}});
    changes.back()["replacements"].push_back(std::move(replacement));
  }
  return {{"description",
           {{"text", std::string(applicability_name(fix.applicability)) + " fix: " + fix.message}}},
          {"artifactChanges", changes}};
}

const char* level(Severity s) {
  return s == Severity::kError ? "error" : s == Severity::kWarning ? "warning" : "note";
}

// The first paragraph of a rule's "What it does" section, for fullDescription (at most 1024 characters).
std::string full_description(const RuleInfo& info) {
  std::string_view docs = info.docs;
  auto at = docs.find("What it does");
  if (at == std::string_view::npos) return std::string(info.summary);
  docs.remove_prefix(docs.find('\n', at) + 1);
  std::string text;
  for (std::size_t pos = 0; pos < docs.size();) {
    auto nl = docs.find('\n', pos);
    std::string_view line = docs.substr(pos, nl == std::string_view::npos ? docs.size() - pos : nl - pos);
    if (line.empty() || line.starts_with("#") || line.starts_with("- ")) break;
    if (!text.empty()) text += ' ';
    text += line;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (text.empty()) text = info.summary;
  if (text.size() > 1024) text = text.substr(0, 1020) + " ...";
  return text;
}

json rule_descriptor(const RuleInfo& info) {
  const char* problem = info.severity == Severity::kError     ? "error"
                        : info.severity == Severity::kWarning ? "warning"
                                                              : "recommendation";
  return {{"id", info.code},
          {"name", info.name},
          {"shortDescription", {{"text", info.summary}}},
          {"fullDescription", {{"text", full_description(info)}}},
          {"help", {{"text", info.docs}, {"markdown", info.docs}}},
          {"helpUri", rule_docs_url(info.code, info.name)},
          {"defaultConfiguration", {{"level", level(info.severity)}}},
          {"properties", {{"tags", {"distributed-training", "parallelism"}}, {"problem.severity", problem}}}};
}

std::string collapse_whitespace(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

std::string finding_fingerprint(const std::string& code, std::string_view line_text, int occurrence) {
  return finding_fingerprint({}, code, line_text, occurrence);
}

std::string finding_fingerprint(std::string_view path, const std::string& code, std::string_view line_text,
                                int occurrence) {
  // FNV-1a, 64 bits: stable across platforms and releases, unlike std::hash.
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;  // separator
  };
  if (!path.empty()) mix(path);  // SARIF's fingerprint is per file already: it leaves the path out
  mix(code);
  mix(collapse_whitespace(line_text));
  mix(std::to_string(occurrence));
  return fmt::format("{:016x}", h);
}

void report_sarif(const RunResult& result, const ReportOptions& options, std::ostream& out) {
  json rules = json::array();
  std::map<std::string, int> rule_index;
  for (const auto& rule : RuleRegistry::instance().rules()) {
    rule_index[std::string(rule->info().code)] = static_cast<int>(rules.size());
    rules.push_back(rule_descriptor(rule->info()));
  }

  std::map<std::tuple<std::string, std::string, std::string>, int> seen;  // (path, code, text) -> count
  auto result_json = [&](const CheckedDiagnostic& cd) {
    const Diagnostic& d = cd.diagnostic;
    // A secret's line is never hashed; the message names the setting without its value.
    std::string text = d.sensitive || cd.source_line.empty() ? d.message : cd.source_line;
    int occurrence = seen[{d.location.path, d.code, collapse_whitespace(text)}]++;
    json r;
    r["ruleId"] = d.code;
    if (auto it = rule_index.find(d.code); it != rule_index.end()) r["ruleIndex"] = it->second;
    r["level"] = level(d.severity);
    r["message"] = {{"text", d.help.empty() ? d.message : d.message + "\nhelp: " + d.help}};
    r["locations"] = json::array({{{"physicalLocation", physical_location(d.location)}}});
    if (!d.related.empty()) {
      json related = json::array();
      int id = 1;
      for (const auto& rel : d.related) {
        if (rel.location.path.empty()) continue;
        related.push_back({{"id", id++},
                           {"physicalLocation", physical_location(rel.location)},
                           {"message", {{"text", rel.message}}}});
      }
      if (!related.empty()) r["relatedLocations"] = related;
    }
    r["partialFingerprints"] = {{"parlint/v1", finding_fingerprint(d.code, text, occurrence)}};
    if (d.fix) r["fixes"] = json::array({fix_json(*d.fix)});
    if (cd.suppressed_by) {
      json s = {{"kind", "inSource"}, {"status", "accepted"}};
      if (!cd.suppressed_by->reason.empty()) s["justification"] = cd.suppressed_by->reason;
      if (cd.suppressed_by->comment.in_file())
        s["location"] = {{"physicalLocation", physical_location(cd.suppressed_by->comment)}};
      r["suppressions"] = json::array({s});
    }
    return r;
  };

  json notifications = json::array();
  for (const auto& e : result.errors)
    notifications.push_back(
        {{"level", "error"},
         {"message", {{"text", e.message}}},
         {"locations",
          json::array({{{"physicalLocation", {{"artifactLocation", artifact_location(e.path)}}}}})}});
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string();
  if (cwd.empty() || cwd.back() != '/') cwd += '/';

  // Written piece by piece, each result as it is converted (JsonStream), in the layout dump(2) gives.
  JsonStream doc(out);
  doc.begin_object();
  doc.member("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  doc.member("version", "2.1.0");
  doc.begin_array("runs");
  doc.begin_object();
  doc.member("tool", {{"driver",
                       {{"name", "parlint"},
                        {"version", PARLINT_VERSION},
                        {"semanticVersion", PARLINT_VERSION},
                        {"informationUri", PARLINT_DOCS_URL},
                        {"rules", rules}}}});
  doc.member("invocations",
             json::array({{{"executionSuccessful", result.errors.empty()},
                           {"toolExecutionNotifications", notifications},
                           {"workingDirectory", {{"uri", "file://" + percent_encode_path(cwd)}}}}}));
  doc.member("originalUriBaseIds", {{"%SRCROOT%", {{"uri", "file://" + percent_encode_path(cwd)}}}});
  doc.member("columnKind", "unicodeCodePoints");
  doc.begin_array("results");
  for (const auto& cd : result.diagnostics) doc.item(result_json(cd));
  for (const auto& cd : result.suppressed) doc.item(result_json(cd));
  doc.end();
  if (options.statistics) {
    json rules_count = json::array();
    for (const auto& c : rule_counts(result))
      rules_count.push_back({{"code", c.code}, {"name", c.name}, {"count", c.count}});
    doc.member("properties",
               {{"statistics", {{"rules", rules_count}, {"suppressed", result.suppressed.size()}}}});
  }
  doc.end();  // the run
  doc.end();  // runs
  doc.end();
}

}  // namespace parlint
