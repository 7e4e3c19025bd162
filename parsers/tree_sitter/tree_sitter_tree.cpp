#include "parsers/tree_sitter/tree_sitter_tree.h"

#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint {
namespace {

void collect(TSNode n, std::size_t limit, int depth, int max_depth, std::vector<TSNode>& out) {
  if (out.size() >= limit || depth > max_depth) return;
  if (ts_node_is_error(n) || ts_node_is_missing(n)) {
    out.push_back(n);
    return;
  }
  for (TSNode child : Children(n))
    if (ts_node_has_error(child)) collect(child, limit, depth + 1, max_depth, out);
}

}  // namespace

std::vector<TSNode> error_nodes(TSNode root, std::size_t limit, int max_depth) {
  std::vector<TSNode> out;
  if (ts_node_has_error(root)) collect(root, limit, 0, max_depth, out);
  return out;
}

}  // namespace parlint
