#pragma once
// What Megatron-LM's --use-checkpoint-args takes from the checkpoint --load names, before validate_args:
// the model arguments a launch leaves out, and some over what it writes.
#include <span>

#include "lint/model/framework.h"
#include "lint/model/keys.h"

namespace parlint {

struct CheckpointArgKeys {
  std::span<const Key> unwritten;  // taken from the checkpoint when the launch does not set them
  std::span<const Key> forced;     // taken from the checkpoint whatever the launch sets
  std::span<const Key> sizes;      // the parallel sizes, when they may be taken (see SizesFromCheckpoint)
};

// Whether the parallel sizes come from the checkpoint too.
enum class SizesFromCheckpoint {
  kNo,         // Megatron-Core 0.10 or later without --use-mp-args-from-checkpoint-args
  kForced,     // with that flag, before 0.10 (for every checkpoint of version 3 or later), Megatron-DeepSpeed
  kUnwritten,  // a Megatron-LM of unknown version: either of the above, so only sizes the launch leaves out
               // are unknown (a launch that writes them is read as a current Megatron-LM reads it)
};

CheckpointArgKeys checkpoint_arg_keys(Framework framework);

}  // namespace parlint
