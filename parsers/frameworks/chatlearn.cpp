// ChatLearn (alibaba/ChatLearn @ b7af31a972eb): `python chatlearn/entrypoint.py grpo --config-file X.yaml
// key=value ...` (chatlearn/entrypoint.py:89-103). Its GRPO trainer (models.policy_trainer) is Megatron-LM
// on models.policy_trainer.num_gpu GPUs, Ray placing one actor per GPU; the rollout (models.policy) shares
// them unless the launch gives it its own. The config file, read below the overrides (resolve/cross_file),
// gives the rest; read alone, it is the trainer's model (models.policy_trainer).
#include <algorithm>

#include "parsers/args/argument_words.h"
#include "parsers/args/named_settings.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/frameworks/document_keys.h"

namespace parlint {
namespace {

using namespace document_keys;

constexpr std::string_view kTrainer = "models.policy_trainer.";

// What ChatLearn does with the trainer's settings: its template writes sequence_parallel: true for every
// TP its launches choose (template/grpo_megatron.yaml@b7af31a972eb), and it splits the trainer's batch over
// num_replica x replica_dp_size itself, the micro-batches only without packing
// (algorithm/grpo.py:155-176@b7af31a972eb).
DriverTraits chatlearn_traits() {
  DriverTraits t;
  t.name = "ChatLearn";
  t.turns_sp_off_at_tp1 = true;
  t.batch =
      BatchCheck{BatchCheck::Divisor::kDp,
                 "runtime_args.train_global_batch_size={gbs} is not a multiple of the trainer's DP = {dp}; "
                 "ChatLearn's validate() asserts \"runtime_args.train_global_batch_size ... must be "
                 "divisible by models.policy_trainer.num_replica ... times "
                 "models.policy_trainer.replica_dp_size ...\"",
                 "", true};
  // Its validate() checks the samples of an episode against the responses per prompt
  // (chatlearn/algorithm/grpo.py:140-141@b7af31a972eb) and against the trainer's batch, whose quotient is
  // an episode's training steps (chatlearn/configs/runtime_config.py:211-216@b7af31a972eb).
  t.divisibility = {
      {Key::kRolloutSamples, Key::kRolloutGroupSize,
       "runtime_args.sample_per_episode={of} is not a multiple of "
       "models.policy.num_inference_per_prompt={by}; "
       "ChatLearn's validate() asserts \"runtime_args.sample_per_episode must be divisible by "
       "models.policy.num_inference_per_prompt\" before it starts",
       "use a runtime_args.sample_per_episode that is a multiple of {by} (e.g. {near})"},
      {Key::kRolloutSamples, Key::kGlobalBatchSize,
       "runtime_args.sample_per_episode={of} is not a multiple of runtime_args.train_global_batch_size={by} "
       "(an episode trains in sample_per_episode / train_global_batch_size steps); ChatLearn's validate() "
       "asserts \"runtime_args.sample_per_episode must be divisible by "
       "runtime_args.train_global_batch_size\" "
       "before it starts",
       "use a runtime_args.sample_per_episode that is a multiple of {by} (e.g. {near}), or a "
       "train_global_batch_size that divides {of}"}};
  // Its rollout (models.policy) takes neither expert nor pipeline parallelism, and its TP must divide the
  // GPUs it shares with the trainer (chatlearn/configs/policy_config.py:85-90@b7af31a972eb).
  using When = RolloutRefusal::When;
  t.rollout = RolloutTraits{
      {{When::kExpertParallel, Key::kRolloutExpertParallelSize,
        "models.policy.expert_model_parallel_size={ep}, but ChatLearn's vLLM rollout runs without it: "
        "ChatLearn asserts \"Expert Parallel of Policy model is not supported\" at start-up",
        "set models.policy.expert_model_parallel_size=1 and scale the rollout with "
        "tensor_model_parallel_size"},
       {When::kPipeline, Key::kRolloutPipelineParallelSize,
        "models.policy.pipeline_model_parallel_size={pp}, but ChatLearn's vLLM rollout runs without it: "
        "ChatLearn asserts \"Pipeline Parallel of Policy model is not supported\" at start-up",
        "set models.policy.pipeline_model_parallel_size=1 and scale the rollout with "
        "tensor_model_parallel_size"}},
      "models.policy's tensor_model_parallel_size={tp} does not divide the {world} GPUs the rollout shares "
      "with the trainer; ChatLearn asserts \"models.policy.num_gpu must be divisible by "
      "tensor_model_parallel_size\"",
      "use a models.policy.tensor_model_parallel_size that divides {world}"};
  return t;
}

class ChatLearn final : public LaunchAdapter {
 public:
  std::string_view name() const override { return "ChatLearn"; }

  bool claims(const LaunchCommand& launch) const override {
    const auto& args = launch.args;
    // ChatLearn's own chatlearn/entrypoint.py, or a project's wrapper of it with the same command line
    // (Pai-Megatron-Patch's chatlearn_entrypoint.py registers its models, then runs ChatLearn's).
    return entry_file_name(launch.entry).ends_with("entrypoint.py") && !args.empty() &&
           args[0].text == "grpo" && std::any_of(args.begin(), args.end(), [](const Word& a) {
             return a.text.starts_with("--config-file");
           });
  }

