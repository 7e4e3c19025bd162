#pragma once
// What a post-training framework that builds Megatron itself (verl, NeMo-RL, ROLL, ChatLearn, ms-swift)
// does with the settings it passes on, as its adapter (parsers/frameworks) answers it. Job resolution and
// the rules read these properties, never the framework's name: a new framework is a new adapter, not a
// new case in every rule that cares.
#include <cstdint>
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

struct DriverTraits {
  std::string name;  // "ms-swift"; empty when no such framework builds the job
  // Its configs write sequence_parallel: true whatever TP they get, and it turns SP off at TP 1 itself
  // (or documents the switch as a no-op there): SP at TP 1 is its design, not a mistake (PL201).
  bool turns_sp_off_at_tp1 = false;
  // It raises at start-up when tp_comm_overlap is on without sequence parallelism (PL207 is an error
  // with its name), where Megatron-Core alone would only log and run without the overlap.
  bool refuses_tp_comm_overlap_without_sp = false;
  std::vector<DriverDefault> defaults;  // its defaults, below what the job writes
};

}  // namespace parlint
