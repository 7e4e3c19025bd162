#pragma once
// Findings as rules report them, and diagnostics as reporters print them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/source_range.h"
#include "rules/api/fix.h"

namespace parlint {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };
std::string_view severity_name(Severity s);  // "info", "warning", "error"
std::optional<Severity> severity_from_name(std::string_view name);

// What a rule reports. The engine adds code, name and the final severity.
struct Finding {
  std::string message;
  Location location;  // the setting that must change
  std::vector<RelatedLocation> related;
  std::string help;
  std::optional<Severity> severity;  // for rules with an error and a warning form
  bool weak = false;                 // depends on a fallback value: at most a warning
  bool sensitive = false;            // the located text is a secret: never shown in source snippets
  // The job it holds for, when the setting to change is written outside it (an inherited recipe value).
  std::string holds_for;
  Location holds_for_at;
  std::optional<FixRequest> fix;  // what would correct it, when the answer is determined
};

struct Diagnostic {
  std::string code;
  std::string name;
  Severity severity = Severity::kError;
  std::string message;
  Location location;
  std::vector<RelatedLocation> related;
  std::string help;
  bool sensitive = false;
  // Jobs the finding holds for, each with where it starts (merged by the engine into the message, after
  // its first message_base bytes).
  std::vector<std::pair<std::string, Location>> holds_for;
  std::size_t message_base = 0;
  std::optional<FixRequest> fix_request;  // as the rule asked
  std::optional<Fix> fix;                 // as text edits, when the core found the text to change
};

// Sort order of every report: path, line, column, code.
bool diagnostic_less(const Diagnostic& a, const Diagnostic& b);

}  // namespace parlint
