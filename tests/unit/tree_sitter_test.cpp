// The pinned grammars load into the pinned core (ABI check) and parse what DESIGN §7 names.
#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <memory>
#include <string>

#include "parsers/tree_sitter/tree_sitter_languages.h"

namespace parlint {
namespace {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};

bool parses_cleanly(const TSLanguage* lang, const char* name, const std::string& text) {
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  set_parser_language(parser.get(), lang, name);
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
  return tree && !ts_node_has_error(ts_tree_root_node(tree.get()));
}

TEST(TreeSitter, GrammarsLoadAndParse) {
  EXPECT_TRUE(parses_cleanly(
      python_language(), "python",
      "cfg.model.tensor_model_parallel_size = 2\nrun.Config(x, tensor_model_parallel_size=4)\n"));
  EXPECT_TRUE(parses_cleanly(bash_language(), "bash",
                             "#SBATCH --nodes=2\nTP=${TP:-2}\ntorchrun --nproc_per_node 8 x.py\n"));
  // bash 0.23 mis-parsed this arithmetic; the pinned 0.25.1 must not.
  EXPECT_TRUE(parses_cleanly(bash_language(), "bash", "(( i++, j = i * 2 ))\n"));
}

TEST(TreeSitter, DeeplyUnbalancedInputDoesNotAbort) {
  std::string deep(100000, '(');
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  set_parser_language(parser.get(), bash_language(), "bash");
  std::unique_ptr<TSTree, TreeDeleter> tree(
      ts_parser_parse_string(parser.get(), nullptr, deep.data(), static_cast<uint32_t>(deep.size())));
  ASSERT_TRUE(tree);
  EXPECT_TRUE(ts_node_has_error(ts_tree_root_node(tree.get())));
}

}  // namespace
}  // namespace parlint
