// libFuzzer: Megatron-LM flags and Hydra overrides (`--tensor-model-parallel-size 8`, `++model.x=[1,2]`),
// one word per whitespace-separated token, and Hydra values on their own.
#include <vector>

#include "parsers/args/training_args.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string s = parlint::fuzz::text(data, size);
  std::vector<parlint::Word> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t')) ++i;
    std::size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\n' && s[i] != '\t') ++i;
    if (i > b) {
      parlint::Word w;
      w.text = s.substr(b, i - b);
      w.location = {"fuzz.sh", {{1, static_cast<int>(b) + 1}, {1, static_cast<int>(i) + 1}}};
      words.push_back(std::move(w));
      (void)parlint::hydra_value(words.back().text);
    }
  }
  parlint::TrainingArgs args = parlint::parse_training_args(words);
  (void)args;
  return 0;
}
