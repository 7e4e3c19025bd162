#include "rules/api/diagnostic.h"

#include <tuple>

namespace parlint {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

std::optional<Severity> severity_from_name(std::string_view name) {
  if (name == "info") return Severity::kInfo;
  if (name == "warning") return Severity::kWarning;
  if (name == "error") return Severity::kError;
  return std::nullopt;
}

bool diagnostic_less(const Diagnostic& a, const Diagnostic& b) {
  return std::tie(a.location.path, a.location.range.start, a.code, a.message) <
         std::tie(b.location.path, b.location.range.start, b.code, b.message);
}

}  // namespace parlint
