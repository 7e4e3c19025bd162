#include "parsers/tree_sitter/tree_cache.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace parlint {
namespace {

// Tree-sitter's point of a byte offset: rows end at '\n', columns count bytes. Counted on from `from`, the
// point of offset `from_offset`, so that the three points of an edit scan the text once.
TSPoint point_at(std::string_view text, std::size_t offset, TSPoint from, std::size_t from_offset) {
  std::string_view span = text.substr(from_offset, offset - from_offset);
  auto rows = static_cast<std::uint32_t>(std::count(span.begin(), span.end(), '\n'));
  if (rows == 0) return {from.row, from.column + static_cast<std::uint32_t>(span.size())};
  return {from.row + rows, static_cast<std::uint32_t>(span.size() - span.rfind('\n') - 1)};
}

// The length of the common start of `a` and `b`, or of their common end (`from_end`). A block at a time with
// memcmp: a loop over the bytes of a 2,000-line script was ~300k instructions per edit.
std::size_t common_length(std::string_view a, std::string_view b, bool from_end) {
  constexpr std::size_t kBlock = 256;
  std::size_t n = std::min(a.size(), b.size()), same = 0;
  auto at = [&](std::string_view s, std::size_t i, std::size_t len) {
    return s.data() + (from_end ? s.size() - i - len : i);
  };
  while (same + kBlock <= n && std::memcmp(at(a, same, kBlock), at(b, same, kBlock), kBlock) == 0)
    same += kBlock;
  while (same < n && *at(a, same, 1) == *at(b, same, 1)) ++same;
  return same;
}

bool has_error(const TsTree& tree) {
  return ts_node_has_error(ts_tree_root_node(tree.get()));
}

}  // namespace

TSInputEdit TreeCache::edit_between(std::string_view old_text, std::string_view new_text) {
  std::size_t prefix = common_length(old_text, new_text, false);
  // The common end, not reaching back into the common start.
  std::size_t suffix = common_length(old_text.substr(prefix), new_text.substr(prefix), true);
  TSInputEdit edit;
  edit.start_byte = static_cast<std::uint32_t>(prefix);
  edit.old_end_byte = static_cast<std::uint32_t>(old_text.size() - suffix);
  edit.new_end_byte = static_cast<std::uint32_t>(new_text.size() - suffix);
  edit.start_point = point_at(new_text, prefix, {0, 0}, 0);
  edit.old_end_point = point_at(old_text, edit.old_end_byte, edit.start_point, prefix);
  edit.new_end_point = point_at(new_text, edit.new_end_byte, edit.start_point, prefix);
  return edit;
}

TsTree TreeCache::parse(TSParser* parser, const std::string& key, std::string_view text) {
  const TSLanguage* language = ts_parser_language(parser);
  auto it = std::find_if(kept_.begin(), kept_.end(),
                         [&](const Kept& k) { return k.language == language && k.key == key; });
  Kept kept{language, key, {}, nullptr};
  if (it != kept_.end()) {
    kept = std::move(*it);
    kept_.erase(it);
  }
  auto length = static_cast<std::uint32_t>(text.size());
  TsTree tree;
  // A tree with errors is neither reused nor trusted from a reuse: how tree-sitter recovers from an
  // error depends on the subtrees at hand, and the findings must be those a fresh parse gives.
  if (kept.tree && !has_error(kept.tree)) {
    TSInputEdit edit = edit_between(kept.text, text);
    ts_tree_edit(kept.tree.get(), &edit);
    tree.reset(ts_parser_parse_string(parser, kept.tree.get(), text.data(), length));
    if (tree && has_error(tree)) tree.reset();
  }
  if (!tree) tree.reset(ts_parser_parse_string(parser, nullptr, text.data(), length));
  if (!tree) return tree;
  if (kept_.size() >= kMaxKept) kept_.erase(kept_.begin());
  kept.text.assign(text);
  // ts_tree_copy shares the tree's nodes (reference counted): keeping it costs no parse.
  kept.tree.reset(ts_tree_copy(tree.get()));
  kept_.push_back(std::move(kept));
  return tree;
}

}  // namespace parlint
