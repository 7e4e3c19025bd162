#pragma once
// The local modules Python files import (`from .base import base_recipe`, a package of the checkout),
// read and parsed by tree-sitter once per run instead of once per importing file: every recipe of a
// folder imports the same few modules, and parsing them again for each was a quarter of a run over real
// Python files. Only the text and the syntax tree are kept: each importing file still reads the module
// (its functions, its module body) with its own interpreter and its own budget. Shared by the threads of
// one `check`; never by the language server, whose buffers change.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "lint/model/source_text.h"
#include "parsers/tree_sitter/tree_sitter_tree.h"

namespace parlint {

// A parse tree several threads read at once and none changes. tree-sitter's node functions only read
// through a `const TSTree*` (its Rust binding marks Tree and Node Sync), so one tree serves every reader
// and is deleted with its last holder. Copies (ts_tree_copy) would not do: each bumps the shared nodes'
// reference counts, which tree-sitter's own assertions read unsynchronized (ThreadSanitizer reports it).
using SharedTsTree = std::shared_ptr<const TSTree>;

class PythonModuleCache {
 public:
  struct Module {
    std::shared_ptr<const SourceText> source;
    SharedTsTree tree;  // of `source`
    // What reading and parsing it charged the budget of the file that did: a file that takes it from here
    // is charged the same, so that where its budget runs out (PL903) does not depend on who parsed first.
    std::uint64_t units = 0;
  };

  // The module kept under `key`; nullopt when none.
  std::optional<Module> find(const std::string& key) const;
  // Keeps `module` for the rest of the run; the first one kept for a key wins (they are alike). Past the
  // cache's bounds it is not kept, and later files parse the module themselves.
  void keep(const std::string& key, Module module);
  std::size_t size() const;

 private:
  // Distinct modules and bytes of text kept per run: a tree takes 10-25 times its text (measured on
  // Megatron-Bridge's recipes), so memory stays under a few hundred MiB.
  static constexpr std::size_t kMaxKept = 1024;
  static constexpr std::size_t kMaxBytes = 16u << 20;
  mutable std::mutex mutex_;
  std::map<std::string, Module> kept_;
  std::size_t bytes_ = 0;
};

}  // namespace parlint
