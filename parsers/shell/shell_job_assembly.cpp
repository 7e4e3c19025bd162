// A launch becomes a RawJob: the allocation it runs in, the launcher's facts, the training arguments
// (Megatron flags, Hydra overrides, recipes), DeepSpeed's config, verl's overrides and the environment.
#include "parsers/shell/shell_interpreter.h"

#include <algorithm>
#include <charconv>

#include "parsers/args/argument_words.h"
#include "parsers/frameworks/deepspeed_config.h"
#include "parsers/frameworks/verl_roles.h"
#include "parsers/yaml/yaml_parser.h"

namespace parlint::shell {
namespace {

// The last `--name value` or `--name=value` among a launch's arguments: the flag's word, the value's word
// and the value's text.
struct FlagValue {
  const Word* flag;
  const Word* value;
  std::string text;
};
std::optional<FlagValue> last_flag_value(const std::vector<Word>& args, std::string_view name) {
  std::optional<FlagValue> out;
  for (std::size_t k = 0; k < args.size(); ++k) {
    std::string_view t = args[k].text;
    if (t == name && k + 1 < args.size())
      out = FlagValue{&args[k], &args[k + 1], args[k + 1].text};
    else if (t.size() > name.size() && t.starts_with(name) && t[name.size()] == '=')
      out = FlagValue{&args[k], &args[k], std::string(t.substr(name.size() + 1))};
  }
  return out;
}

}  // namespace

std::optional<Fact> ShellParser::env_fact(Key key, const std::string& name, Env& env, Env& overlay,
                                          Context& ctx) {
  const Var* v = overlay.find(name);
  if (!v) {
    const Var* e = env.find(name);
    if (e && (e->exported || ctx.all_export)) v = e;
  }
  if (!v && ctx.unread_source) {
    // Not set in the script, but a sourced file parlint could not read may export it.
    Fact f;
    f.key = key;
    f.value = Value::unknown("not set in the script; " + *ctx.unread_source +
                             ", sourced but not readable here, may export it");
    f.origin = Origin::kEnv;
    f.spelling = name;
    return f;
  }
  if (!v) return std::nullopt;
  Fact f;
  f.key = key;
  f.value =
      v->value.unknown() ? Value::unknown(v->value.unknown_reasons.front()) : hydra_value(v->value.text);
  f.location = v->assigned_at;
  f.origin = Origin::kEnv;
  f.spelling = name;
  f.written_at = v->value.via;
  return f;
}

// A training run, not a CPU helper (tools/preprocess_data.py, MLPerf's log and mount checkers): a
// distributed launcher, training settings among the arguments, or a training entry point's name.
// --deepspeed_config FILE: a file the script wrote from a here-document, else the file next to the
// script (or as written).
void ShellParser::deepspeed_config(const std::vector<Word>& args, RawJob& job) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    std::string name(t.substr(0, t.find('=')));
    if (name != "--deepspeed_config" && name != "--deepspeed-config") continue;
    const Word* value = t.find('=') != std::string_view::npos ? &args[i]
                        : i + 1 < args.size()                 ? &args[i + 1]
                                                              : nullptr;
    if (!value || value->unknown) {
      job.notes.push_back(
          "the DeepSpeed config is known only at run time; its ZeRO stage and batch sizes are unknown");
      return;
    }
    std::string path = value == &args[i] ? std::string(t.substr(t.find('=') + 1)) : value->text;
    std::optional<std::string> text;
    std::string shown = path;
    if (auto it = written_files_.find(path); it != written_files_.end()) {
      // Values filled in at run time become '?', which deepspeed_config_facts reads as unknown.
      std::string body = it->second.text;
      std::replace(body.begin(), body.end(), kUnknownByte, '?');
      text = std::move(body);
      shown += " (written by this script)";
    } else {
      std::string found;
      text = read_beside_script(path, found);
    }
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

// verl's Hydra overrides as parlint reads them: actor_rollout_ref.actor.megatron.X=V (and its
// override_transformer_config.X) is the Megatron-Core field X; trainer.nnodes / n_gpus_per_node are the
// GPUs Ray gets; the rest are verl's own keys and are left out.
std::vector<Word> ShellParser::verl_overrides(const std::vector<Word>& args) {
  std::vector<Word> out;
  for (const Word& a : args) {
    std::string_view t = a.text;
    while (t.starts_with("+")) t.remove_prefix(1);
    Word w = a;
    bool keep = false;
    for (std::string_view prefix : {"actor_rollout_ref.actor.megatron.override_transformer_config.",
                                    "actor_rollout_ref.actor.megatron."})
      if (t.starts_with(prefix) && t.find('.', prefix.size()) > t.find('=')) {
        w.text = std::string(t.substr(prefix.size()));
        keep = true;
        break;
      }
    if (t.starts_with("trainer.nnodes="))
      w.text = "trainer.num_nodes=" + std::string(t.substr(15)), keep = true;
    if (t.starts_with("trainer.n_gpus_per_node="))
      w.text = "trainer.devices=" + std::string(t.substr(24)), keep = true;
    if (t.starts_with("actor_rollout_ref.model.path="))
      w.text = "--hf-model=" + std::string(t.substr(29)), keep = true;
    if (keep) out.push_back(std::move(w));
  }
  return out;
}

bool ShellParser::training_launch(const Launch& l, std::string_view entry, const TrainingArgs& ta) {
  if (l.kind == LaunchKind::kTorchrun) return true;
  // Data preparation and conversion scripts read a recipe or model flags but run on CPUs.
  std::string_view script = basename(entry);
  if (entry.find("data_preprocess/") != std::string_view::npos ||
      entry.find("/preprocess") != std::string_view::npos)
    return false;
  // Checkpoint tools reshard or convert on GPUs but train nothing: their options are their own.
  for (std::string_view word : {"prepare", "preprocess", "pack_data", "packed_data", "convert", "download",
                                "tokenize", "tokenizer", "export_", "merge_mp", "checkpoint_util",
                                "change_num_partitions", "reshard", "_to_hf", "hf_to_", "to_nemo"})
    if (script.find(word) != std::string_view::npos) return false;
  if (ta.megatron_flags || ta.hydra_overrides || ta.recipe || ta.lightning_trainer || ta.deepspeed ||
      !ta.facts.empty())
    return true;
  for (std::string_view word :
       {"train", "pretrain", "finetune", "fine_tune", "sft", "run_recipe", "megatron_"})
    if (script.find(word) != std::string_view::npos) return true;
  return false;
}

// A flag left without its value is the entry point's own refusal (argparse exits before training):
// reported as the command line's syntax error, where the flag is written.
void ShellParser::report_missing_values(const std::vector<MissingValue>& missing, std::string_view script) {
  for (const MissingValue& m : missing) {
    if (m.flag.location.path != out_.path || !m.flag.location.range.valid()) continue;
    if (out_.errors.size() >= kMaxSyntaxErrors) return;
    std::string followed = m.next.empty() ? "the command line ends there" : "the next word is " + m.next;
    std::string refusal = std::string(script) + "'s argparse stops before training starts: \"argument " +
                          m.flag.text + ": expected one argument\"";
    SyntaxError e;
    e.range = m.flag.location.range;
    if (m.value) {
      e.message =
          m.flag.text + " has no value when " + m.value->empty_when + ": " + followed + "; " + refusal;
      e.help = "set the variable on every path: an else branch, or a default before the if";
    } else {
      e.message = m.flag.text + " has no value: " + followed +
                  " (an unquoted variable that is empty is no word at all); " + refusal;
      e.help = "give " + m.flag.text + " a value, or leave the flag out when there is none";
    }
    out_.errors.push_back(std::move(e));
  }
}

// slime (THUDM/slime @ 624b824a898a): train.py / train_async.py with its own cluster flags beside
// Megatron-LM's. Megatron-LM's parse_args and validate_args read the Megatron flags
// (slime/backends/megatron_utils/arguments.py:195), with world_size = --actor-num-nodes x
// --actor-num-gpus-per-node (:206); Ray places one actor per GPU (slime/ray/actor_group.py:58).
bool ShellParser::slime_driver(std::string_view entry, const std::vector<Word>& args) {
  std::string_view script = basename(entry);
  if (script != "train.py" && script != "train_async.py") return false;
  return std::any_of(args.begin(), args.end(), [](const Word& a) {
    std::string_view t = a.text;
    return t.starts_with("--actor-num-nodes") || t.starts_with("--actor-num-gpus-per-node") ||
           t.starts_with("--rollout-num-gpus");
  });
}

void ShellParser::slime_world(const std::vector<Word>& args, RawJob& job) {
  job.framework = Framework::kMegatronLM;
  job.launch = LaunchKind::kNone;  // one driver process; Ray starts the actors
  job.description = "slime actor (train.py, Megatron-LM, Ray)";
  auto flag = [&](std::string_view name, Key key, std::int64_t fallback) {
    Fact f;
    f.key = key;
    f.origin = Origin::kLauncherFlag;
    f.spelling = std::string(name);
    f.value = Value::integer(fallback);
    f.spelling += " (slime default)";
    if (auto v = last_flag_value(args, name)) {
      f.value = word_value(*v->value, v->text, KeyType::kInt, false);
      f.location = span(v->flag->location, v->value->location);
      f.spelling = std::string(name);
      f.written_at = v->value->written_at;
    }
    job.facts.push_back(std::move(f));
  };
  flag("--actor-num-nodes", Key::kNodes, 1);                // slime/utils/arguments.py:39
  flag("--actor-num-gpus-per-node", Key::kGpusPerNode, 8);  // :40-42
  slime_step_batch(args, job);
  job.notes.push_back(
      "slime trains on --actor-num-nodes x --actor-num-gpus-per-node GPUs (rollout GPUs are its own, "
      "shared with --colocate)");
}

// slime's training step with --num-steps-per-rollout S: each rollout's --rollout-batch-size R prompts x
// --n-samples-per-prompt N samples, split into S steps, so the global batch is R x N // S; a
// --global-batch-size written beside it must equal that (slime/utils/arguments.py:1972-1980@624b824a898a).
void ShellParser::slime_step_batch(const std::vector<Word>& args, RawJob& job) {
  // A count as written: its flag (null when not written) and its value (nullopt when not a positive
  // number, e.g. known only at run time: the batch is then unknown).
  struct Count {
    const Word* flag = nullptr;
    std::optional<std::int64_t> value;
  };
  auto count = [&](std::string_view name) {
    Count c;
    if (auto v = last_flag_value(args, name)) {
      c.flag = v->flag;
      auto n = word_value(*v->value, v->text, KeyType::kInt, false).as_int();
      if (n && *n > 0) c.value = n;
    }
    return c;
  };
  Count steps = count("--num-steps-per-rollout");
  if (!steps.flag) return;
  Count prompts = count("--rollout-batch-size"), samples = count("--n-samples-per-prompt");
  if (!steps.value || !prompts.value || (samples.flag && !samples.value)) return;
  const std::int64_t per_prompt = samples.flag ? *samples.value : 1;
  Fact f;
  f.key = Key::kRolloutStepBatchSize;
  f.origin = Origin::kLauncherFlag;
  f.location = steps.flag->location;
  f.spelling = samples.flag ? "--rollout-batch-size x --n-samples-per-prompt // --num-steps-per-rollout"
                            : "--rollout-batch-size // --num-steps-per-rollout";
  f.value = Value::integer(*prompts.value * per_prompt / *steps.value);
  f.written_at.push_back({prompts.flag->location, "--rollout-batch-size=" + std::to_string(*prompts.value)});
  if (samples.flag)
    f.written_at.push_back({samples.flag->location, "--n-samples-per-prompt=" + std::to_string(per_prompt)});
  bool batch_written = std::any_of(job.facts.begin(), job.facts.end(),
                                   [](const Fact& g) { return g.key == Key::kGlobalBatchSize; });
  if (!batch_written) {  // slime sets the global batch itself
    Fact g = f;
    g.key = Key::kGlobalBatchSize;
    job.facts.push_back(std::move(g));
  }
  job.facts.push_back(std::move(f));
}

// A Hugging Face Trainer script (Transformers, TRL, FSDP or DeepSpeed through the Trainer): its own
// arguments (--model_name_or_path, --per_device_train_batch_size, --fsdp ...) and no Megatron parallel
// size among them. Its --sequence_parallel_size or --tensor_parallel_size are its own settings.
bool ShellParser::hugging_face_trainer(const std::vector<Word>& args, const TrainingArgs& ta) {
  static constexpr std::string_view kMarkers[] = {"--model_name_or_path", "--per_device_train_batch_size",
                                                  "--fsdp", "--fsdp_config", "--gradient_accumulation_steps"};
  bool marked = std::any_of(args.begin(), args.end(), [](const Word& a) {
    std::string_view t = a.text;
    t = t.substr(0, t.find('='));
    return std::find(std::begin(kMarkers), std::end(kMarkers), t) != std::end(kMarkers);
  });
  if (!marked) return false;
  return std::none_of(ta.facts.begin(), ta.facts.end(), [](const Fact& f) {
    return f.key == Key::kTensorModelParallelSize || f.key == Key::kPipelineModelParallelSize ||
           f.key == Key::kContextParallelSize || f.key == Key::kExpertModelParallelSize ||
           f.key == Key::kExpertTensorParallelSize || f.key == Key::kNumLayers;
  });
}

// swift/cli/<name>.py or swift.cli.<name> (modelscope/ms-swift @ 3602360a5623): kMegatron for the
// trainers of swift/cli/_megatron (pt, sft, rlhf), kOther for the rest; nullopt when not ms-swift's.
std::optional<ShellParser::MsSwiftScript> ShellParser::ms_swift_script(std::string_view entry, bool module) {
  std::string path(entry);
  if (module)
    std::replace(path.begin(), path.end(), '.', '/');
  else if (path.ends_with(".py"))
    path.resize(path.size() - 3);
  auto at = path.rfind("swift/cli/");
  if (at == std::string::npos || (at > 0 && path[at - 1] != '/')) return std::nullopt;
  std::string_view rest = std::string_view(path).substr(at + 10);
  if (rest == "_megatron/sft" || rest == "_megatron/pt" || rest == "_megatron/rlhf")
    return MsSwiftScript::kMegatron;
  return MsSwiftScript::kOther;
}

// ms-swift's Megatron trainer: Megatron-Core built by ms-swift (swift/megatron/arguments/megatron_args.py
// @3602360a5623), with the Hugging Face model it converts named by --model.
void ShellParser::ms_swift_job(std::string_view subcommand, const std::vector<Word>& args, RawJob& job) {
  job.framework = Framework::kUnknown;
  job.driver = Driver::kMsSwift;
  job.gpu_entry_point = true;
  job.description = "ms-swift megatron " + std::string(subcommand) + " launch";
  for (std::string_view flag : {"--model_id_or_path", "--model"})
    if (auto m = last_flag_value(args, flag); m && !m->value->unknown) job.model = m->text;
  // Its own settings that only look like parallel ones: the rollout's vLLM engine (rlhf_args).
  std::erase_if(job.unrecognized,
                [](const UnrecognizedSetting& u) { return u.spelling.find("vllm_") != std::string::npos; });
  // GRPO's colocated vLLM runs on the training ranks, in groups of its TP, which must divide them
  // (swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623).
  auto mode = last_flag_value(args, "--vllm_mode");
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

void ShellParser::emit(const Launch& l, std::vector<ShellText>& w, const Location& where, Env& env,
                       Env& overlay, Context& ctx) {
  std::string entry = w[l.entry].text;
  std::vector<Word> args;
  for (std::size_t k = l.entry + 1; k < w.size(); ++k) args.push_back(to_word(w[k]));
  // verl (python -m verl.trainer.main_ppo ...): a Ray driver that starts the workers itself; its Hydra
  // overrides are verl's own keys, with the Megatron-Core fields under each role's megatron section.
  // Each role it builds with the Megatron back end is a job of its own.
  if (l.module && entry.starts_with("verl.")) {
    std::vector<VerlRole> roles = verl_roles(args);
    if (roles.empty()) return emit_job(l, w, where, env, overlay, ctx, verl_overrides(args), nullptr);
    for (auto& r : roles) emit_job(l, w, where, env, overlay, ctx, r.args, &r);
    return;
  }
  if (chatlearn_driver(entry, args))
    return emit_job(l, w, where, env, overlay, ctx, chatlearn_overrides(args), nullptr);
  // ms-swift's CLI scripts run directly (torchrun swift/cli/rlhf.py, python -m swift.cli.sft): its own
  // trainers (Transformers, DeepSpeed, FSDP) are not Megatron; swift/cli/_megatron/* is its Megatron CLI.
  if (auto kind = ms_swift_script(entry, l.module)) {
    if (*kind == MsSwiftScript::kOther) return;
    Launch swift = l;
    swift.ms_swift = true;
    std::string_view name = basename(entry);
    if (name.ends_with(".py")) name.remove_suffix(3);
    if (auto dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
    w[l.entry].text = std::string(name);
    return emit_job(swift, w, where, env, overlay, ctx, std::move(args), nullptr);
  }
  emit_job(l, w, where, env, overlay, ctx, std::move(args), nullptr);
}

// ChatLearn (alibaba/ChatLearn @ b7af31a972eb): `python chatlearn/entrypoint.py grpo --config-file X.yaml
// key=value ...` (chatlearn/entrypoint.py:89-103).
bool ShellParser::chatlearn_driver(std::string_view entry, const std::vector<Word>& args) {
  return basename(entry) == "entrypoint.py" && !args.empty() && args[0].text == "grpo" &&
         std::any_of(args.begin(), args.end(),
                     [](const Word& a) { return a.text.starts_with("--config-file"); });
}

// Its dotlist overrides as parlint reads them: the trainer's Megatron fields bare, its GPU count and the
// global batch; the config file (read below them, cross_file.cpp) gives the rest.
std::vector<Word> ShellParser::chatlearn_overrides(const std::vector<Word>& args) {
  std::vector<Word> out;
  constexpr std::string_view kTrainer = "models.policy_trainer.";
  // The rollout (models.policy) shares the trainer's GPUs unless the launch gives it its own.
  const bool policy_gpus_given = std::any_of(args.begin(), args.end(), [](const Word& arg) {
    return arg.text.starts_with("models.policy.num_gpu=");
  });
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    Word w = args[i];
    if (t == "--config-file" && i + 1 < args.size()) {
      w.text = "--config-file=" + args[++i].text;
      out.push_back(std::move(w));
      continue;
    }
    if (t.starts_with("--config-file=")) {
      out.push_back(std::move(w));
      continue;
    }
    auto eq = t.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = t.substr(0, eq), value = t.substr(eq + 1);
    if (key == "models.policy_trainer.num_gpu") {
      w.text = "--chatlearn-num-gpu=" + std::string(value);
    } else if (key.starts_with(kTrainer) && key.find('.', kTrainer.size()) == std::string_view::npos) {
      w.text = std::string(key.substr(kTrainer.size())) + "=" + std::string(value);
    } else if (key == "runtime_args.train_global_batch_size") {
      w.text = "global_batch_size=" + std::string(value);
    } else if (key == "models.policy.tensor_model_parallel_size" && !policy_gpus_given) {
      w.text = "rollout_tensor_parallel_size=" + std::string(value);
    } else if (key == "models.policy.expert_model_parallel_size") {
      w.text = "rollout_expert_parallel_size=" + std::string(value);
    } else if (key == "models.policy.pipeline_model_parallel_size") {
      w.text = "rollout_pipeline_parallel_size=" + std::string(value);
    } else {
      continue;
    }
    out.push_back(std::move(w));
  }
  return out;
}

void ShellParser::emit_job(const Launch& l, std::vector<ShellText>& w, const Location& where, Env& env,
                           Env& overlay, Context& ctx, std::vector<Word> args, const VerlRole* role) {
  std::string entry = w[l.entry].text;
  bool ray_driver = l.module && entry.starts_with("verl.");
  TrainingArgs ta = parse_training_args(args);
  if (!l.ms_swift && hugging_face_trainer(args, ta)) return;  // not Megatron: no job, no Megatron finding

  RawJob job;
  job.range = where.range;
  // Text known only at run time is a placeholder byte inside the parser; never in a job's name.
  // ${dir}/../../pretrain_gpt.py: the folder is known only at run time, the script is not.
  std::string_view script = basename(entry);
  job.description = script.empty() || script.find(kUnknownByte) != std::string_view::npos
                        ? std::string("launch of a script known only at run time")
                        : std::string(script) + " launch";
  if (!l.module && !w[l.entry].unknown() && entry.ends_with(".py")) job.entry_script = entry;
  if (ta.model && !ta.model->unknown) job.model = ta.model->text;
  for (auto& c : ta.config_files)
    if (!c.unknown) job.config_files.push_back(std::move(c));
  job.under_srun = ctx.under_srun;
  job.under_slurm = ctx.has_directives || (ctx.under_srun && !ctx.under_mpi);
  job.gpu_entry_point = training_launch(l, entry, ta);
  job.arguments_complete = ta.arguments_complete;
  if (ta.unread_argument) {
    const Word& u = *ta.unread_argument;
    job.unread_arguments = "an argument known only at run time";
    if (u.location.range.valid())
      job.unread_arguments += " at line " + std::to_string(u.location.range.start.line);
    if (!u.unknown_reason.empty()) job.unread_arguments += " (" + u.unknown_reason + ")";
  }
  for (const Word& a : args) {  // pretrained_checkpoint.restore_from_path=/models/x.nemo
    std::string_view t = a.text;
    while (t.starts_with("+")) t.remove_prefix(1);
    auto eq = t.find('=');
    if (eq == std::string_view::npos || a.unknown) continue;
    std::vector<std::string> path;
    for (std::string_view key = t.substr(0, eq); !key.empty();) {
      auto dot = key.find('.');
      path.emplace_back(key.substr(0, dot));
      key = dot == std::string_view::npos ? std::string_view{} : key.substr(dot + 1);
    }
    if (restores_checkpoint_config(path, t.substr(eq + 1))) job.settings_from_checkpoint = true;
  }
  if (job.gpu_entry_point) report_missing_values(ta.missing_values, script);
  // A data-preparation script given a recipe (prepare_gpt_sft_packed_data.py --recipe NAME) reads its
  // dataset settings on a CPU: the recipe's layout is not what it runs.
  if (job.gpu_entry_point && ta.recipe && !ta.recipe->unknown) job.recipe.name = ta.recipe->text;
  if (job.gpu_entry_point && !ta.recipe && script == "run_recipe.py" && ta.recipe_stem && ta.mode &&
      !ta.recipe_stem->unknown && !ta.mode->unknown) {
    const std::string& mode = ta.mode->text;  // LoRA and DoRA are the peft task
    job.recipe.name =
        ta.recipe_stem->text + "_" + (mode == "lora" || mode == "dora" ? "peft" : mode) + "_config";
  }
  job.recipe.by_runner = !job.recipe.empty() && script == "run_recipe.py";
  job.launch = l.kind;
  if (ray_driver) {
    job.launch = LaunchKind::kNone;  // one driver process; Ray places the workers on the GPUs
    job.framework = Framework::kVerl;
    job.description = role ? "verl " + role->name + " (" + entry + ", Megatron)" : entry + " (Ray)";
    job.notes.push_back(
        "verl starts its workers through Ray: the GPUs are trainer.nnodes x trainer.n_gpus_per_node");
  }
  if (l.kind == LaunchKind::kPython && ta.lightning_trainer) job.launch = LaunchKind::kLightning;
  std::string_view base = basename(entry);
  if (base.starts_with("pretrain_") || ta.megatron_flags)
    job.framework = ta.deepspeed ? Framework::kMegatronDeepSpeed : Framework::kMegatronLM;
  if (base.find("run_recipe") != std::string_view::npos || ta.recipe)
    job.framework = Framework::kMegatronBridge;
  if (base.starts_with("megatron_") && base.find("nemo") == std::string_view::npos)
    job.framework = Framework::kNemo1;

  Allocation a = ctx.under_srun ? ctx.step : ctx.groups[0];
  derive_gpus_per_node(a);
  job.whole_nodes = a.exclusive ? a.exclusive : ctx.groups[0].exclusive;
  // srun --ntasks counts the ranks only when srun starts them; under torchrun it counts the agents.
  if (l.kind == LaunchKind::kTorchrun) a.ntasks.reset();
  if (!ray_driver) {
    for (const auto* f : {&a.nodes, &a.gpus_per_node, &a.ntasks_per_node, &a.ntasks})
      if (*f) job.facts.push_back(**f);
    for (const auto& f : l.launcher_facts) job.facts.push_back(f);
  }
  for (auto f : ta.facts) {
    if (!ray_driver && f.origin == Origin::kOverride) f.key = as_launched(f.key);  // on the command line
    job.facts.push_back(std::move(f));
  }
  if (slime_driver(entry, args)) slime_world(args, job);
  if (basename(entry) == "entrypoint.py" && std::any_of(args.begin(), args.end(), [](const Word& arg) {
        return arg.text.starts_with("--chatlearn-num-gpu=");
      })) {
    job.framework = Framework::kMegatronLM;
    job.launch = LaunchKind::kNone;  // Ray places one actor per GPU
    job.description = "ChatLearn policy_trainer (" + entry + ", Megatron)";
    job.driver = Driver::kChatLearn;
    for (const Word& arg : args)
      if (arg.text.starts_with("--chatlearn-num-gpu=")) {
        Fact f;
        f.key = Key::kWorldSize;
        f.value = word_value(arg, std::string_view(arg.text).substr(20), KeyType::kInt, false);
        f.location = arg.location;
        f.origin = Origin::kOverride;
        f.spelling = "models.policy_trainer.num_gpu";
        f.written_at = arg.written_at;
        job.facts.push_back(std::move(f));
      }
  }
  if (job.framework == Framework::kMegatronDeepSpeed) deepspeed_config(args, job);
  for (auto c : ta.conflicts) job.conflicts.push_back(std::move(c));
  if (role) {
    job.role = role->name;
    for (const auto& c : role->ignored) job.conflicts.push_back(c);
    for (Fact& f : job.facts)  // as the launch writes them, not as parlint reads them
      for (const auto& [range, spelling] : role->spelled)
        if (f.origin == Origin::kOverride && f.location.range == range) f.spelling = spelling;
  }
  // A launch string one branch chose: the job is that branch's, and its findings say so.
  if (!ctx.branch.empty()) {
    job.description += " when " + ctx.branch + " runs";
    if (job.role.empty()) job.role = ctx.branch;
  }
  job.unrecognized = std::move(ta.unrecognized);
  if (l.ms_swift) ms_swift_job(entry, args, job);
  for (Key key : environment_variable_keys())
    if (auto f = env_fact(key, std::string(key_name(key)), env, overlay, ctx))
      job.facts.push_back(std::move(*f));
  out_.jobs.push_back(std::move(job));
}

}  // namespace parlint::shell
