// GitHub Actions workflow commands (`::error file=…,line=…::message`) and the job summary table.
// Escaping follows what the Actions runner decodes (actions/runner ActionCommand.cs): data escapes
// `%`, CR and LF; property values also `:` and `,`; `%` first. Other control characters are made
// visible so nothing in a file name or message can colour the log or end the command early.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "lint/reporters/reporter.h"

namespace parlint {
namespace {

// Control characters other than CR and LF become visible `\xNN` escapes.
std::string visible(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

std::string percent_escape(std::string_view s, bool property) {
  std::string out;
  out.reserve(s.size());
  for (char c : visible(s)) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char* command_for(Severity s) {
  return s == Severity::kError ? "error" : s == Severity::kWarning ? "warning" : "notice";
}

std::string full_message(const Diagnostic& d) {
  std::string m = d.message;
  if (!d.help.empty()) m += "\nhelp: " + d.help;
  for (const auto& r : d.related) {
    m += "\nnote: ";
    if (r.location.in_file())
      m += fmt::format("{}:{}:{}: ", r.location.path, r.location.range.start.line,
                       r.location.range.start.column);
    m += r.message;
  }
  return m;
}

// Markdown table cell: no pipes, newlines or HTML from input.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : visible(s)) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += "<br>";
    else if (c == '`')
      out += "&#96;";
    else if (c != '\r')
      append_xml_escaped(out, c);
  }
  return out;
}

std::vector<const CheckedDiagnostic*> by_severity(const RunResult& result) {
  std::vector<const CheckedDiagnostic*> order;
  for (const auto& cd : result.diagnostics) order.push_back(&cd);
  // Errors first: the runner keeps only the first 10 annotations of each kind per step.
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->diagnostic.severity > b->diagnostic.severity;
  });
  return order;
}

}  // namespace

std::string github_escape_data(std::string_view s) {
  return percent_escape(s, false);
}
std::string github_escape_property(std::string_view s) {
  return percent_escape(s, true);
}

void report_github(const RunResult& result, const ReportOptions& options, std::ostream& out) {
  for (const auto& e : result.errors)
    out << "::error file=" << github_escape_property(e.path)
        << ",title=parlint::" << github_escape_data(e.message) << "\n";
  int counts[3] = {0, 0, 0};
  for (const CheckedDiagnostic* cd : by_severity(result)) {
    const Diagnostic& d = cd->diagnostic;
    ++counts[static_cast<int>(d.severity)];
    const SourceRange& r = d.location.range;
    std::string props = "file=" + github_escape_property(d.location.path);
    if (r.start.line > 0) {
      props += fmt::format(",line={}", r.start.line);
      int end_line = std::max(r.end.line, r.start.line);
      // Columns only on one line (the runner drops them otherwise); endColumn is the last character.
      if (end_line == r.start.line && r.start.column > 0) {
        props += fmt::format(",col={}", r.start.column);
        if (r.end.column - 1 > r.start.column) props += fmt::format(",endColumn={}", r.end.column - 1);
      }
      props += fmt::format(",endLine={}", end_line);
    }
    props += ",title=" + github_escape_property(d.code + " " + d.name);
    out << "::" << command_for(d.severity) << " " << props << "::" << github_escape_data(full_message(d))
        << "\n";
  }
  const char* kinds[3] = {"notices", "warnings", "errors"};
  for (int s = 2; s >= 0; --s)
    if (counts[s] > 10)
      out << "::notice title=parlint::"
          << github_escape_data(fmt::format("{} {}: GitHub shows the first 10 per step{}", counts[s],
                                            kinds[s],
                                            options.step_summary ? "; the job summary lists all of them"
                                                                 : "; the log lists all of them"))
          << "\n";
}

std::string github_step_summary(const RunResult& result) {
  int counts[3] = {0, 0, 0};
  for (const auto& cd : result.diagnostics) ++counts[static_cast<int>(cd.diagnostic.severity)];
  // Severities named as the text report names them (the annotations must say "notice": GitHub's word).
  std::string md = fmt::format("### parlint: {} error(s), {} warning(s), {} info in {} file(s)\n\n",
                               counts[2], counts[1], counts[0], result.files_checked);
  if (result.diagnostics.empty() && result.errors.empty()) return md + "No findings.\n";
  if (!result.diagnostics.empty()) md += "| | Rule | Location | Message |\n|---|---|---|---|\n";
  constexpr std::size_t kLimit = 1000 * 1000;  // GitHub accepts up to 1 MiB per step summary
  std::size_t shown = 0;
  auto order = by_severity(result);
  for (const CheckedDiagnostic* cd : order) {
    const Diagnostic& d = cd->diagnostic;
    const char* icon = d.severity == Severity::kError     ? "error"
                       : d.severity == Severity::kWarning ? "warning"
                                                          : "info";
    std::string where = d.location.range.start.line > 0
                            ? fmt::format("{}:{}", d.location.path, d.location.range.start.line)
                            : d.location.path;
    std::string row = fmt::format("| {} | {} {} | {} | {} |\n", icon, d.code, cell(d.name), cell(where),
                                  cell(d.help.empty() ? d.message : d.message + "\nhelp: " + d.help));
    if (md.size() + row.size() > kLimit) break;
    md += row;
    ++shown;
  }
  if (shown < order.size())
    md += fmt::format("\n{} more finding(s) are in the step's log.\n", order.size() - shown);
  if (!result.errors.empty()) {
    md += "\n**Inputs that could not be read**\n\n";
    for (const auto& e : result.errors) md += "- " + cell(e.path) + ": " + cell(e.message) + "\n";
  }
  return md;
}

}  // namespace parlint