  // Its dotlist overrides: the trainer's Megatron fields, the global batch and the rollout's sizes; the
  // config file it names.
  std::vector<RoleLaunch> roles(const LaunchCommand& launch) const override {
    const auto& args = launch.args;
    // The rollout (models.policy) shares the trainer's GPUs unless the launch gives it its own.
    const bool policy_gpus_given = std::any_of(args.begin(), args.end(), [](const Word& arg) {
      return arg.text.starts_with("models.policy.num_gpu=");
    });
    std::vector<NamedSetting> settings;
    std::vector<Word> config_files;
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string_view t = args[i].text;
      if (t == "--config-file" && i + 1 < args.size()) {
        Word file = args[i];  // named where the flag is written
        file.text = args[++i].text;
        config_files.push_back(std::move(file));
        continue;
      }
      if (t.starts_with("--config-file=")) {
        Word file = args[i];
        file.text = std::string(t.substr(14));
        config_files.push_back(std::move(file));
        continue;
      }
      auto eq = t.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view key = t.substr(0, eq), value = t.substr(eq + 1);
      std::string path;
      if (key.starts_with(kTrainer) && key.find('.', kTrainer.size()) == std::string_view::npos &&
          key != "models.policy_trainer.num_gpu")
        path = std::string(key.substr(kTrainer.size()));
      else if (key == "runtime_args.train_global_batch_size")
        path = "global_batch_size";
      else if (key == "runtime_args.sample_per_episode")
        path = "rollout_samples";
      else if (key == "models.policy.num_inference_per_prompt")
        path = "rollout_group_size";
      else if (key == "models.policy.tensor_model_parallel_size" && !policy_gpus_given)
        path = "rollout_tensor_parallel_size";
      else if (key == "models.policy.expert_model_parallel_size")
        path = "rollout_expert_parallel_size";
      else if (key == "models.policy.pipeline_model_parallel_size")
        path = "rollout_pipeline_parallel_size";
      // ChatLearn's own batch settings are named as written; the rest as the Megatron field they are.
      std::string spelling =
          path.starts_with("rollout_") && !path.ends_with("parallel_size") ? std::string(key) : path;
      if (!path.empty()) settings.push_back(NamedSetting{path, std::string(value), &args[i], spelling});
    }
    RoleLaunch role;
    // The checkpoints the trainer and the rollout load name the model they train (a converted copy of it).
    for (std::string_view load : {"models.policy_trainer.load=", "models.policy.load="})
      if (auto it = std::find_if(args.rbegin(), args.rend(),
                                 [&](const Word& a) { return a.text.starts_with(load) && !a.unknown; });
          it != args.rend())
        role.model_references.push_back(ModelReference{std::string(load.substr(0, load.size() - 1)),
                                                       it->text.substr(load.size()), it->location});
    role.settings = read_named_settings(settings);
    // The runtime's responses per prompt are what a config's models.policy.num_inference_per_prompt
    // interpolates (template/grpo_fsdp.yaml: ${runtime_args.num_inference_per_prompt}): the policy's is then
    // unknown here, whatever the config file says.
    auto last_written = [&](std::string_view prefix) {
      auto it =
          std::find_if(args.rbegin(), args.rend(), [&](const Word& a) { return a.text.starts_with(prefix); });
      return it == args.rend() ? nullptr : &*it;
    };
    if (const Word* runtime = last_written("runtime_args.num_inference_per_prompt=");
        runtime && !last_written("models.policy.num_inference_per_prompt=")) {
      Fact f;
      f.key = Key::kRolloutGroupSize;
      f.value = Value::unknown(
          "runtime_args.num_inference_per_prompt is overridden, which the config's "
          "models.policy.num_inference_per_prompt may interpolate");
      f.location = runtime->location;
      f.origin = Origin::kOverride;
      f.spelling = "models.policy.num_inference_per_prompt";
      role.settings.facts.push_back(std::move(f));
    }
    role.settings.config_files = std::move(config_files);
    return {std::move(role)};
  }

