#pragma once
// NeMo-RL's split of a cluster between training, non-colocated generation (grpo.py:862-911@7ea279abfbeb) and
// a reward model's own GPUs (grpo.py:759-818@7ea279abfbeb).
// A chain of configs (`defaults: parent.yaml`) may write its terms in different files: each config's job
// keeps what it wrote as its InheritedState, and resolution hands it the parents' before the split is made.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/fact.h"

namespace parlint {

// NeMo-RL's cluster terms as one config writes them. With generation on GPUs of its own, the policy's share
// is computed from all of them together.
struct ClusterShareTerms {
  struct Term {
    bool written = false;
    std::string text;  // the scalar as written ("8", "null", "false")
    Location at;
  };
  Term nodes;                     // cluster.num_nodes
  Term gpus_per_node;             // cluster.gpus_per_node
  Term generation_nodes;          // policy.generation.colocated.resources.num_nodes
  Term generation_gpus_per_node;  // policy.generation.colocated.resources.gpus_per_node
  Term colocated;                 // policy.generation.colocated.enabled
  // The environments the data routes to (data.{train,validation,default}.env_name): "reward_model" when
  // one of them is the reward model, which then takes GPUs of its own (grpo.py:728-729, :759-766).
  Term reward_env;
  Term reward_nodes;          // env.reward_model.resources.num_nodes
  Term reward_gpus_per_node;  // env.reward_model.resources.gpus_per_node
  bool reward_block = false;  // an env.reward_model section is written
  // Distillation teachers or environment servers take GPUs of the cluster too: the policy's share is then
  // unknown.
  bool other_consumers = false;

  // Fills what this config leaves unwritten from the config it inherits. The root of a chain sizes its
  // own example run (1 node of 1 GPU), so its cluster size is not taken (cluster_size = false).
  void inherit(const ClusterShareTerms& parent, bool cluster_size) {
    auto take = [](Term& mine, const Term& theirs) {
      if (!mine.written && theirs.written) mine = theirs;
    };
    if (cluster_size) {
      take(nodes, parent.nodes);
      take(gpus_per_node, parent.gpus_per_node);
    }
    take(generation_nodes, parent.generation_nodes);
    take(generation_gpus_per_node, parent.generation_gpus_per_node);
    take(colocated, parent.colocated);
    take(reward_env, parent.reward_env);
    take(reward_nodes, parent.reward_nodes);
    take(reward_gpus_per_node, parent.reward_gpus_per_node);
    reward_block = reward_block || parent.reward_block;
    other_consumers = other_consumers || parent.other_consumers;
  }

  bool non_colocated() const {
    return colocated.written && (colocated.text == "false" || colocated.text == "False" ||
                                 colocated.text == "FALSE" || colocated.text == "0");
  }
  // The data routes a task to the reward model environment.
  bool reward_model_on() const { return reward_env.written && reward_env.text == "reward_model"; }
  // The policy gets part of the cluster only.
  bool split() const { return non_colocated() || reward_model_on(); }
};

// The split NeMo-RL makes of those terms, when every term is known.
struct ClusterShare {
  bool colocated = false;  // generation runs on the policy's GPUs (only a reward model takes some)
  std::optional<std::int64_t> train_nodes, train_gpus_per_node, generation_gpus;
  std::string nodes_from, gpus_from, generation_from;  // how each was computed
  std::string refusal;                                 // the split NeMo-RL refuses, with its message
};

// NeMo-RL's split of a cluster (grpo.py:759-915@7ea279abfbeb): a reward model takes its GPUs of a single
// node, or its nodes of several; then non-colocated generation takes some GPUs of the policy's one node, or
// whole nodes of several. Only when every term is known.
ClusterShare split_cluster(const ClusterShareTerms& terms);

// The facts that split gives the policy's job (its nodes, GPUs per node and generation's GPUs, unknown
// where the split is), placed where the terms are written (else at `fallback`), and the note for plan.
std::vector<Fact> cluster_share_facts(const ClusterShareTerms& terms, const ClusterShare& share,
                                      const Location& fallback, std::vector<std::string>& notes);

}  // namespace parlint
