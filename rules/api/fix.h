#pragma once
// Fixes (DESIGN §4): what a rule asks to change, in terms of settings, and the text edits the core makes of
// it. A rule never sees text: it names the fact and the value it should have; the core finds where that
// value is written (`TP=16` when the flag reads `$TP`, the override, the recipe assignment) and edits only
// text that reads exactly the old value.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/source_range.h"
#include "lint/model/value.h"

namespace parlint {

// Safe: changes nothing that ran before, or corrects a value the framework refuses or ignores. Unsafe: it
// changes the layout or the allocation (applied only with --unsafe-fixes).
enum class FixApplicability { kSafe, kUnsafe };
std::string_view applicability_name(FixApplicability a);  // "safe", "unsafe"

// What a rule's documentation promises: no fix, always one kind, or safe in some cases and unsafe in others.
enum class FixAvailability { kNone, kSafe, kUnsafe, kSafeOrUnsafe };
std::string_view availability_name(FixAvailability a);  // "none", "safe", "unsafe", "safe or unsafe"

// One change, as a rule asks for it.
struct FixChange {
  enum class Kind {
    kSetValue,      // the value written for a setting becomes `value` (a presence flag is removed for false)
    kRename,        // the text `from` written inside `at` becomes `to` (a misspelled key)
    kInsertBefore,  // `text` as a line of its own before the line where `at` starts, with its indentation
    kReplace,       // exactly the text at `at` becomes `text` (the core's own fixes: a suppression comment)
  };
  Kind kind = Kind::kSetValue;
  Location at;                    // the setting (key and value) or the place
  std::vector<Location> written;  // where the value itself was written, when not at `at` (TP=16)
  Origin origin = Origin::kYaml;  // how the setting is written
  std::string spelling;           // the key as written ("--sequence-parallel")
  Value old_value, value;         // kSetValue
  std::string from, text;         // kRename (from -> text), kInsertBefore, kReplace
};

struct FixRequest {
  FixApplicability applicability = FixApplicability::kSafe;
  std::string message;  // what it does, imperative: "set sequence_parallel to false"
  std::vector<FixChange> changes;
};

// The changes rules use.
FixChange set_value(const Fact& fact, Value value);
FixChange rename_text(const Location& at, std::string from, std::string to);
FixChange insert_line_before(const Location& at, std::string line);
FixChange replace_text(const Location& at, std::string text);

// A fix as text edits. Ranges are in the file's code-point columns; an empty range inserts.
struct TextEdit {
  Location location;
  std::string new_text;
};
struct Fix {
  FixApplicability applicability = FixApplicability::kSafe;
  std::string message;
  std::vector<TextEdit> edits;  // sorted by position, never overlapping
};

}  // namespace parlint
