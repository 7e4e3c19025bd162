#pragma once
// What walking each never-called shell function of an edited buffer did, kept by the language server from
// one lint of the buffer to the next. A script's helper functions are read at its end, each on a copy of
// the variables (ShellParser::walk_uncalled_functions), and in a long script that was a third of every
// lint although a keystroke elsewhere changes none of them. A walk is replayed only when the function's
// syntax subtree is the very one it walked (tree-sitter's incremental reparse shares it, with its
// children, between a tree and the tree reparsed from it), its lines read the same, every variable and
// piece of state it read is as it was, and its effects are ones a replay repeats exactly
// (shell_uncalled_functions.cpp says which).
#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lint/model/parsed_file.h"

namespace parlint {

class UncalledFunctionMemo {
 public:
  // A variable the walk looked up, as it was then.
  struct Read {
    std::string name;
    bool set = false;
    std::uint64_t hash = 0;  // of its value (StateHash::var), when set
  };
  // One walk: what it read beyond its key, and what it did.
  struct Walk {
    std::vector<Read> reads;
    bool read_every = false;  // it listed the variables: `every` is the hash of them all
    std::uint64_t every = 0;
    std::vector<LiteralAssignment> literals;  // as found when the body started on `first_line`
    int first_line = 0;
    std::uint64_t absorbed = 0;  // work units it charged through the budget
    std::uint64_t metered = 0;   // and those still on the work meter when it ended
    bool runs_programs = false;  // it ran a program (ShellParser::runs_programs_ became true)
  };

  // Starts a lint of `path`, whose main tree is `tree`: the walks of its previous lint that this one neither
  // keeps nor replays are let go once it ends (at the next begin). The trees of this lint and the previous
  // one are held: a key names syntax nodes by address, and no other node can take the address of a node of
  // a tree held (nor is a node of one ever changed in place: an edit copies what it shares).
  void begin(const std::string& path, const TSTree* tree);
  // A function's subtree, lines and starting state, hashed once for the lookups of it.
  struct Key {
    explicit Key(std::string t) : text(std::move(t)), hash(std::hash<std::string>{}(text)) {}
    std::string text;
    std::size_t hash;
    bool operator==(const Key& other) const { return hash == other.hash && text == other.text; }
  };
  // The walks kept under `key`; kept on for the next lint once found. Null when there are none.
  std::vector<Walk>* find(const Key& key);
  // Keeps a walk under `key` (at most kMaxWalks per key, the newest first).
  void keep(const Key& key, Walk walk);
  // Counts of walks kept and replayed, for tests and traces.
  void count_replay() { ++replays_; }
  std::size_t replays() const { return replays_; }
  std::size_t kept() const { return kept_; }

 private:
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return k.hash; }
  };
  using Walks = std::unordered_map<Key, std::vector<Walk>, KeyHash>;
  struct File {
    std::string path;
    Walks current, previous;                      // of this lint, and of the one before
    std::shared_ptr<TSTree> tree, previous_tree;  // the trees whose nodes their keys name
  };
  static constexpr std::size_t kMaxFiles = 8;  // as TreeCache: open buffers being edited
  static constexpr std::size_t kMaxWalks = 4;  // per key: states the function was walked in
  std::vector<File> files_;                    // the file being linted last
  std::size_t replays_ = 0, kept_ = 0;
};

}  // namespace parlint
