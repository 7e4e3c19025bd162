#pragma once
// NeMo-RL's split of a cluster between training and non-colocated generation, which job resolution
// completes from the configs a config inherits (resolve/cross_file) before it makes it.
#include <string>
#include <vector>

#include "lint/model/cluster_share.h"
#include "lint/model/fact.h"

namespace parlint {

// NeMo-RL's train/generation split of a cluster (grpo.py:862-911@7ea279abfbeb): one node gives generation
// some of its GPUs; several nodes give it whole nodes. Only when every term is known.
ClusterShare split_non_colocated(const ClusterShareTerms& terms);

// The facts that split gives the policy's job (its nodes, GPUs per node and generation's GPUs, unknown
// where the split is), placed where the terms are written (else at `fallback`), and the note for plan.
std::vector<Fact> cluster_share_facts(const ClusterShareTerms& terms, const ClusterShare& share,
                                      const Location& fallback, std::vector<std::string>& notes);

}  // namespace parlint
