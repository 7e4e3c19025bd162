#pragma once
// NeMo-RL's split of a cluster between training and non-colocated generation (grpo.py:862-911@7ea279abfbeb).
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

// NeMo-RL's train/generation split of a cluster (grpo.py:862-911@7ea279abfbeb): one node gives generation
// some of its GPUs; several nodes give it whole nodes. Only when every term is known.
ClusterShare split_non_colocated(const ClusterShareTerms& terms);

// The facts that split gives the policy's job (its nodes, GPUs per node and generation's GPUs, unknown
// where the split is), placed where the terms are written (else at `fallback`), and the note for plan.
std::vector<Fact> cluster_share_facts(const ClusterShareTerms& terms, const ClusterShare& share,
                                      const Location& fallback, std::vector<std::string>& notes);

}  // namespace parlint
