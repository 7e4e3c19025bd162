#include "lint/describe.h"

#include <fmt/format.h>

namespace parlint {

std::string describe_source(const Fact& fact, std::string_view job_path) {
  if (!fact.location.in_file()) return fact.spelling;
  if (fact.location.path == kCommandLinePath)
    return fmt::format("{} {} on the command line", fact.spelling, fact.value.to_string());
  // A derived value spells its inputs ("--nnodes=2 × --nproc-per-node=8"): then " = 16", not "=16".
  const char* eq = fact.spelling.find('=') != std::string::npos ? " = " : "=";
  if (!job_path.empty() && fact.location.path != job_path)
    return fmt::format("{}{}{} at {}:{}", fact.spelling, eq, fact.value.to_string(), fact.location.path,
                       fact.location.range.start.line);
  return fmt::format("{}{}{} at line {}", fact.spelling, eq, fact.value.to_string(),
                     fact.location.range.start.line);
}

std::vector<RelatedLocation> related_locations(const Fact& fact, const std::string& message) {
  std::vector<RelatedLocation> out;
  if (fact.location.in_file()) out.push_back({fact.location, message});
  for (const auto& w : fact.written_at) out.push_back(w);
  return out;
}

Finding finding_at(const Fact& at, std::string message, std::string help, const Fact* other,
                   const std::string& note) {
  Finding f;
  f.location = at.location;
  f.message = std::move(message);
  f.help = std::move(help);
  if (other && other->location.in_file() && other->location.range != at.location.range)
    f.related = related_locations(*other, note);
  return f;
}

std::optional<FixChange> environment_change(const Job& job, const Fact* existing, std::string_view name,
                                            const Value& value) {
  if (existing && existing->location.in_file() && existing->value.is_known()) {
    Value to = value;
    // A variable read as text stays text: "1" -> "0".
    if (existing->value.kind() == Value::Kind::kString && value.as_int())
      to = Value::string(std::to_string(*value.as_int()));
    return set_value(*existing, std::move(to));
  }
  if (existing || job.launch() == LaunchKind::kNone || !job.range().valid()) return std::nullopt;
  return insert_line_before(Location{job.path(), job.range()},
                            fmt::format("export {}={}", name, value.to_string()));
}

std::string join_numbers(const std::vector<std::int64_t>& numbers, const char* last_separator) {
  std::string out;
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    if (i > 0) out += (i + 1 == numbers.size()) ? last_separator : ", ";
    out += std::to_string(numbers[i]);
  }
  return out;
}

}  // namespace parlint
