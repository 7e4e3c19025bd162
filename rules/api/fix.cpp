#include "rules/api/fix.h"

namespace parlint {

std::string_view applicability_name(FixApplicability a) {
  return a == FixApplicability::kSafe ? "safe" : "unsafe";
}

std::string_view availability_name(FixAvailability a) {
  switch (a) {
    case FixAvailability::kNone:
      return "none";
    case FixAvailability::kSafe:
      return "safe";
    case FixAvailability::kUnsafe:
      return "unsafe";
    case FixAvailability::kSafeOrUnsafe:
      break;
  }
  return "safe or unsafe";
}

FixChange set_value(const Fact& fact, Value value) {
  FixChange c;
  c.kind = FixChange::Kind::kSetValue;
  c.at = fact.location;
  for (const auto& w : fact.written_at) c.written.push_back(w.location);
  c.origin = fact.origin;
  c.spelling = fact.spelling;
  c.old_value = fact.value;
  c.value = std::move(value);
  return c;
}

FixChange rename_text(const Location& at, std::string from, std::string to) {
  FixChange c;
  c.kind = FixChange::Kind::kRename;
  c.at = at;
  c.from = std::move(from);
  c.text = std::move(to);
  return c;
}

FixChange insert_line_before(const Location& at, std::string line) {
  FixChange c;
  c.kind = FixChange::Kind::kInsertBefore;
  c.at = at;
  c.text = std::move(line);
  return c;
}

FixChange replace_text(const Location& at, std::string text) {
  FixChange c;
  c.kind = FixChange::Kind::kReplace;
  c.at = at;
  c.text = std::move(text);
  return c;
}

}  // namespace parlint
