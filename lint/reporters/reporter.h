#pragma once
// Reporters turn a run's diagnostics into text for people or machines.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "lint/engine.h"

namespace parlint {

struct ReportOptions {
  bool color = false;
  bool quiet = false;  // diagnostics only, no summary
};

void report_text(const RunResult& result, const ReportOptions& options, std::ostream& out);
void report_gcc(const RunResult& result, const ReportOptions& options, std::ostream& out);
void report_json(const RunResult& result, const ReportOptions& options, std::ostream& out);
void report_plan_json(const PlanResult& plan, std::ostream& out);
void report_plan_text(const PlanResult& plan, std::ostream& out);
// The rank layout of a job as SVG, or nullopt with the reason in `why_not`.
std::optional<std::string> layout_svg(const Job& job, std::string& why_not);

// Makes input-derived text safe for a terminal: control characters (ESC, CR, BEL, ...) and DEL
// become visible escapes such as \x1b, so no input can move the cursor or recolour the screen.
std::string escape_control(std::string_view s);

}  // namespace parlint
