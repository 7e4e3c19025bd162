#pragma once
// The trees of files parsed before, for parsing an edited text again incrementally. The language server
// lints a buffer after every keystroke, and a fresh parse of a long script was most of a lint: given the
// old tree and where the text changed, tree-sitter re-reads only around the edit and reuses the rest.
#include <tree_sitter/api.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/tree_sitter/tree_sitter_tree.h"

namespace parlint {

class TreeCache {
 public:
  // The tree of `text`, the same as a fresh parse with `parser` builds; reparsed from the tree kept for
  // `key` (a file's path) when there is one, and kept for the next parse. Not synchronized: one cache per
  // thread that parses.
  TsTree parse(TSParser* parser, const std::string& key, std::string_view text);

  // Where `new_text` differs from `old_text`, as one edit spanning every change.
  static TSInputEdit edit_between(std::string_view old_text, std::string_view new_text);

 private:
  struct Kept {
    const TSLanguage* language;
    std::string key;
    std::string text;
    TsTree tree;
  };
  static constexpr std::size_t kMaxKept = 8;  // open buffers being edited; the oldest goes first
  std::vector<Kept> kept_;                    // most recently used last
};

}  // namespace parlint
