// ms-swift (modelscope/ms-swift @ 3602360a5623). Its Megatron CLI (`megatron sft|pt|rlhf`, or the scripts
// swift/cli/_megatron/{sft,pt,rlhf}.py) builds Megatron-Core itself (swift/megatron/arguments/
// megatron_args.py), with the Hugging Face model it converts named by --model. Its other trainers
// (swift/cli/*.py: Transformers, DeepSpeed, FSDP) are not Megatron and make no job.
#include <algorithm>

#include "parsers/args/argument_words.h"
#include "parsers/frameworks/adapters.h"

namespace parlint {
namespace {

enum class Script { kMegatron, kOther };

// swift/cli/<name>.py or swift.cli.<name>: kMegatron for the trainers of swift/cli/_megatron (pt, sft,
// rlhf), kOther for the rest; nullopt when not ms-swift's.
std::optional<Script> swift_script(std::string_view entry, bool module) {
  if (entry.find("swift") == std::string_view::npos) return std::nullopt;
  std::string path(entry);
  if (module)
    std::replace(path.begin(), path.end(), '.', '/');
  else if (path.ends_with(".py"))
    path.resize(path.size() - 3);
  auto at = path.rfind("swift/cli/");
  if (at == std::string::npos || (at > 0 && path[at - 1] != '/')) return std::nullopt;
  std::string_view rest = std::string_view(path).substr(at + 10);
  if (rest == "_megatron/sft" || rest == "_megatron/pt" || rest == "_megatron/rlhf") return Script::kMegatron;
  return Script::kOther;
}

// The subcommand a script of the Megatron CLI runs: swift/cli/_megatron/sft.py and swift.cli._megatron.sft
// both run `sft`.
std::string subcommand_of(std::string_view entry) {
  std::string_view name = entry;
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  if (name.ends_with(".py")) name.remove_suffix(3);
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
  return std::string(name);
}

class MsSwift final : public LaunchAdapter {
 public:
  std::string_view name() const override { return "ms-swift"; }

  bool claims(const LaunchCommand& launch) const override {
    return launch.program == rank_launcher()->program ||
           swift_script(launch.entry, launch.module).has_value();
  }

  std::vector<RoleLaunch> roles(const LaunchCommand& launch) const override {
    RoleLaunch job;
    if (launch.program != rank_launcher()->program) {
      if (swift_script(launch.entry, launch.module) != Script::kMegatron) return {};  // not Megatron
      job.entry = subcommand_of(launch.entry);
    }
    job.settings = parse_training_args(launch.args);  // Megatron's flags, snake_case as ms-swift takes them
    return {std::move(job)};
  }

  // `megatron sft|pt|rlhf ARGS` runs torch.distributed.run --nproc_per_node $NPROC_PER_NODE --nnodes
  // $NNODES when either variable is set, else one process (swift/cli/main.py:30-35, 74-103); `megatron
  // export` converts checkpoints.
  const RankLauncher* rank_launcher() const override {
    static const RankLauncher cli{
        "megatron",
        {"sft", "pt", "rlhf"},
        "NPROC_PER_NODE",
        "NNODES",
        "NPROC_PER_NODE is not set here (torchrun then starts 1 per node, unless the environment sets it)",
        "NPROC_PER_NODE and NNODES are not set here (ms-swift then runs one process, unless the environment "
        "sets them)"};
    return &cli;
  }

