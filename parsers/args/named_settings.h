#pragma once
// Settings a framework adapter read under its own keys (verl's actor_rollout_ref.actor.megatron.X,
// ChatLearn's models.policy_trainer.X), handed to the argument reader typed: the config path parlint reads
// each one as, its value's text and the word it was written in. Nothing is put together as text for the
// reader to take apart again.
#include <span>
#include <string>

#include "lint/model/word.h"
#include "parsers/args/training_args.h"

namespace parlint {

struct NamedSetting {
  std::string path;  // the config path parlint reads it as: "tensor_model_parallel_size", "trainer.num_nodes"
  std::string value;     // its value as written (or as the framework computes it: a product of two settings)
  const Word* word;      // the word it was written in: location, run-time parts, assignments it used
  std::string spelling;  // how the job names it
};

// The facts (in precedence order), conflicts and unrecognised names of these settings, read as
// overrides are: each path through the keys' aliases, each value by its key's type.
TrainingArgs read_named_settings(std::span<const NamedSetting> settings);

}  // namespace parlint
