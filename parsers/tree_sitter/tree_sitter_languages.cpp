#include "parsers/tree_sitter/tree_sitter_languages.h"

#include <tree_sitter/api.h>

#include <memory>
#include <stdexcept>

extern "C" const TSLanguage* tree_sitter_python();
extern "C" const TSLanguage* tree_sitter_bash();

namespace parlint {

const TSLanguage* python_language() {
  return tree_sitter_python();
}
const TSLanguage* bash_language() {
  return tree_sitter_bash();
}

void set_parser_language(TSParser* parser, const TSLanguage* language, const char* grammar_name) {
  if (!ts_parser_set_language(parser, language)) {
    throw std::runtime_error(std::string("tree-sitter grammar ") + grammar_name + " has ABI version " +
                             std::to_string(ts_language_abi_version(language)) +
                             ", which the tree-sitter core does not support (" +
                             std::to_string(TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION) + ".." +
                             std::to_string(TREE_SITTER_LANGUAGE_VERSION) + ")");
  }
}

namespace {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;

ParserPtr new_parser(const TSLanguage* language, const char* grammar_name) {
  ParserPtr parser(ts_parser_new());
  set_parser_language(parser.get(), language, grammar_name);
  return parser;
}

}  // namespace

TSParser* thread_python_parser() {
  thread_local ParserPtr parser = new_parser(python_language(), "python");
  return parser.get();
}

TSParser* thread_bash_parser() {
  thread_local ParserPtr parser = new_parser(bash_language(), "bash");
  return parser.get();
}

}  // namespace parlint
