// path:line:col: error|warning|note: message [CODE] — one line per finding, for editors and CI matchers.
#include <fmt/format.h>

#include "lint/reporters/reporter.h"

namespace parlint {

void report_gcc(const RunResult& result, const ReportOptions&, std::ostream& out) {
  for (const auto& cd : result.diagnostics) {
    const Diagnostic& d = cd.diagnostic;
    const char* level = d.severity == Severity::kError     ? "error"
                        : d.severity == Severity::kWarning ? "warning"
                                                           : "note";
    out << fmt::format("{}:{}:{}: {}: {} [{}]\n", escape_control(d.location.path),
                       d.location.range.start.line, d.location.range.start.column, level,
                       escape_control(d.message), d.code);
  }
}

}  // namespace parlint
