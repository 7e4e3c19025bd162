#pragma once
// NeMo-RL's cluster terms as one config writes them. With generation on GPUs of its own, the policy's
// share is computed from all of them together (nemo_rl/algorithms/grpo.py:862-911@7ea279abfbeb), and a
// chain of configs (`defaults: parent.yaml`) may write them in different files: each file keeps what it
// wrote, and resolution fills in what a config leaves to its parents before the split is made.
#include <cstdint>
#include <optional>
#include <string>

#include "lint/model/fact.h"

namespace parlint {

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
  // A reward model, distillation teachers or environment servers take GPUs of the cluster too: the
  // policy's share is then unknown.
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
    other_consumers = other_consumers || parent.other_consumers;
  }

  bool non_colocated() const {
    return colocated.written && (colocated.text == "false" || colocated.text == "False" ||
                                 colocated.text == "FALSE" || colocated.text == "0");
  }
};

// The split NeMo-RL makes of those terms, when every term is known.
struct ClusterShare {
  std::optional<std::int64_t> train_nodes, train_gpus_per_node, generation_gpus;
  std::string nodes_from, gpus_from, generation_from;  // how each was computed
  std::string refusal;                                 // the split NeMo-RL refuses, with its message
};

}  // namespace parlint
