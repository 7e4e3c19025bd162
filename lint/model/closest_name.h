#pragma once
// "Did you mean …": the known name a mistyped one most likely meant, for the command line, the
// configuration and suppression comments (`chek`, `--selct`, `ignroe`, `gb200-nvl7`, `PL4O1`).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parlint {

// Edits between two words, case ignored: insertions, deletions, substitutions, and two neighbours swapped
// (`ignroe` for `ignore` is one edit).
std::size_t spelling_distance(std::string_view a, std::string_view b);

// The name of `names` nearest `word` when it is near enough to be a misspelling of it: at most 1 edit for
// words up to 4 characters, else 2, or a quarter of the length for long words. The first of equally near
// names wins.
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& names);

// " (did you mean 'X'?)" for the closest name, or "" when none is near.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& names);

}  // namespace parlint
