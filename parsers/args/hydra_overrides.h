#pragma once
// Hydra overrides on a launch's command line: key=value, +key=value, ++key=value, ~key (deletion), and
// config-group choices (training=gpt3/5b, NeMo-Framework-Launcher).
#include <string_view>

#include "lint/model/value.h"
#include "lint/model/word.h"
#include "parsers/args/argument_words.h"
#include "parsers/args/training_args.h"

namespace parlint {

// Reads a Hydra override value (`8`, `true`, `null`, `"p2p"`, `[2,4]`) as a value.
Value hydra_value(std::string_view text);

// Reads one word that is not an option; words that are no override (a URL, a script path) are left alone.
void read_override(const Word& w, TrainingArgs& out, ArgumentFacts& facts);

}  // namespace parlint
