#pragma once
// verl's PPO/GRPO driver (python -m verl.trainer.main_ppo) as Megatron jobs, one per role it builds, read
// from its Hydra overrides (verl @ b178a3cd56f5):
//   actor      actor_rollout_ref.actor.megatron.<size> and .override_transformer_config.<field>
//   reference  built when actor.use_kl_loss or algorithm.use_kl_in_reward (trainer/ppo/utils.py:72-76);
//              its transformer overrides default to the actor's (config/ref/megatron_ref.yaml:17)
//   critic     built when critic.enable, else when algorithm.adv_estimator is gae, the default of
//              ppo_megatron_trainer.yaml (trainer/ppo/utils.py:86-97); its overrides are its own
// All roles share one process per GPU (trainer.nnodes x trainer.n_gpus_per_node, main_ppo.py:202-205,
// ray_trainer.py:850-858) and Megatron's groups are set up once, by the actor (megatron_workers.py:273-293):
// the reference and critic run on the actor's TP/PP/CP/EP/ETP/VPP whatever their own keys say (their
// TransformerConfig takes the sizes from the live groups, models/mcore/config_converter.py:77-82).
#include <string>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/word.h"

namespace parlint {

struct VerlRole {
  std::string name;        // "actor", "reference", "critic"
  std::vector<Word> args;  // what parlint reads for it: bare Megatron fields, trainer sizes, the model
  // The role's own size keys, which verl does not apply: each against the actor's value it runs with
  // (loser: the role's key, spelled in full; winner: the actor's, or a default without a location).
  std::vector<Conflict> ignored;
  // How each word was written (by where it was written): "actor_rollout_ref.actor.megatron.
  // tensor_model_parallel_size", "data.train_batch_size x actor_rollout_ref.rollout.n".
  std::vector<std::pair<SourceRange, std::string>> spelled;
};

// The roles a verl launch builds with the Megatron back end, from its arguments (empty when the launch
// does not use Megatron, e.g. the FSDP ppo_trainer config with no megatron keys).
std::vector<VerlRole> verl_roles(const std::vector<Word>& args);

}  // namespace parlint
