#include <array>

#include "lint/reporters/reporter.h"

namespace parlint {

std::span<const ReportFormat> report_formats() {
  static constexpr std::array<ReportFormat, 6> kFormats{{
      {"text", report_text},
      {"gcc", report_gcc},
      {"json", report_json},
      {"github", report_github},
      {"sarif", report_sarif},
      {"gitlab", report_gitlab},
  }};
  return kFormats;
}

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& f : report_formats())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace parlint
