// A launch becomes a RawJob: the allocation it runs in, the launcher's facts, the training arguments
// (Megatron flags, Hydra overrides, recipes), DeepSpeed's config, the environment, and what the framework
// that claims the launch (parsers/frameworks) adds to each job it builds.
#include "parsers/shell/shell_interpreter.h"

#include "parsers/args/script_purpose.h"

#include <algorithm>
#include <charconv>

#include "parsers/args/argument_words.h"
#include "parsers/yaml/yaml_parser.h"

namespace parlint::shell {

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
// The files a launch names: a file the script wrote from a here-document (values filled in at run time
// become '?', which readers take as unknown), else the file next to the script, else as written.
std::optional<std::string> ShellParser::ScriptFiles::read(const std::string& path, std::string& shown) const {
  ++parser.unrepeatable_;
  if (auto it = parser.written_files_.find(path); it != parser.written_files_.end()) {
    std::string body = it->second.text;
    std::replace(body.begin(), body.end(), kUnknownByte, '?');
    shown += " (written by this script)";
    return body;
  }
  std::string found;
  return parser.read_beside_script(path, found);
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
  // One if that leaves several variables empty is one mistake: reported at the first flag, naming the rest.
  auto cause = [](const MissingValue& m) {
    std::string_view w = m.value ? std::string_view(m.value->empty_when) : std::string_view();
    return w.substr(0, w.rfind(" ($"));
  };
  for (std::size_t i = 0; i < missing.size(); ++i) {
    const MissingValue& m = missing[i];
    if (m.flag.location.path != out_.path || !m.flag.location.range.valid()) continue;
    if (out_.errors.size() >= kMaxSyntaxErrors) return;
    std::vector<std::string> same;  // the other flags the same if leaves without a value
    if (m.value) {
      bool earlier = false;
      for (std::size_t k = 0; k < missing.size() && !earlier; ++k)
        if (k != i && missing[k].value && cause(missing[k]) == cause(m) &&
            missing[k].flag.location.path == out_.path) {
          // Reported at the flag written first (then the first listed among equals).
          const auto& a = missing[k].flag.location.range.start;
          const auto& b = m.flag.location.range.start;
          if (a < b || (a == b && k < i))
            earlier = true;
          else
            same.push_back(missing[k].flag.text);
        }
      if (earlier) continue;
    }
    std::string followed = m.next.empty() ? "the command line ends there" : "the next word is " + m.next;
    std::string refusal = std::string(script) + "'s argparse stops before training starts: \"argument " +
                          m.flag.text + ": expected one argument\"";
    SyntaxError e;
    e.range = m.flag.location.range;
    if (m.value) {
      e.message =
          m.flag.text + " has no value when " + m.value->empty_when + ": " + followed + "; " + refusal;
      if (!same.empty()) {
        e.message += " (on that path ";
        for (std::size_t k = 0; k < same.size(); ++k)
          e.message += (k ? (k + 1 == same.size() ? " and " : ", ") : "") + same[k];
        e.message += same.size() == 1 ? " has no value either)" : " have no value either)";
      }
      e.help = "set the variable on every path: an else branch, or a default before the if";
    } else {
      e.message = m.flag.text + " has no value: " + followed +
                  " (an unquoted variable that is empty is no word at all); " + refusal;
      e.help = "give " + m.flag.text + " a value, or leave the flag out when there is none";
    }
    out_.errors.push_back(std::move(e));
  }
}

void ShellParser::emit(const Launch& l, std::vector<ShellText>& w, const Location& where, Env& env,
                       Env& overlay, Context& ctx) {
  std::string entry = w[l.entry].text;
  std::vector<Word> args;
  for (std::size_t k = l.entry + 1; k < w.size(); ++k) args.push_back(to_word(w[k]));
  // A framework that drives Megatron-Core its own way (parsers/frameworks) builds its jobs from the
  // launch: one per role, or none when it runs no Megatron.
  ScriptFiles files{*this};
  LaunchCommand command{l.program, entry, l.module, l.kind, args, &files};
  if (const LaunchAdapter* adapter = adapters_.claimant(command)) {
    for (RoleLaunch& role : adapter->roles(command))
      emit_job(l, w, where, env, overlay, ctx, args, std::move(role), adapter);
    return;
  }
  RoleLaunch own;
  own.settings = parse_training_args(args);
  emit_job(l, w, where, env, overlay, ctx, args, std::move(own), nullptr);
}

void ShellParser::emit_job(const Launch& l, std::vector<ShellText>& w, const Location& where, Env& env,
                           Env& overlay, Context& ctx, const std::vector<Word>& args, RoleLaunch role,
                           const LaunchAdapter* adapter) {
  // The entry point as the framework that claims the launch runs it (a CLI script may run a subcommand).
  std::string entry = role.entry.empty() ? w[l.entry].text : role.entry;
  const bool own_workers = adapter && adapter->places_its_workers();
  TrainingArgs& ta = role.settings;
  WorkMeter::charge(kLaunchUnits + 64 * w.size());

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
  if (role.model && !role.model->unknown) job.model = role.model->text;
  job.model_references = role.model_references;
  for (auto& c : ta.config_files)
    if (!c.unknown) job.config_files.push_back(std::move(c));
  // The configs it selects may read its environment (${oc.env:TP}).
  if (!job.config_files.empty()) job.environment = exported(env, overlay);
  job.under_srun = ctx.under_srun;
  job.under_slurm = ctx.has_directives || (ctx.under_srun && !ctx.under_mpi);
  // A header that names the job only (its name, time, log) is submitted with its size on sbatch's command
  // line: the allocation is made there, as for a script without directives.
  job.allocates = ctx.has_directives && ctx.sizes_allocation;
  job.gpu_entry_point = training_launch(l, entry, ta);
  job.trains = !runs_without_training(basename(entry));
  job.arguments_complete = ta.arguments_complete;
  if (ta.checkpoint_args && ta.loads_checkpoint) {
    job.checkpoint_args = ta.checkpoint_args;
    job.mp_args_from_checkpoint = ta.mp_args_from_checkpoint;
  }
  if (ta.unread_argument) {
    const Word& u = *ta.unread_argument;
    job.unread_arguments = "an argument known only at run time";
    if (u.location.range.valid())
      job.unread_arguments += " at line " + std::to_string(u.location.range.start.line);
    if (!u.unknown_reason.empty()) job.unread_arguments += " (" + u.unknown_reason + ")";
  }
  // The options the launch passes, as written (--etp of --etp 2 or --etp=2): a script's own argparse
  // default for one of them is not what runs.
  for (std::size_t k = 0; k < args.size() && job.passed_options.size() < kMaxPassedOptions; ++k) {
    const Word& a = args[k];
    std::string_view t = a.text;
    if (!t.starts_with("-") || t.size() < 2 || a.unknown) continue;
    RawJob::PassedOption o;
    o.option = std::string(t.substr(0, t.find('=')));
    o.location = a.location;
    if (auto eq = t.find('='); eq != std::string_view::npos) {
      o.value = std::string(t.substr(eq + 1));
      o.value_known = true;
    } else if (k + 1 < args.size() && !args[k + 1].text.starts_with("-")) {
      o.value = args[k + 1].text;
      o.value_known = !args[k + 1].unknown;
      if (args[k + 1].location.path == a.location.path &&
          args[k + 1].location.range.start.line == a.location.range.start.line)
        o.location.range.end = args[k + 1].location.range.end;
    }
    job.passed_options.push_back(std::move(o));
  }
  for (const Word& a : args) {  // pretrained_checkpoint.restore_from_path=/models/x.nemo
    std::string_view t = a.text;
    while (t.starts_with("+")) t.remove_prefix(1);
    auto eq = t.find('=');
    if (eq == std::string_view::npos || a.unknown) continue;
    if (restores_checkpoint_config(dotted_path(t.substr(0, eq)), t.substr(eq + 1)))
      job.settings_from_checkpoint = true;
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
  if (!own_workers) {
    for (const auto* f : {&a.nodes, &a.gpus_per_node, &a.ntasks_per_node, &a.ntasks})
      if (*f) job.facts.push_back(**f);
    for (const auto& f : l.launcher_facts) job.facts.push_back(f);
  }
  for (auto f : ta.facts) {
    if (!own_workers && f.origin == Origin::kOverride) f.key = as_launched(f.key);  // on the command line
    job.facts.push_back(std::move(f));
  }
  job.unrecognized = std::move(ta.unrecognized);
  ScriptFiles files{*this};
  if (adapter)
    adapter->complete(LaunchCommand{l.program, w[l.entry].text, l.module, l.kind, args, &files}, role, job);
  for (auto c : ta.conflicts) job.conflicts.push_back(std::move(c));
  if (!role.role.empty()) {
    job.role = role.role;
    for (const auto& c : role.ignored) job.conflicts.push_back(c);
    for (Fact& f : job.facts)  // as the launch writes them, not as parlint reads them
      for (const auto& [range, spelling] : role.spelled)
        if (f.origin == Origin::kOverride && f.location.range == range) f.spelling = spelling;
  }
  // A launch string one branch chose: the job is that branch's, and its findings say so.
  if (!ctx.branch.empty()) {
    job.description += " when " + ctx.branch + " runs";
    job.branch = ctx.branch;
  }
  for (Key key : environment_variable_keys())
    if (auto f = env_fact(key, std::string(key_name(key)), env, overlay, ctx))
      job.facts.push_back(std::move(*f));
  out_.jobs.push_back(std::move(job));
}

}  // namespace parlint::shell
