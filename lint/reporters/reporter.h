#pragma once
// Reporters turn a run's diagnostics into text for people or machines.
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lint/engine/engine.h"

namespace parlint {

struct ReportOptions {
  bool color = false;
  bool quiet = false;         // diagnostics only, no summary
  bool step_summary = false;  // github: a job summary with every finding is written as well
  bool unsafe_fixes = false;  // text: unsafe fixes count as available (--unsafe-fixes)
  bool show_fixes = false;    // text: list what --fix fixed
  bool statistics = false;    // json and sarif: the findings per rule as part of the document
};

// --statistics: findings per rule, most frequent first (then by code), and how many comments suppressed.
struct RuleCount {
  std::string code, name;
  int count = 0;
};
std::vector<RuleCount> rule_counts(const RunResult& result);
// The same as text lines: "   12  PL101  tp-crosses-nvlink-domain", then "    3  suppressed by comments".
std::string statistics_text(const RunResult& result);

// The check reports `--format` chooses from, by name: the option's allowed values and its dispatch.
struct ReportFormat {
  // Where --statistics goes, so that it never replaces the report: after it (text), inside the format's
  // own document (json, sarif: ReportOptions::statistics), or to stderr when the format has no place for it.
  enum class Statistics { kAfterReport, kInDocument, kStderr };
  std::string_view name;
  void (*write)(const RunResult& result, const ReportOptions& options, std::ostream& out);
  Statistics statistics;
};
std::span<const ReportFormat> report_formats();
const ReportFormat* find_report_format(std::string_view name);

void report_text(const RunResult& result, const ReportOptions& options, std::ostream& out);
void report_gcc(const RunResult& result, const ReportOptions& options, std::ostream& out);
void report_json(const RunResult& result, const ReportOptions& options, std::ostream& out);
// GitHub Actions workflow commands, errors first (DESIGN §5).
void report_github(const RunResult& result, const ReportOptions& options, std::ostream& out);
// Markdown for $GITHUB_STEP_SUMMARY: every finding in a table (annotations stop at 10 per kind).
std::string github_step_summary(const RunResult& result);
// Escapes as the Actions runner decodes: the message after `::`, and a property value.
std::string github_escape_data(std::string_view s);
std::string github_escape_property(std::string_view s);
// SARIF 2.1.0 with every rule's metadata, fingerprints and in-source suppressions.
void report_sarif(const RunResult& result, const ReportOptions& options, std::ostream& out);
// A fingerprint of a finding that survives unrelated lines moving: the rule, the primary line's text with
// whitespace collapsed, and how many identical (rule, text) pairs precede it in the file.
std::string finding_fingerprint(const std::string& code, std::string_view line_text, int occurrence);
// The same with the path hashed too, for a report whose fingerprints must be unique across files.
std::string finding_fingerprint(std::string_view path, const std::string& code, std::string_view line_text,
                                int occurrence);
// GitLab Code Quality (the JSON array artifacts:reports:codequality reads), paths relative to the project.
void report_gitlab(const RunResult& result, const ReportOptions& options, std::ostream& out);
// A path as GitLab wants it: relative to the project folder ($CI_PROJECT_DIR, else the top of the git
// checkout around the working directory, else the working directory); as given when it lies outside.
std::string project_relative_path(const std::string& path);
// What --fix fixed, one line each: "path:line:col: CODE fix message (finding)"; "" when nothing.
std::string fixes_listing(const RunResult& result);
void report_plan_json(const PlanResult& plan, std::ostream& out);
// Lines of at most `width` columns (0: as long as they come), broken at spaces.
void report_plan_text(const PlanResult& plan, std::ostream& out, std::size_t width);
// The rank layout of a job as SVG, or nullopt with the reason in `why_not`.
std::optional<std::string> layout_svg(const Job& job, std::string& why_not);

// Makes input-derived text safe for a terminal: control characters (ESC, CR, BEL, ...) and DEL
// become visible escapes such as \x1b, so no input can move the cursor or recolour the screen.
std::string escape_control(std::string_view s);

// `s` as XML/HTML character data or an attribute value: <, >, & and " as entities; control characters
// other than newline and tab (which XML 1.0 does not allow) left out.
std::string xml_escape(std::string_view s);
void append_xml_escaped(std::string& out, char c);

}  // namespace parlint
