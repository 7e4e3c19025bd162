#include "parsers/frameworks/adapters.h"

namespace parlint {

// The first adapter that claims a launch has it. The drivers that name themselves by entry point come
// first; a Hugging Face trainer is recognised by its arguments, so it is asked after them (ms-swift's
// Megatron CLI takes --model_name_or_path-like flags of its own) and before slime, whose train.py shares
// its name with many trainers. Megatron-DeepSpeed's launches are Megatron-LM's with a DeepSpeed config:
// last, so that a trainer of its own with a --deepspeed_config is the other framework's.
const LaunchAdapters& framework_adapters() {
  static const LaunchAdapters adapters({&verl_adapter(), &chatlearn_adapter(), &ms_swift_adapter(),
                                        &hugging_face_trainer_adapter(), &slime_adapter(),
                                        &megatron_deepspeed_adapter()});
  return adapters;
}

// NeMo-RL and verl name their documents by sections of their own; ROLL by a worker's strategy; ChatLearn
// by models.policy_trainer beside runtime_args; Primus by its modules' back end, its presets by where they
// sit (before GPT-NeoX: Primus's language_model.yaml writes Megatron-LM's `model_parallel_size: null`);
// GPT-NeoX by its top-level sizes; FlagScale, whose system/model sections look like others', last.
const DocumentAdapters& framework_documents() {
  static const DocumentAdapters adapters(
      {&nemo_rl_adapter(), &verl_config_adapter(), &roll_adapter(), &chatlearn_config_adapter(),
       &primus_adapter(), &primus_preset_adapter(), &gpt_neox_adapter(), &flagscale_adapter()});
  return adapters;
}

}  // namespace parlint
