#pragma once
// The options of a training entry point's command line: Megatron-LM flags (--tensor-model-parallel-size 8,
// store_true switches, multi-value flags), Megatron-Bridge run_recipe.py's options and shorthands
// (--recipe, -tp), Megatron-DeepSpeed's and DeepSpeed's flags, --config-file and the Hydra config options.
#include <cstddef>
#include <span>

#include "lint/model/word.h"
#include "parsers/args/argument_words.h"
#include "parsers/args/training_args.h"

namespace parlint {

// Reads the option at words[i] (a word starting with '-' that is not a negative number) and the value
// words it takes; returns the index of the last word it used.
std::size_t read_option(std::span<const Word> words, std::size_t i, TrainingArgs& out, ArgumentFacts& facts);

}  // namespace parlint
