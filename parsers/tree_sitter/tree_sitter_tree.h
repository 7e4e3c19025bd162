#pragma once
// What both tree-sitter parsers (bash, Python) need of a parse tree: ownership of it, and its ERROR and
// MISSING nodes in document order, bounded so that a hostile file cannot make the search unbounded.
#include <tree_sitter/api.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace parlint {

struct TsTreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using TsTree = std::unique_ptr<TSTree, TsTreeDeleter>;

// The outermost ERROR and MISSING nodes under `root`, first to last: at most `limit`, and none deeper
// than `max_depth` levels (a deeper error is not looked for).
std::vector<TSNode> error_nodes(TSNode root, std::size_t limit, int max_depth);

}  // namespace parlint
