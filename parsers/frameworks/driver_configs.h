#pragma once
// Frameworks that drive Megatron-Core under keys of their own, read with their own semantics:
//   NeMo-RL   policy.megatron_cfg.<field> (when megatron_cfg.enabled), cluster.num_nodes / gpus_per_node,
//             policy.train_global_batch_size / train_micro_batch_size / max_total_sequence_length,
//             policy.model_name; `defaults: parent.yaml` inherits another config. Megatron-Bridge runs it.
//   verl      actor_rollout_ref.actor.megatron.<field>, trainer.nnodes / n_gpus_per_node,
//             actor_rollout_ref.model.path. verl turns sequence parallelism off itself at TP 1.
//   FlagScale system.<field> and model.<field> (Megatron-LM arguments), experiment.runner.nnodes /
//             nproc_per_node. A Megatron-LM fork.
//   ROLL      <role>.strategy_args.strategy_config.<field> when <role>.strategy_args.strategy_name is
//             megatron_train / megatron_infer, the role's GPUs len(<role>.device_mapping); one job per role.
//   GPT-NeoX  top-level pipe_parallel_size / model_parallel_size: its own keys and checks, not modelled;
//             such a document makes no job (not_megatron).
// Their key paths are rewritten onto the ones parlint reads (model.<field>, trainer.num_nodes, ...); keys
// of theirs that are not Megatron settings are their own and never PL801.
#include <optional>
#include <string>
#include <vector>

#include "lint/model/cluster_share.h"
#include "lint/model/parsed_file.h"

namespace parlint {

struct DriverKey {
  std::vector<std::string>* path;  // rewritten in place
  std::string scalar;              // the value when it is a scalar, else empty
  bool own_key = false;            // set: a key of the driver's own (not a setting parlint reads)
  bool quiet = false;              // set: read it if it is a setting, but never report it as unknown
  bool dropped = false;            // set: not in effect (megatron_cfg of a config that does not enable it)
  Location location = {};          // where the value is written
};

struct DriverConfig {
  Framework framework;         // the framework whose semantics apply
  std::string name;            // "NeMo-RL policy (megatron_cfg)", "verl actor", "FlagScale"
  std::string model;           // a Hugging Face id or model path it names
  std::string base;            // a config it inherits (NeMo-RL `defaults: parent.yaml`)
  bool world_unknown = false;  // the job gets part of the cluster only (non-colocated generation)
  bool not_megatron = false;   // the config runs another backend (DTensor, FSDP): no Megatron job
  std::optional<bool> megatron_on = std::nullopt;  // the config's own Megatron switch, when it writes one
  // NeMo-RL: the cluster terms this config writes, and (generation not colocated) the policy's share of
  // the cluster as grpo.setup splits it (nemo_rl/algorithms/grpo.py:862-911@7ea279abfbeb) when the file
  // gives every term; else world_unknown, and resolution completes the terms from the inherited configs.
  ClusterShareTerms cluster_terms = {};
  ClusterShare share = {};
  // ROLL: the role's GPUs, len(device_mapping) (roll/configs/worker_config.py:311-316@8eb27cc2dc34).
  std::optional<std::int64_t> world_size = std::nullopt;
  std::string world_from = {};      // the key it is read from
  std::string world_spelling = {};  // how plan names it: "len(actor_train.device_mapping)"
  bool from_checkpoint = false;     // what the config leaves out comes from the model's checkpoint
  Driver driver = Driver::kNone;    // the post-training framework the config belongs to
  DriverTraits traits = {};         // what it does with the settings (lint/model/driver_traits.h)
};

std::optional<DriverConfig> rewrite_driver_keys(std::vector<DriverKey>& keys);

// NeMo-RL's train/generation split of a cluster (grpo.py:862-911@7ea279abfbeb): one node gives generation
// some of its GPUs; several nodes give it whole nodes. Only when every term is known.
ClusterShare split_non_colocated(const ClusterShareTerms& terms);

// The facts that split gives the policy's job (its nodes, GPUs per node and generation's GPUs, unknown
// where the split is), placed where the terms are written (else at `fallback`), and the note for plan.
std::vector<Fact> cluster_share_facts(const ClusterShareTerms& terms, const ClusterShare& share,
                                      const Location& fallback, std::vector<std::string>& notes);

}  // namespace parlint
