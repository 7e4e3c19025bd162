#pragma once
// Visiting a node's children in linear time. ts_node_child(n, i) and ts_node_named_child(n, i) start
// from the first child on every call, so an index loop over a node with many children (a script's top
// level, a long function body, a long argument list) is quadratic; these ranges walk the children once
// with a tree cursor.
//
//   for (TSNode c : NamedChildren(n)) ...      named children only
//   for (TSNode c : CodeChildren(n)) ...       named children but comments (tree-sitter's extras, which
//                                              sit between a list's items and a call's arguments)
//   for (TSNode c : Children(n)) ...           every child, punctuation included
#include <tree_sitter/api.h>

#include <vector>

namespace parlint {

enum class ChildKind { kEvery, kNamed, kCode };

template <ChildKind kKind>
class ChildRange {
 public:
  explicit ChildRange(TSNode parent) : cursor_(ts_tree_cursor_new(parent)) {
    at_end_ = !ts_tree_cursor_goto_first_child(&cursor_);
    skip_unwanted();
  }
  ~ChildRange() { ts_tree_cursor_delete(&cursor_); }
  ChildRange(const ChildRange&) = delete;
  ChildRange& operator=(const ChildRange&) = delete;

  struct End {};
  class Iterator {
   public:
    explicit Iterator(ChildRange& range) : range_(&range) {}
    TSNode operator*() const { return ts_tree_cursor_current_node(&range_->cursor_); }
    Iterator& operator++() {
      range_->advance();
      return *this;
    }
    bool operator!=(End) const { return !range_->at_end_; }

   private:
    ChildRange* range_;
  };
  Iterator begin() { return Iterator(*this); }
  End end() const { return {}; }

  // The field name of the child the loop is at (nullptr when it has none).
  const char* field_name() const { return ts_tree_cursor_current_field_name(&cursor_); }

 private:
  void advance() {
    at_end_ = !ts_tree_cursor_goto_next_sibling(&cursor_);
    skip_unwanted();
  }
  void skip_unwanted() {
    if constexpr (kKind != ChildKind::kEvery)
      while (!at_end_ && !wanted(ts_tree_cursor_current_node(&cursor_)))
        at_end_ = !ts_tree_cursor_goto_next_sibling(&cursor_);
  }
  static bool wanted(TSNode n) {
    return ts_node_is_named(n) && (kKind != ChildKind::kCode || !ts_node_is_extra(n));
  }

  TSTreeCursor cursor_;
  bool at_end_ = false;
};

using NamedChildren = ChildRange<ChildKind::kNamed>;
using CodeChildren = ChildRange<ChildKind::kCode>;
using Children = ChildRange<ChildKind::kEvery>;

// The code children (comments left out) as a list, for code that takes them by index.
inline std::vector<TSNode> code_children_of(TSNode parent) {
  std::vector<TSNode> out;
  for (TSNode c : CodeChildren(parent)) out.push_back(c);
  return out;
}

}  // namespace parlint
