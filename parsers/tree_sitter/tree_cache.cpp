#include "parsers/tree_sitter/tree_cache.h"

#include <algorithm>
#include <cstdint>

namespace parlint {
namespace {

// Tree-sitter's point of a byte offset: rows end at '\n', columns count bytes. Counted on from `from`,
// the point of offset `from_offset`, so that the three points of an edit scan the text once.
TSPoint point_at(std::string_view text, std::size_t offset, TSPoint from, std::size_t from_offset) {
  TSPoint p = from;
  for (std::size_t i = from_offset; i < offset; ++i) {
    if (text[i] == '\n') {
      ++p.row;
      p.column = 0;
    } else {
      ++p.column;
    }
  }
  return p;
}

bool has_error(const TsTree& tree) {
  return ts_node_has_error(ts_tree_root_node(tree.get()));
}

}  // namespace

TSInputEdit TreeCache::edit_between(std::string_view old_text, std::string_view new_text) {
  std::size_t shorter = std::min(old_text.size(), new_text.size());
  auto diverge = std::mismatch(old_text.begin(), old_text.begin() + static_cast<std::ptrdiff_t>(shorter),
                               new_text.begin());
  std::size_t prefix = static_cast<std::size_t>(diverge.first - old_text.begin());
  // The common end, not reaching back into the common start.
  auto converge =
      std::mismatch(old_text.rbegin(), old_text.rbegin() + static_cast<std::ptrdiff_t>(shorter - prefix),
                    new_text.rbegin());
  std::size_t suffix = static_cast<std::size_t>(converge.first - old_text.rbegin());
  std::size_t old_end = old_text.size() - suffix, new_end = new_text.size() - suffix;
  TSPoint start = point_at(new_text, prefix, {0, 0}, 0);
  return {static_cast<std::uint32_t>(prefix),         static_cast<std::uint32_t>(old_end),
          static_cast<std::uint32_t>(new_end),        start,
          point_at(old_text, old_end, start, prefix), point_at(new_text, new_end, start, prefix)};
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
