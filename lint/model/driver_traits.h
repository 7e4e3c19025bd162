#pragma once
// What a post-training framework that builds Megatron itself (verl, NeMo-RL, ROLL, ChatLearn, ms-swift)
// does with the settings it passes on, as its adapter (parsers/frameworks) answers it. Job resolution and
// the rules read these properties, never the framework's name: a new framework is a new adapter, not a
// new case in every rule that cares.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/keys.h"

namespace parlint {

// A value the framework sets where the job writes nothing (ms-swift's ETP 1).
struct DriverDefault {
  Key key;
  std::int64_t value;
  std::string label;  // how plan names it: "ms-swift default"
};

// The framework's own check of the global batch, made before Megatron-Core's microbatch calculator runs:
// what it divides the batch by, and its refusal. Templates name {gbs}, {mbs}, {dp}, {unit} (mbs x dp),
// {spelling} (how the batch is written) and {near} (the nearest valid batches).
struct BatchCheck {
  enum class Divisor {
    kMicroBatchTimesDp,  // micro-batch x DP, as Megatron-Core's calculator (verl's validate_config)
    kDp,                 // DP alone: it shards the batch over DP itself (NeMo-RL, ChatLearn)
    kDpOfWrittenSizes,   // DP from the sizes the config writes, 1 for the others (ROLL), whatever the
                         // micro-batch
  };
  Divisor divisor = Divisor::kMicroBatchTimesDp;
  std::string refusal;  // the finding's message
  std::string help;     // empty: the nearest valid batches
  bool fix = true;      // rewriting the written batch is the fix (not when it is a product of settings)
};

struct DriverTraits {
  std::string name;  // "ms-swift"; empty when no such framework builds the job
  // Its configs write sequence_parallel: true whatever TP they get, and it turns SP off at TP 1 itself
  // (or documents the switch as a no-op there): SP at TP 1 is its design, not a mistake (PL201).
  bool turns_sp_off_at_tp1 = false;
  // It raises at start-up when tp_comm_overlap is on without sequence parallelism (PL207 is an error
  // with its name), where Megatron-Core alone would only log and run without the overlap.
  bool refuses_tp_comm_overlap_without_sp = false;
  std::vector<DriverDefault> defaults;  // its defaults, below what the job writes
  std::optional<BatchCheck> batch;      // its own check of the global batch (PL503)
  // Its data-parallel sharding settings are its own engine's, not Megatron-Core's FSDP (PL602 does not
  // apply).
  bool fsdp_settings_its_own = false;
};

}  // namespace parlint
