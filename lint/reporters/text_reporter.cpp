// Human output: location, severity and code, the source line with the range underlined, help and
// related locations, then a summary.
#include <fmt/format.h>

#include <algorithm>

#include "lint/model/source_text.h"
#include "lint/reporters/reporter.h"

namespace parlint {
namespace {

struct Style {
  bool on;
  std::string wrap(std::string_view code, std::string_view s) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : std::string(s);
  }
};

std::string_view severity_color(Severity s) {
  switch (s) {
    case Severity::kError:
      return "1;31";
    case Severity::kWarning:
      return "1;33";
    case Severity::kInfo:
      return "1;36";
  }
  return "1";
}

std::string location_text(const Location& l) {
  return fmt::format("{}:{}:{}", escape_control(l.path), l.range.start.line, l.range.start.column);
}

}  // namespace

void report_text(const RunResult& result, const ReportOptions& options, std::ostream& out) {
  Style st{options.color};
  int counts[3] = {0, 0, 0};
  for (const auto& cd : result.diagnostics) {
    const Diagnostic& d = cd.diagnostic;
    ++counts[static_cast<int>(d.severity)];
    auto color = severity_color(d.severity);
    out << st.wrap("1", location_text(d.location)) << ": "
        << st.wrap(color, fmt::format("{}[{}]", severity_name(d.severity), d.code)) << " "
        << escape_control(d.message) << "\n";
    const SourceRange& r = d.location.range;
    std::string number = std::to_string(r.start.line);
    std::string gutter(number.size(), ' ');
    if (!cd.source_line.empty() && r.valid()) {
      std::string line = escape_control(cd.source_line);
      // Columns count code points; escaping widens control characters, so measure on the escaped text
      // of the prefix.
      std::string_view raw = cd.source_line;
      int before = count_code_points(escape_control(raw.substr(0, column_to_byte(raw, r.start.column))));
      int width = r.end.line == r.start.line ? std::max(1, r.end.column - r.start.column) : 1;
      width = std::min(width, std::max(1, count_code_points(line) - before));
      out << st.wrap("1;34", gutter + " |") << "\n";
      out << st.wrap("1;34", number + " |") << " " << line << "\n";
      out << st.wrap("1;34", gutter + " |") << " " << std::string(static_cast<std::size_t>(before), ' ')
          << st.wrap(color, std::string(static_cast<std::size_t>(width), '^')) << "\n";
    }
    if (!d.help.empty())
      out << gutter << " = " << st.wrap("1", "help") << ": " << escape_control(d.help) << "\n";
    if (d.fix)
      out << gutter << " = " << st.wrap("1", "fix") << " ("
          << (d.fix->applicability == FixApplicability::kSafe ? "safe" : "unsafe, with --unsafe-fixes")
          << "): " << escape_control(d.fix->message) << "\n";
    for (const auto& rel : d.related) {
      if (rel.location.in_file())
        out << gutter << " = " << st.wrap("1", "note") << ": " << location_text(rel.location) << ": "
            << escape_control(rel.message) << "\n";
    }
    out << "\n";
  }
  if (options.show_fixes) out << fixes_listing(result);
  if (options.quiet) return;
  int total = counts[0] + counts[1] + counts[2];
  std::string files = fmt::format("{} file{}", result.files_checked, result.files_checked == 1 ? "" : "s");
  // Inputs that could not be read are reported on stderr; the summary must not read as a clean run.
  std::string unread = result.errors.empty()
                           ? ""
                           : fmt::format("; {} input{} could not be read", result.errors.size(),
                                         result.errors.size() == 1 ? "" : "s");
  std::size_t fixed = 0, safe = 0, unsafe = 0;
  for (const auto& f : result.fixes) fixed += f.applied.size();
  for (const auto& cd : result.diagnostics)
    if (cd.diagnostic.fix) ++(cd.diagnostic.fix->applicability == FixApplicability::kSafe ? safe : unsafe);
  if (fixed > 0) out << fmt::format("Fixed {} finding{}.\n", fixed, fixed == 1 ? "" : "s");
  if (safe + (options.unsafe_fixes ? unsafe : 0) > 0)
    out << fmt::format("{} fixable with --fix{}.\n", safe + (options.unsafe_fixes ? unsafe : 0),
                       options.unsafe_fixes ? " --unsafe-fixes" : "");
  if (!options.unsafe_fixes && unsafe > 0)
    out << fmt::format("{} more with --unsafe-fixes (they change the layout or the allocation).\n", unsafe);
  if (total == 0) {
    out << fmt::format("No problems found in {}{}.\n", files, unread);
  } else {
    out << fmt::format("Found {} problem{} ({} error{}, {} warning{}, {} info) in {}{}.\n", total,
                       total == 1 ? "" : "s", counts[2], counts[2] == 1 ? "" : "s", counts[1],
                       counts[1] == 1 ? "" : "s", counts[0], files, unread);
  }
}

std::string fixes_listing(const RunResult& result) {
  std::string out;
  std::size_t fixed = 0;
  for (const auto& f : result.fixes) fixed += f.applied.size();
  if (fixed == 0) return out;
  out += fmt::format("Fixed {} finding{}:\n", fixed, fixed == 1 ? "" : "s");
  for (const auto& f : result.fixes)
    for (const auto& a : f.applied)
      out += fmt::format("  {}: {} ({}): {}\n", location_text(a.at), a.code,
                         applicability_name(a.fix.applicability), escape_control(a.fix.message));
  return out;
}

}  // namespace parlint
