#include <array>

#include "lint/reporters/reporter.h"

namespace parlint {

std::span<const ReportFormat> report_formats() {
  static constexpr std::array<ReportFormat, 6> kFormats{{
      {"text", report_text, ReportFormat::Statistics::kAfterReport},
      {"gcc", report_gcc, ReportFormat::Statistics::kStderr},
      {"json", report_json, ReportFormat::Statistics::kInDocument},
      {"github", report_github, ReportFormat::Statistics::kStderr},
      {"sarif", report_sarif, ReportFormat::Statistics::kInDocument},
      {"gitlab", report_gitlab, ReportFormat::Statistics::kStderr},
  }};
  return kFormats;
}

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& f : report_formats())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace parlint
