#pragma once
// The pinned tree-sitter grammars (python, bash), loaded into parsers with their results checked.
#include <string>

struct TSLanguage;
struct TSParser;

namespace parlint {

const TSLanguage* python_language();
const TSLanguage* bash_language();

// ts_parser_set_language fails when a grammar's ABI does not match the core library; this names
// the grammar and both versions instead of silently parsing nothing.
void set_parser_language(TSParser* parser, const TSLanguage* language, const char* grammar_name);

// This thread's parser for a grammar, reused for every file the thread reads: a parser keeps its
// stack and lexer buffers between parses. A parse is synchronous, so nested readers (a sourced file,
// an imported module) can share it; the trees it returns are independent of it.
TSParser* thread_python_parser();
TSParser* thread_bash_parser();

}  // namespace parlint
