// Megatron-DeepSpeed (microsoft/Megatron-DeepSpeed): a Megatron-LM fork launched with --deepspeed, whose
// DeepSpeed JSON config (--deepspeed_config FILE) holds the ZeRO stage and the batch sizes DeepSpeed
// checks. The launch is read as Megatron-LM's; this adapter adds what the config it names says.
#include <algorithm>

#include "parsers/frameworks/adapters.h"
#include "parsers/frameworks/deepspeed_config.h"

namespace parlint {
namespace {

bool names_config(std::string_view word) {
  std::string_view name = word.substr(0, word.find('='));
  return name == "--deepspeed_config" || name == "--deepspeed-config";
}

class MegatronDeepSpeed final : public LaunchAdapter {
 public:
  std::string_view name() const override { return "Megatron-DeepSpeed"; }

  bool claims(const LaunchCommand& launch) const override {
    return std::any_of(launch.args.begin(), launch.args.end(),
                       [](const Word& a) { return names_config(a.text); });
  }

  std::vector<RoleLaunch> roles(const LaunchCommand& launch) const override {
    RoleLaunch job;
    job.settings = parse_training_args(launch.args);
    return {std::move(job)};
  }

  // --deepspeed_config FILE of a launch the arguments make Megatron-DeepSpeed's (its --deepspeed flags).
  void complete(const LaunchCommand& launch, const RoleLaunch&, RawJob& job) const override {
    if (job.framework != Framework::kMegatronDeepSpeed) return;
    const auto& args = launch.args;
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string_view t = args[i].text;
      if (!names_config(t)) continue;
      const Word* value = t.find('=') != std::string_view::npos ? &args[i]
                          : i + 1 < args.size()                 ? &args[i + 1]
                                                                : nullptr;
      if (!value || value->unknown) {
        job.notes.push_back(
            "the DeepSpeed config is known only at run time; its ZeRO stage and batch sizes are unknown");
        return;
      }
      std::string path = value == &args[i] ? std::string(t.substr(t.find('=') + 1)) : value->text;
      std::string shown = path;
      std::optional<std::string> text = launch.files ? launch.files->read(path, shown) : std::nullopt;
      if (!text) {
        job.notes.push_back("the DeepSpeed config " + path +
                            " was not found; its ZeRO stage and batch sizes are unknown");
        return;
      }
      for (auto& f : deepspeed_config_facts(*text, value->location, shown)) job.facts.push_back(std::move(f));
      job.notes.push_back("read the DeepSpeed config " + shown);
      return;
    }
  }
};

}  // namespace

const LaunchAdapter& megatron_deepspeed_adapter() {
  static const MegatronDeepSpeed adapter;
  return adapter;
}

}  // namespace parlint
