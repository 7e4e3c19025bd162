#pragma once
// Option strings built in branches: OPTS="--tensor-model-parallel-size 4 ..."; if ...; then
// OPTS="$OPTS --recompute-activations"; fi. After the branches, the options every branch agrees on keep
// their value and only the options the branches disagree about become unknown, instead of the whole
// variable (which silently dropped TP to its default).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "parsers/shell/shell_variables.h"

namespace parlint::shell {

// What branches did to a value when each left it as it was or appended options to it (`A="$A --x"`,
// `A+=(--x)`): the words to append to the value as it was before them. Applying them costs what the
// branches added, not the whole value.
struct AppendedOptions {
  std::vector<ShellText> words;
  std::vector<RelatedLocation> via;  // assignments the branches used that the value did not already name
  bool exported = false;
  void apply_to(Var& v) const;
};
std::optional<AppendedOptions> appended_options(const std::vector<const Var*>& values, const Var& before,
                                                const std::string& branches);

// What a value's words are as options: each word up to its first '=' (`--tp` of `--tp=4`, `key` of
// `key=v`), for the words of text[0, upto). Kept with the Var (Var::option_keys) and extended as the value
// grows, so that the merge after an if asks whether the value has an option at the cost of what was
// appended since, not of the whole value.
struct OptionKeyIndex {
  // Looked up by string_view: most words of a value repeat a key it has already.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_set<std::string, Hash, std::equal_to<>> keys;
  std::size_t upto = 0;
  std::size_t placeholders = 0;  // run-time parts (kUnknownByte) in text[0, upto)
  // The option key of each word that ends before `formed` (a blank follows it; the last word may still
  // grow, A="${A}x"), and whether every such word is `key=<unknown>` (an earlier merge left it so): the
  // merge judges an option the value already has from it, instead of searching the value's text for it.
  std::unordered_map<std::string, bool, Hash, std::equal_to<>> only_unknown;
  std::size_t formed = 0;  // where the words not yet read start (the last word read, when it may grow)
};

// The words an unquoted $VAR (or "${ARR[@]}") gives: the elements of an array, the blank-separated
// fields of a string, each with the origins of its bytes.
std::vector<ShellText> option_words(const Var& v);

// The variable after branches that each left it as `values` (in branch order), when every value is an
// options list (the same leading words, then --flags and key=value overrides): the options all
// branches agree on as written, and `--flag=<unknown>` (or `key=<unknown>`) for each option one branch
// sets differently or not at all. nullopt when the values are not options lists that share their
// leading words; the caller then makes the whole variable unknown. `branches` names them in the
// reason ("the branches at line 8"). `before` is the value before the branches (null when unset); when it
// is given the caller has already tried appended_options(), the cheaper merge for that case.
std::optional<Var> merge_option_lists(const std::vector<const Var*>& values, const Var* before,
                                      const std::string& branches);

}  // namespace parlint::shell
