// A Hugging Face Trainer script (Transformers, TRL, FSDP or DeepSpeed through the Trainer): its own
// arguments (--model_name_or_path, --per_device_train_batch_size, --fsdp ...) and no Megatron parallel
// size among them. It is not a Megatron job: its --sequence_parallel_size or --tensor_parallel_size are
// its own settings, and no Megatron rule speaks about it.
#include <algorithm>
#include <iterator>

#include "parsers/frameworks/adapters.h"

namespace parlint {
namespace {

class HuggingFaceTrainer final : public LaunchAdapter {
 public:
  std::string_view name() const override { return "Hugging Face Trainer"; }

  bool claims(const LaunchCommand& launch) const override {
    static constexpr std::string_view kMarkers[] = {"--model_name_or_path", "--per_device_train_batch_size",
                                                    "--fsdp", "--fsdp_config",
                                                    "--gradient_accumulation_steps"};
    bool marked = std::any_of(launch.args.begin(), launch.args.end(), [](const Word& a) {
      std::string_view t = a.text;
      t = t.substr(0, t.find('='));
      return std::find(std::begin(kMarkers), std::end(kMarkers), t) != std::end(kMarkers);
    });
    if (!marked) return false;
    TrainingArgs ta = parse_training_args(launch.args);
    return std::none_of(ta.facts.begin(), ta.facts.end(), [](const Fact& f) {
      return f.key == Key::kTensorModelParallelSize || f.key == Key::kPipelineModelParallelSize ||
             f.key == Key::kContextParallelSize || f.key == Key::kExpertModelParallelSize ||
             f.key == Key::kExpertTensorParallelSize || f.key == Key::kNumLayers;
    });
  }

  std::vector<RoleLaunch> roles(const LaunchCommand&) const override { return {}; }  // no Megatron job
  void complete(const LaunchCommand&, const RoleLaunch&, RawJob&) const override {}
};

}  // namespace

const LaunchAdapter& hugging_face_trainer_adapter() {
  static const HuggingFaceTrainer adapter;
  return adapter;
}

}  // namespace parlint
