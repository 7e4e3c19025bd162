#pragma once
// An arithmetic expression whose result sets a node count, GPU count or world size, with the parallel
// sizes among its factors: NODES=$(( TP*PP*EP/8 )), NODES=$(expr $TP \* $EP / 8), and in Python
// num_nodes = tp * pp * ep // 8. Every parser that reads arithmetic records them the same way (PL103).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/keys.h"
#include "lint/model/source_range.h"

namespace parlint {

struct SizeExpression {
  Location location;
  std::string target;                                      // the variable it sets: "NODES"
  Key target_key;                                          // kNodes, kGpusPerNode or kWorldSize
  std::vector<Key> factors;                                // parallel sizes multiplied in it
  std::vector<std::optional<std::int64_t>> factor_values;  // each factor's value there, when known
  std::string text;                                        // the expression as written
};

// A variable multiplied in an expression (in a/b only the numerator multiplies), with its value there.
struct ProductOperand {
  std::string name;
  std::optional<std::int64_t> value;
};

// The size expression `target = <operands multiplied>` is, when the target names a node count, GPU count or
// world size (NODES, num_nodes, GPUS_PER_NODE, WORLD_SIZE) and some operand names a parallel size
// (TP, tensor_parallel_size, EP, ...); nullopt otherwise.
std::optional<SizeExpression> size_expression_of(const std::string& target,
                                                 const std::vector<ProductOperand>& operands,
                                                 Location location, std::string text);

}  // namespace parlint
