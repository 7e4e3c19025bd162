#pragma once
// The vocabulary a Megatron-LM tokenizer builds, where its arguments fix it: a launch that names its
// tokenizer, not its vocab_size, still has a known embedding for the memory estimate.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace parlint {

struct TokenizerVocab {
  std::int64_t size = 0;
  // Where the size comes from: "the GPT-2 BPE vocabulary of gpt2-vocab.json", "the vocabulary of Llama 3
  // 8B's tokenizer".
  std::string why;
};

// `type` is --tokenizer-type, `model` --tokenizer-model, `vocab_file` --vocab-file (empty: not given).
// The size before Megatron-LM pads it to a multiple of make_vocab_size_divisible_by x TP
// (megatron/core/tokenizers/utils/build_tokenizer.py:133-139@d98e8a64ddf3); nullopt when the files it
// would read are not ones parlint knows.
std::optional<TokenizerVocab> megatron_tokenizer_vocab(std::string_view type, std::string_view model,
                                                       std::string_view vocab_file);

}  // namespace parlint
