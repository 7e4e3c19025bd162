#pragma once
// The arguments of a training entry point (pretrain_gpt.py, run_recipe.py, any *.py): Megatron-LM flags,
// Megatron-Bridge shorthands (-tp, --recipe), Hydra overrides (key=value, +key, ++key, ~key).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/word.h"

namespace parlint {

// A flag that takes a value but gets none: the next word is another flag or the command line ends there,
// always (`value` unset) or on one path of the script (`value` is the word that is empty then). The entry
// point's argparse stops with "argument FLAG: expected one argument".
struct MissingValue {
  Word flag;
  std::optional<Word> value;
  std::string next;  // the word after the flag (or after the value), empty at the end of the line
};

struct TrainingArgs {
  std::vector<Fact> facts;  // in precedence order: shorthands, then flags, then overrides
  std::vector<Conflict> conflicts;
  std::vector<UnrecognizedSetting> unrecognized;
  std::vector<MissingValue> missing_values;
  // Every word was read: none known only at run time stands where a flag could (a $EXTRA_ARGS that is
  // not the value of the option before it).
  bool arguments_complete = true;
  std::optional<Word> unread_argument;  // the first such word, when there is one
  std::optional<Word> recipe;           // --recipe NAME (Megatron-Bridge run_recipe.py)
  // run_recipe.py --model STEM --mode MODE: the library recipe STEM_<task>_config
  // (scripts/training/run_recipe.py:170, 418-420@067f987df03b). Only a launch of run_recipe.py reads them.
  std::optional<Word> recipe_stem, mode;
  std::optional<Word> model;  // --hf-model / --hf_model_path: a Hugging Face id or a built-in model name
  // --use-checkpoint-args with --load or --pretrained-checkpoint: Megatron-LM takes model arguments from
  // the checkpoint (and with --use-mp-args-from-checkpoint-args its parallel sizes).
  std::optional<Word> checkpoint_args;
  bool mp_args_from_checkpoint = false;
  bool loads_checkpoint = false;
  // Config files the launch selects: --config-file x.yaml, Hydra --config-path DIR --config-name NAME
  // (joined as DIR/NAME), and config-group choices such as NeMo-Framework-Launcher's training=gpt3/5b
  // (as "group:training/gpt3/5b").
  std::vector<Word> config_files;
  bool megatron_flags = false;     // at least one Megatron-LM flag
  bool deepspeed = false;          // Megatron-DeepSpeed's flags (--deepspeed, --zero-stage, ...)
  bool hydra_overrides = false;    // at least one key=value override
  bool lightning_trainer = false;  // trainer.num_nodes / trainer.devices overrides (NeMo launches)
};

TrainingArgs parse_training_args(std::span<const Word> words);

// Reads a Hydra override value (`8`, `true`, `null`, `"p2p"`, `[2,4]`) as a value (hydra_overrides.cpp).
Value hydra_value(std::string_view text);

}  // namespace parlint
