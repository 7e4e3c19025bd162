// GitLab Code Quality: the JSON array that `artifacts:reports:codequality` reads, a subset of the Code
// Climate issue format. GitLab keeps `description`, `check_name`, `fingerprint`, `severity`,
// `location.path` (relative to the project) and `location.lines.begin`; it keys findings by fingerprint
// (two equal fingerprints are one finding in the merge request widget), and its parser stops at the first
// entry its schema refuses, so every entry here has every field. `type` and `categories` make each entry a
// Code Climate issue as well; GitLab ignores them.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "lint/reporters/reporter.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

using json = nlohmann::ordered_json;

// error: the framework refuses the layout, crashes or runs it other than asked (DESIGN §3), after the job
// waited in the queue: `critical`, above GitLab's `major`, which tools use for ordinary lint errors.
// `blocker` is left to tools that know a merge must stop. warning -> minor, info -> info.
const char* gitlab_severity(Severity s) {
  return s == Severity::kError ? "critical" : s == Severity::kWarning ? "minor" : "info";
}

fs::path project_root() {
  std::error_code ec;
  if (const char* ci = std::getenv("CI_PROJECT_DIR"); ci && *ci && fs::path(ci).is_absolute())
    return fs::path(ci).lexically_normal();
  fs::path cwd = fs::current_path(ec);
  for (fs::path dir = cwd; !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return dir;
    if (dir == dir.parent_path()) break;
  }
  return cwd;
}

}  // namespace

std::string project_relative_path(const std::string& path) {
  static const fs::path root = project_root();
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec).lexically_normal();
  fs::path rel = abs.lexically_relative(root);
  std::string out = rel.generic_string();
  if (ec || out.empty() || out == "." || out.starts_with("../") || out == "..") {
    out = fs::path(path).lexically_normal().generic_string();
    while (out.starts_with("./")) out.erase(0, 2);
  }
  return out;
}

void report_gitlab(const RunResult& result, const ReportOptions&, std::ostream& out) {
  json issues = json::array();
  std::map<std::pair<std::string, std::string>, int> seen;  // (path, fingerprint of the line) -> count
  for (const auto& cd : result.diagnostics) {
    const Diagnostic& d = cd.diagnostic;
    std::string path = project_relative_path(d.location.path);
    // As SARIF's: the rule and the primary line's text (a secret's message instead), so the fingerprint
    // survives unrelated lines moving; the occurrence index and the path make it unique in the report.
    std::string text = d.sensitive || cd.source_line.empty() ? d.message : cd.source_line;
    int occurrence = seen[{path, finding_fingerprint(d.code, text, 0)}]++;
    int begin = std::max(d.location.range.start.line, 1);
    int end = std::max(d.location.range.end.line, begin);
    issues.push_back({{"type", "issue"},
                      {"check_name", "parlint/" + d.code},
                      {"description", d.code + ": " + d.message},
                      {"categories", json::array({d.code == "PL701" ? "Security" : "Bug Risk"})},
                      {"severity", gitlab_severity(d.severity)},
                      {"fingerprint", finding_fingerprint(path, d.code, text, occurrence)},
                      {"location", {{"path", path}, {"lines", {{"begin", begin}, {"end", end}}}}}});
  }
  out << issues.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace parlint
