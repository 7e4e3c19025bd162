#include "lint/knowledge/tokenizer_vocab.h"

#include <fmt/format.h>

#include "lint/knowledge/model_table.h"

namespace parlint {
namespace {

std::string_view basename(std::string_view path) {
  while (path.ends_with('/')) path.remove_suffix(1);
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The model a tokenizer path or Hugging Face id names: "meta-llama/Meta-Llama-3-8B", or a folder such as
// /ckpts/Llama-2-7b-hf (its last component; for a file such as .../Llama-2-7b-hf/tokenizer.model, the
// folder that holds it).
const ModelInfo* named_model(std::string_view model) {
  if (model.empty()) return nullptr;
  if (const ModelInfo* m = find_model(model)) return m;
  std::string_view last = basename(model);
  if (const ModelInfo* m = find_model_by_checkpoint_name(last)) return m;
  if (last.find('.') != std::string_view::npos && last.size() < model.size()) {
    std::string_view folder = model.substr(0, model.size() - last.size());
    return find_model_by_checkpoint_name(basename(folder));
  }
  return nullptr;
}

}  // namespace

std::optional<TokenizerVocab> megatron_tokenizer_vocab(std::string_view type, std::string_view model,
                                                       std::string_view vocab_file) {
  // build_tokenizer.py:8-16: GPT2BPETokenizer reads --vocab-file; the published GPT-2 file holds
  // 50,257 tokens. Another file under the same name is possible but is then not GPT-2's.
  if (type == "GPT2BPETokenizer") {
    if (basename(vocab_file) == "gpt2-vocab.json")
      return TokenizerVocab{50257, "the GPT-2 BPE vocabulary of gpt2-vocab.json"};
    return std::nullopt;
  }
  // HuggingFaceTokenizer and the SentencePiece ones load --tokenizer-model: a model parlint knows has
  // its vocabulary in the table.
  if (type == "HuggingFaceTokenizer" || type == "SentencePieceTokenizer" ||
      type == "GPTSentencePieceTokenizer" || type == "Llama2Tokenizer") {
    if (const ModelInfo* m = named_model(model); m && m->vocab > 0)
      return TokenizerVocab{m->vocab, fmt::format("the vocabulary of {}'s tokenizer", m->name)};
  }
  return std::nullopt;
}

}  // namespace parlint
