// TreeCache: an edited text reparsed from its last tree gives the tree a fresh parse gives, node for node.
#include "parsers/tree_sitter/tree_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "fixture_files.h"
#include "parsers/tree_sitter/tree_sitter_languages.h"

namespace parlint {
namespace {

// What edit_between should find: bytes, then (row, column) of the start and both ends.
struct ExpectedEdit {
  std::uint32_t start, old_end, new_end;
  TSPoint start_point, old_end_point, new_end_point;
};

void expect_edit(const std::string& before, const std::string& after, const ExpectedEdit& want) {
  TSInputEdit e = TreeCache::edit_between(before, after);
  std::string what = "edit from \"" + before.substr(0, 40) + "\"";
  EXPECT_EQ(e.start_byte, want.start) << what;
  EXPECT_EQ(e.old_end_byte, want.old_end) << what;
  EXPECT_EQ(e.new_end_byte, want.new_end) << what;
  for (auto [got, expected] : {std::pair{e.start_point, want.start_point},
                               {e.old_end_point, want.old_end_point},
                               {e.new_end_point, want.new_end_point}}) {
    EXPECT_EQ(got.row, expected.row) << what;
    EXPECT_EQ(got.column, expected.column) << what;
  }
}

TEST(TreeCache, EditBetweenSpansTheChange) {
  expect_edit("TP=4\nPP=2\n", "TP=4\nPP=16\n", {8, 9, 10, {1, 3}, {1, 4}, {1, 5}});
  // A line inserted: the edit ends on a later row of the new text.
  expect_edit("a\nb\n", "a\nx\ny\nb\n", {2, 2, 6, {1, 0}, {1, 0}, {3, 0}});
  // A repeated character: the common start and end do not overlap.
  expect_edit("aaa", "aaaa", {3, 3, 4, {0, 3}, {0, 3}, {0, 4}});
  // Lines joined in a long text (the common start and end compared a block at a time): "\nb\n" removed.
  expect_edit(std::string(1000, 'a') + "\nb\nc\n" + std::string(700, 'd'),
              std::string(1000, 'a') + "c\n" + std::string(700, 'd'),
              {1000, 1003, 1000, {0, 1000}, {2, 0}, {0, 1000}});
  expect_edit("same", "same", {4, 4, 4, {0, 4}, {0, 4}, {0, 4}});
}

// Node by node: kind, extent, and the flags the shell parser reads.
void expect_same_tree(TSNode a, TSNode b, const std::string& where) {
  ASSERT_EQ(ts_node_symbol(a), ts_node_symbol(b)) << where;
  ASSERT_EQ(ts_node_start_byte(a), ts_node_start_byte(b)) << where;
  ASSERT_EQ(ts_node_end_byte(a), ts_node_end_byte(b)) << where;
  ASSERT_EQ(ts_node_start_point(a).row, ts_node_start_point(b).row) << where;
  ASSERT_EQ(ts_node_start_point(a).column, ts_node_start_point(b).column) << where;
  ASSERT_EQ(ts_node_end_point(a).row, ts_node_end_point(b).row) << where;
  ASSERT_EQ(ts_node_end_point(a).column, ts_node_end_point(b).column) << where;
  ASSERT_EQ(ts_node_is_missing(a), ts_node_is_missing(b)) << where;
  ASSERT_EQ(ts_node_is_extra(a), ts_node_is_extra(b)) << where;
  ASSERT_EQ(ts_node_has_error(a), ts_node_has_error(b)) << where;
  ASSERT_EQ(ts_node_child_count(a), ts_node_child_count(b)) << where;
  TSTreeCursor ca = ts_tree_cursor_new(a), cb = ts_tree_cursor_new(b);
  if (ts_tree_cursor_goto_first_child(&ca) && ts_tree_cursor_goto_first_child(&cb)) {
    do {
      ASSERT_EQ(ts_tree_cursor_current_field_id(&ca), ts_tree_cursor_current_field_id(&cb)) << where;
      expect_same_tree(ts_tree_cursor_current_node(&ca), ts_tree_cursor_current_node(&cb), where);
      if (::testing::Test::HasFatalFailure()) break;
    } while (ts_tree_cursor_goto_next_sibling(&ca) && ts_tree_cursor_goto_next_sibling(&cb));
  }
  ts_tree_cursor_delete(&ca);
  ts_tree_cursor_delete(&cb);
}

// Each shell fixture, edited the way typing does (a character typed, deleted or replaced, a line added,
// an edit undone), reparsed through the cache after every edit.
TEST(TreeCache, IncrementalParsesMatchFreshParses) {
  std::mt19937 rng(44);
  const std::string typed[] = {"8", "a", " ", "\n", "$", "\"", "'", "(", ")", "{", "}", ";", "#", "\\", "`"};
  int files = 0, parses = 0, reparses = 0;  // reparses: from a tree without errors to one without
  for (const auto& fixture : testing::shell_fixtures()) {
    std::string text = fixture.text;
    ++files;
    TreeCache cache;
    const std::string key = fixture.path.string();
    std::string previous;
    bool clean_before = false;
    for (int step = 0; step < 24; ++step) {
      if (step > 0 && step % 3 == 0) {
        std::swap(text, previous);  // undo
      } else if (step > 0) {
        previous = text;
        std::size_t at = rng() % (text.size() + 1), gone = rng() % 3;
        gone = std::min(gone, text.size() - at);
        std::string with =
            step % 5 == 0 ? "X_" + std::to_string(step) + "=1\n" : typed[rng() % std::size(typed)];
        if (step % 7 == 0) with.clear();
        text.replace(at, gone, with);
      }
      TsTree incremental = cache.parse(thread_bash_parser(), key, text);
      TsTree fresh(ts_parser_parse_string(thread_bash_parser(), nullptr, text.data(),
                                          static_cast<std::uint32_t>(text.size())));
      ASSERT_TRUE(incremental && fresh);
      ++parses;
      bool clean = !ts_node_has_error(ts_tree_root_node(fresh.get()));
      reparses += clean_before && clean;
      clean_before = clean;
      expect_same_tree(ts_tree_root_node(incremental.get()), ts_tree_root_node(fresh.get()),
                       key + " step " + std::to_string(step));
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(files, 100);
  EXPECT_GT(parses, 2400);
  EXPECT_GT(reparses, 1500) << reparses;
}

}  // namespace
}  // namespace parlint
