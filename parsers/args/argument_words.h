#pragma once
// Facts from the words of a launch's command line, shared by the Megatron flag reader and the Hydra
// override reader (parse_training_args puts their lists together in precedence order).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/word.h"

namespace parlint {

// What the words set, by precedence: run_recipe.py applies shorthands, then flags, then the trailing
// key=value overrides.
struct ArgumentFacts {
  std::vector<Fact> shorthands, flags, overrides;
  std::optional<Word> config_path, config_name;  // Hydra --config-path DIR --config-name NAME
};

// A location from the start of `a` to the end of `b` when both are on one line of one file.
Location span(const Location& a, const Location& b);

// The parts of a dotted config path ("trainer.num_nodes" -> trainer, num_nodes).
std::vector<std::string> dotted_path(std::string_view key);

// The last `--name value` or `--name=value` among a launch's arguments: the flag's word, the value's word
// and the value's text.
struct FlagValue {
  const Word* flag;
  const Word* value;
  std::string text;
};
std::optional<FlagValue> last_flag_value(std::span<const Word> args, std::string_view name);
// `text` (the value part of `w`) as a value of `type`; unknown when the word is known only at run time.
Value word_value(const Word& w, std::string_view text, KeyType type, bool inverted);
// A fact for `key`, with where its value word was written when that is elsewhere (TP=16 above the line).
Fact argument_fact(Key key, Value value, Location loc, Origin origin, std::string spelling,
                   const Word& value_word);

}  // namespace parlint
