#pragma once
// What a post-training framework that builds Megatron itself (parsers/frameworks/)
// does with the settings it passes on, as its adapter (parsers/frameworks) answers it. Job resolution and
// the rules read these properties, never the framework's name: a new framework is a new adapter, not a
// new case in every rule that cares.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/keys.h"

namespace parlint {

// A value the framework sets where the job writes nothing (ETP 1, say).
struct DriverDefault {
  Key key;
  std::int64_t value;
  std::string label;  // how plan names it: "<framework> default"
};

// The framework's own check of the global batch, made before Megatron-Core's microbatch calculator runs:
// what it divides the batch by, and its refusal. Templates name {gbs}, {mbs}, {dp}, {unit} (mbs x dp),
// {spelling} (how the batch is written) and {near} (the nearest valid batches).
struct BatchCheck {
  enum class Divisor {
    kMicroBatchTimesDp,  // micro-batch x DP, as Megatron-Core's calculator
    kDp,                 // DP alone: it shards the batch over DP itself
    kDpOfWrittenSizes,   // DP from the sizes the config writes, 1 for the others, whatever the
                         // micro-batch
  };
  Divisor divisor = Divisor::kMicroBatchTimesDp;
  std::string refusal;  // the finding's message
  std::string help;     // empty: the nearest valid batches
  bool fix = true;      // rewriting the written batch is the fix (not when it is a product of settings)
};

// A divisibility the framework asserts between two of its own batch settings before it starts (the samples
// of an episode against its trainer batch and its group size), checked (PL503) only where both are
// written. Templates name {of} and {by} (the two values), {of_spelling} and {by_spelling} (how they are
// written) and {near} (the nearest multiples of {by}).
struct DivisibilityCheck {
  Key of;
  Key by;
  std::string refusal;  // the finding's message
  std::string help;
};

// One refusal of the framework's rollout (generation) engine, on the engine's sizes as its adapter reads
// them (Key::kRollout*; a size not written is 1). Templates name {tp} {dp} {pp} {ep} {tpdp} (TP x DP),
// {engine} (the engine's name) and {engine_gpus} (Key::kRolloutGpusPerEngine).
struct RolloutRefusal {
  enum class When {
    kEpNotTpTimesDp,                  // EP > 1 other than TP x DP
    kPipelineOnEngines,               // PP > 1 on one of `engines`
    kExpertParallel,                  // EP > 1 at all
    kPipeline,                        // PP > 1 at all
    kEpNotMultipleOfTp,               // EP > 1 not a multiple of TP
    kEpNotTpWhenAsync,                // EP > 1, a multiple of TP other than TP, with the async engine on
    kPipelineWithoutAsync,            // PP > 1 with the async engine off
    kEngineGpusNotMultipleOfPp,       // PP > 1 not dividing the GPUs of one engine (both written)
    kDataParallelWithoutDpAttention,  // DP > 1 (written) with DP attention off (Key::kRolloutDpAttention)
    kNoEngineMode,  // the engine's mode (Key::kRolloutName), which it must be given, known to be missing
                    // (null)
  };
  When when;
  Key at;  // the setting the finding is placed on
  std::string message;
  std::string help;
  std::optional<Key> related = std::nullopt;  // a second setting the finding points at
  std::string related_note = {};              // what it says there (a template)
  std::vector<std::string> engines = {};      // kPipelineOnEngines
};

// How the framework fits its rollout engine onto GPUs, with its own words (PL110): the engine's
// TP x DP x PP must divide its GPUs — its own (Key::kRolloutWorldSize) where the framework gives it some,
// else the trainer's. Templates name {tp} {dp} {pp} {product} (TP x DP x PP), {tppp} (TP x PP), {world},
// and {gpus} (own_gpus or shared_gpus, whose template names {spelling}, how the own GPUs are written).
struct RolloutTraits {
  std::vector<RolloutRefusal> refusals;  // in the order they are reported
  std::string world_refusal;
  std::string world_help;
  std::string world_help_own = {};  // when the engine has GPUs of its own; empty: world_help
  std::string own_gpus = {};
  std::string shared_gpus = {};
  std::string own_gpus_note = {};  // on the setting that gives the engine its GPUs; empty: not pointed at
  // A framework that counts its engines by floor division (Key::kRolloutWorldSize over
  // Key::kRolloutGpusPerEngine) leaves the remainder idle: a warning, when not empty. Templates name
  // {world}, {engine_gpus}, {engines} (how many it starts), {idle} and {spelling} (how the GPUs are written).
  std::string idle_gpus_warning = {};
  std::string idle_gpus_help = {};
  // The framework splits the GPUs by the engine's TP alone (a reward model's servers): {product} is TP.
  bool tp_only = false;
  // Its own GPUs counted 0 or fewer (Key::kRolloutWorldSize) are refused with this, when not empty.
  // Templates name {world} and {spelling}.
  std::string own_gpus_refusal = {};
  std::string own_gpus_refusal_help = {};
};

struct DriverTraits {
  std::string name;  // as the framework calls itself; empty when no such framework builds the job
  // Its configs write sequence_parallel: true whatever TP they get, and it turns SP off at TP 1 itself
  // (or documents the switch as a no-op there): SP at TP 1 is its design, not a mistake (PL201).
  bool turns_sp_off_at_tp1 = false;
  // It raises at start-up when tp_comm_overlap is on without sequence parallelism (PL207 is an error
  // with its name), where Megatron-Core alone would only log and run without the overlap.
  bool refuses_tp_comm_overlap_without_sp = false;
  std::vector<DriverDefault> defaults;          // its defaults, below what the job writes
  std::optional<BatchCheck> batch;              // its own check of the global batch (PL503)
  std::vector<DivisibilityCheck> divisibility;  // its own checks between its batch settings (PL503)
  // Its data-parallel sharding settings are its own engine's, not Megatron-Core's FSDP (PL602 does not
  // apply).
  bool fsdp_settings_its_own = false;
  // Its configs leave sequence_parallel to it, and it turns SP on wherever TP > 1.
  bool sp_on_with_tp = false;
  std::optional<RolloutTraits> rollout;  // its rollout engine's refusals (PL110); none: it has none
};

}  // namespace parlint
