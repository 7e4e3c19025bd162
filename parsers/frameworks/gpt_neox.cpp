#include <algorithm>

#include "parsers/frameworks/adapters.h"

namespace parlint {
namespace {

// GPT-NeoX (EleutherAI): a Megatron fork on DeepSpeed with its own configuration keys and checks
// (megatron/neox_arguments/neox_args.py:60,65@ea7aefd8f8e1: pipe_parallel_size, model_parallel_size at
// the top level) and no context or expert-tensor parallelism. Read as Megatron-Core YAML its layout
// would be the defaults (TP 1, PP 1) and every check and suggestion built on them wrong: no job.
class GptNeox final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "GPT-NeoX"; }
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    bool neox = std::any_of(keys.begin(), keys.end(), [](const DriverKey& k) {
      return k.path->size() == 1 &&
             ((*k.path)[0] == "pipe_parallel_size" || (*k.path)[0] == "model_parallel_size");
    });
    if (!neox) return std::nullopt;
    for (auto& k : keys) k.own_key = true;
    return DriverConfig{Framework::kUnknown, "GPT-NeoX config (not read)", "", "", false, true};
  }
};

}  // namespace

const DocumentAdapter& gpt_neox_adapter() {
  static const GptNeox adapter;
  return adapter;
}

}  // namespace parlint