  // The trainer as ChatLearn starts it, once its GPUs are written (models.policy_trainer.num_gpu, the last
  // one written; a config file's num_gpu is the template's placeholder: resolve/cross_file).
  void complete(const LaunchCommand& launch, const RoleLaunch&, RawJob& job) const override {
    std::vector<Fact> gpus;
    for (const Word& arg : launch.args) {
      std::string_view t = arg.text;
      if (!t.starts_with("models.policy_trainer.num_gpu=")) continue;
      Fact f;
      f.key = Key::kWorldSize;
      f.value = word_value(arg, t.substr(30), KeyType::kInt, false);
      f.location = arg.location;
      f.origin = Origin::kOverride;
      f.spelling = "models.policy_trainer.num_gpu";
      f.written_at = arg.written_at;
      gpus.push_back(std::move(f));
    }
    if (gpus.empty()) return;
    job.framework = Framework::kMegatronLM;
    job.launch = LaunchKind::kNone;  // Ray places one actor per GPU
    job.description = "ChatLearn policy_trainer (" + std::string(launch.entry) + ", Megatron)";
    job.driver_traits = chatlearn_traits();
    for (Fact& f : gpus) job.facts.push_back(std::move(f));
  }
};

// ChatLearn (alibaba/ChatLearn @ b7af31a972eb): the GRPO trainer's model (models.policy_trainer), on
// models.policy_trainer.num_gpu GPUs (one replica: configs/megatron_config.py:352-366). ChatLearn hands
// the fields to Megatron-LM's parse_args and initialize_megatron (models/megatron_module.py:69-110), so
// Megatron-LM's checks apply; the model's dimensions come from its checkpoint.
class ChatLearnConfig final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "ChatLearn"; }
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    bool trainer = false;
    const DriverKey* backend = nullptr;
    for (const auto& k : keys) {
      if (starts_with(*k.path, {"models", "policy_trainer"})) trainer = true;
      if (*k.path == std::vector<std::string>{"runtime_args", "train_backend"}) backend = &k;
    }
    bool runtime = std::any_of(keys.begin(), keys.end(),
                               [](const DriverKey& k) { return starts_with(*k.path, {"runtime_args"}); });
    if (!trainer || !runtime) return std::nullopt;
    if (backend && backend->scalar != "megatron") {
      for (auto& k : keys) k.own_key = true;  // the FSDP back end
      return DriverConfig{
          Framework::kMegatronLM, "ChatLearn policy_trainer (not Megatron)", "", "", false, true};
    }
    DriverConfig out{Framework::kMegatronLM, "ChatLearn policy_trainer (Megatron)", "", "", false, false};
    out.traits = chatlearn_traits();
    const DriverKey* policy_gpus = find(keys, {"models", "policy", "num_gpu"});
    const bool policy_on_trainer_gpus =
        policy_gpus && policy_gpus->scalar == "${models.policy_trainer.num_gpu}";
    out.from_checkpoint = true;
    // The checkpoints the trainer and the rollout load name the model they train (a converted copy of it).
    for (const DriverKey* load :
         {find(keys, {"models", "policy_trainer", "load"}), find(keys, {"models", "policy", "load"})})
      if (load && !load->scalar.empty() && load->scalar.find("${") == std::string::npos)
        out.model_references.push_back(
            ModelReference{"models." + (*load->path)[1] + ".load", load->scalar, load->location});
    for (auto& k : keys) {
      const auto& p = *k.path;
      if (p.size() == 3 && p[0] == "models" && p[1] == "policy_trainer" && p[2] == "num_gpu") {
        // A config file's GPU count is its template's placeholder (template/grpo_megatron.yaml: 1): the
        // launch gives the real one (models.policy_trainer.num_gpu=...), so the file alone has none.
        k.own_key = true;
      } else if (p.size() == 3 && p[0] == "models" && p[1] == "policy_trainer") {
        read_under(k, 2, {"model"});
        k.quiet = true;  // ChatLearn's own switches (trainable, packing, ...) sit beside Megatron's fields
      } else if (p == std::vector<std::string>{"runtime_args", "train_global_batch_size"}) {
        k.read_as = {"train", "global_batch_size"};
      } else if (p == std::vector<std::string>{"runtime_args", "sample_per_episode"}) {
        k.read_as = {"model",
                     "rollout_samples"};  // validate()'s checks (grpo.py:140-141, runtime_config.py:211-216)
        k.quiet = true;
      } else if (p == std::vector<std::string>{"models", "policy", "num_inference_per_prompt"}) {
        k.read_as = {"model", "rollout_group_size"};
        k.quiet = true;
      } else if (p == std::vector<std::string>{"models", "policy", "tensor_model_parallel_size"} &&
                 policy_on_trainer_gpus) {
        // The rollout engine on the trainer's GPUs (models.policy.num_gpu: ${models.policy_trainer.num_gpu}).
        k.read_as = {"model", "rollout_tensor_parallel_size"};
        k.quiet = true;
      } else if (p.size() == 3 && p[0] == "models" && p[1] == "policy" &&
                 (p[2] == "expert_model_parallel_size" || p[2] == "pipeline_model_parallel_size")) {
        // The rollout supports neither (chatlearn/configs/policy_config.py:89-90@b7af31a972eb): PL102.
        k.read_as = {"model", p[2] == "expert_model_parallel_size" ? "rollout_expert_parallel_size"
                                                                   : "rollout_pipeline_parallel_size"};
        k.quiet = true;
      } else {
        k.own_key = true;
      }
    }
    return out;
  }
};

}  // namespace

const DocumentAdapter& chatlearn_config_adapter() {
  static const ChatLearnConfig adapter;
  return adapter;
}

const LaunchAdapter& chatlearn_adapter() {
  static const ChatLearn adapter;
  return adapter;
}

}  // namespace parlint