  void complete(const LaunchCommand& launch, const RoleLaunch& role, RawJob& job) const override {
    const auto& args = launch.args;
    std::string subcommand = role.entry.empty() ? std::string(launch.entry) : role.entry;
    job.framework = Framework::kUnknown;
    job.driver_traits.name = "ms-swift";
    // It documents sequence_parallel as taking effect only with TP > 1
    // (docs/source_en/Megatron-SWIFT/Command-line-parameters.md:163, megatron_args.py:891-892), and raises
    // on tp_comm_overlap without SP (megatron_args.py:891-899).
    job.driver_traits.turns_sp_off_at_tp1 = true;
    job.driver_traits.refuses_tp_comm_overlap_without_sp = true;
    // MegatronArguments: ETP 1, micro-batch 1, global batch 16 (megatron_args.py:482-483, 619).
    job.driver_traits.defaults = {{Key::kExpertTensorParallelSize, 1, "ms-swift default"},
                                  {Key::kMicroBatchSize, 1, "ms-swift default"},
                                  {Key::kGlobalBatchSize, 16, "ms-swift default"}};
    // GRPO's colocated vLLM runs on the training ranks in groups of its TP, which must divide them
    // (swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623).
    using When = RolloutRefusal::When;
    job.driver_traits.rollout = RolloutTraits{
        {{When::kNoEngineMode, Key::kRolloutName,
          "megatron rlhf --rlhf_type grpo generates with vLLM (use_vllm is true by default) but gives no "
          "--vllm_mode, which ms-swift's Megatron arguments leave at None; ms-swift raises "
          "ValueError(\"Invalid vllm_mode: None\") once the model is built",
          "add --vllm_mode colocate (vLLM on the training GPUs) or --vllm_mode server with the address of a "
          "`swift rollout` server (--vllm_server_host, --vllm_server_port)"}},
        "--vllm_tensor_parallel_size={tp} does not divide the {world} ranks GRPO's colocated vLLM shares; "
        "ms-swift raises \"vllm_tensor_parallel_size ({tp}) must divide world size ({world}) evenly.\"",
        "use a --vllm_tensor_parallel_size that divides {world}"};
    job.gpu_entry_point = true;
    job.description = "ms-swift megatron " + subcommand + " launch";
    for (std::string_view flag : {"--model_id_or_path", "--model"})
      if (auto m = last_flag_value(args, flag); m && !m->value->unknown) job.model = m->text;
    // Its own settings that only look like parallel ones: the rollout's vLLM engine (rlhf_args).
    std::erase_if(job.unrecognized,
                  [](const UnrecognizedSetting& u) { return u.spelling.find("vllm_") != std::string::npos; });
    // GRPO's colocated vLLM runs on the training ranks, in groups of its TP, which must divide them
    // (swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623).
    auto mode = last_flag_value(args, "--vllm_mode");
    // Megatron GRPO without --vllm_mode: use_vllm is true and vllm_mode None by default
    // (swift/megatron/arguments/megatron_args.py:103-105@3602360a5623), which _init_rollout_engine refuses
    // (swift/megatron/trainers/rollout_mixin.py:418-419@3602360a5623). Only when every argument is known and
    // none is a config file (swift/cli/main.py:38-71 expands a first .yaml/.json argument into flags).
    auto type = last_flag_value(args, "--rlhf_type");
    auto has = [&](std::string_view flag) {
      return std::any_of(args.begin(), args.end(), [&](const Word& a) {
        return a.text == flag || a.text.starts_with(std::string(flag) + "=");
      });
    };
    auto use_vllm = last_flag_value(args, "--use_vllm");
    const bool config_file = std::any_of(args.begin(), args.end(), [](const Word& a) {
      return a.text.ends_with(".yaml") || a.text.ends_with(".yml") || a.text.ends_with(".json");
    });
    if (subcommand == "rlhf" && type && !type->value->unknown && type->text == "grpo" && !mode &&
        job.arguments_complete && !config_file && !has("--use_ray") &&
        !(use_vllm && (use_vllm->text == "false" || use_vllm->text == "False"))) {
      Fact f;
      f.key = Key::kRolloutName;
      f.value = Value::string("");  // none given (a null would read as unset)
      f.location = span(type->flag->location, type->value->location);
      f.origin = Origin::kMegatronFlag;
      f.spelling = "--vllm_mode (not given)";
      job.facts.push_back(std::move(f));
    }
    auto tp = last_flag_value(args, "--vllm_tensor_parallel_size");
    if (mode && tp && !mode->value->unknown && mode->text == "colocate") {
      Fact f;
      f.key = Key::kRolloutTensorParallelSize;
      f.value = word_value(*tp->value, tp->text, KeyType::kInt, false);
      f.location = tp->value->location;
      f.origin = Origin::kMegatronFlag;
      f.spelling = "--vllm_tensor_parallel_size";
      f.written_at = tp->value->written_at;
      job.facts.push_back(std::move(f));
    }
  }
};

}  // namespace

const LaunchAdapter& ms_swift_adapter() {
  static const MsSwift adapter;
  return adapter;
}

}  // namespace parlint
