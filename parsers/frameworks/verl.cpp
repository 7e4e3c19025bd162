// verl's PPO/GRPO driver (python -m verl.trainer.main_ppo) as Megatron jobs, one per role it builds, read
// from its Hydra overrides (verl @ b178a3cd56f5):
//   actor      actor_rollout_ref.actor.megatron.<size> and .override_transformer_config.<field>
//   reference  built when actor.use_kl_loss or algorithm.use_kl_in_reward (trainer/ppo/utils.py:72-76);
//              its transformer overrides default to the actor's (config/ref/megatron_ref.yaml:17)
//   critic     built when critic.enable, else when algorithm.adv_estimator is gae, the default of
//              ppo_megatron_trainer.yaml (trainer/ppo/utils.py:86-97); its overrides are its own
// All roles share one process per GPU (trainer.nnodes x trainer.n_gpus_per_node, main_ppo.py:202-205,
// ray_trainer.py:850-858) and Megatron's groups are set up once, by the actor (megatron_workers.py:273-293):
// the reference and critic run on the actor's TP/PP/CP/EP/ETP/VPP whatever their own keys say (their
// TransformerConfig takes the sizes from the live groups, models/mcore/config_converter.py:77-82).
#include <map>
#include <optional>
#include <string_view>

#include "parsers/args/named_settings.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/frameworks/document_keys.h"

namespace parlint {
namespace {

using namespace document_keys;

constexpr std::string_view kActor = "actor_rollout_ref.actor.megatron.";
constexpr std::string_view kRef = "actor_rollout_ref.ref.megatron.";
constexpr std::string_view kCritic = "critic.megatron.";
constexpr std::string_view kOverrides = "override_transformer_config.";

// One override as verl's Hydra reads it: `+key=value`, `++key=value` and `key=value` alike.
struct Override {
  std::string_view key, value;
  const Word* word;
};

std::optional<Override> split(const Word& w) {
  std::string_view t = w.text;
  while (t.starts_with("+")) t.remove_prefix(1);
  auto eq = t.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  return Override{t.substr(0, eq), t.substr(eq + 1), &w};
}

// How the settings parlint reads were written, by where they were written.
using Spelled = std::vector<std::pair<SourceRange, std::string>>;

// The override as the Megatron-Core field (or trainer size) `path` parlint reads it as; how it was
// written goes to `spelled`.
NamedSetting read_as(const Override& o, std::string_view path, Spelled& spelled, std::string written = {}) {
  spelled.emplace_back(o.word->location.range, written.empty() ? std::string(o.key) : written);
  return NamedSetting{std::string(path), std::string(o.value), o.word, std::string(path)};
}

// The model an override names, as the job loads it.
Word model_word(const Override& o) {
  Word w = *o.word;
  w.text = std::string(o.value);
  return w;
}

bool is_true(std::string_view v) {
  return v == "True" || v == "true";
}

// The words under `prefix` with the prefix taken off: the role's sizes (not its transformer overrides)
// or, with `overrides`, its override_transformer_config fields.
std::vector<NamedSetting> under(const std::vector<Override>& all, std::string_view prefix, bool overrides,
                                Spelled& spelled) {
  std::vector<NamedSetting> out;
  for (const auto& o : all) {
    if (!o.key.starts_with(prefix)) continue;
    std::string_view rest = o.key.substr(prefix.size());
    bool is_override = rest.starts_with(kOverrides);
    if (is_override != overrides) continue;
    if (is_override) rest.remove_prefix(kOverrides.size());
    if (rest.find('.') != std::string_view::npos) continue;  // a nested config of verl's own
    out.push_back(read_as(o, rest, spelled));
  }
  return out;
}

// The Megatron-Core facts a list of settings gives.
std::vector<Fact> facts_of(const std::vector<NamedSetting>& settings) {
  return read_named_settings(settings).facts;
}

void append(std::vector<NamedSetting>& to, const std::vector<NamedSetting>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// One role as it is built, before its settings are read.
struct Role {
  std::string name;
  std::vector<NamedSetting> settings;
  std::vector<Conflict> ignored;
  std::optional<Word> model;
};

// The roles a verl launch builds with the Megatron back end, from its arguments (empty when the launch
// does not use Megatron, e.g. the FSDP ppo_trainer config with no megatron keys).
std::vector<RoleLaunch> megatron_roles(std::span<const Word> args) {
  Spelled spelled;
  std::vector<Override> all;
  std::string config_name;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t.starts_with("--config-name")) {  // --config-name=x or --config-name x
      config_name = t.find('=') != std::string_view::npos ? std::string(t.substr(t.find('=') + 1))
                    : i + 1 < args.size()                 ? args[i + 1].text
                                                          : std::string();
      continue;
    }
    if (auto o = split(args[i])) all.push_back(*o);
  }
  auto value_of = [&](std::string_view key) -> std::optional<Override> {
    std::optional<Override> last;
    for (const auto& o : all)
      if (o.key == key) last = o;
    return last;
  };
  for (char q : {'\'', '"'})
    if (config_name.size() >= 2 && config_name.front() == q && config_name.back() == q)
      config_name = config_name.substr(1, config_name.size() - 2);
  bool megatron_config = config_name.find("megatron") != std::string::npos;
  std::vector<NamedSetting> actor_sizes = under(all, kActor, false, spelled),
                            actor_overrides = under(all, kActor, true, spelled);
  if (auto s = value_of("actor_rollout_ref.actor.strategy")) megatron_config = s->value == "megatron";
  if (!megatron_config && actor_sizes.empty() && actor_overrides.empty()) return {};

  // What every role shares: the GPUs (one process per GPU for all of them), and the model.
  // trainer.nnodes and trainer.n_gpus_per_node are the nodes and GPUs per node Ray gets.
  std::vector<NamedSetting> common;
  if (auto o = value_of("trainer.nnodes")) common.push_back(read_as(*o, "trainer.num_nodes", spelled));
  if (auto o = value_of("trainer.n_gpus_per_node")) common.push_back(read_as(*o, "trainer.devices", spelled));
  std::optional<Word> actor_model;
  if (auto o = value_of("actor_rollout_ref.model.path")) {
    spelled.emplace_back(o->word->location.range, std::string(o->key));
    actor_model = model_word(*o);
  }

  std::vector<Role> roles;
  Role actor{"actor", common, {}, actor_model};
  append(actor.settings, actor_sizes);
  append(actor.settings, actor_overrides);
  // verl's validate_config (utils/config.py:87-113): without dynamic batch sizes, the rollout's
  // samples per step, data.train_batch_size x rollout.n, split into ppo_micro_batch_size_per_gpu per
  // data-parallel rank.
  auto dynamic = value_of("actor_rollout_ref.actor.use_dynamic_bsz");
  auto batch = value_of("data.train_batch_size");
  auto micro = value_of("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu");
  auto n = value_of("actor_rollout_ref.rollout.n");
  if (!(dynamic && is_true(dynamic->value)) && batch && micro && !batch->word->unknown &&
      !micro->word->unknown && !(n && n->word->unknown)) {
    auto as_int = [](std::string_view v) -> std::optional<long long> {
      if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
      return std::stoll(std::string(v));
    };
    auto b = as_int(batch->value);
    auto r = n ? as_int(n->value) : std::optional<long long>(1);
    if (b && r && as_int(micro->value)) {
      Override g = *batch;
      std::string product = std::to_string(*b * *r);
      g.value = product;
      actor.settings.push_back(read_as(g, "global_batch_size", spelled,
                                       n ? "data.train_batch_size x actor_rollout_ref.rollout.n"
                                         : "data.train_batch_size (x rollout.n = 1, its default)"));
      actor.settings.push_back(read_as(*micro, "micro_batch_size", spelled));
    }
  }
  // The rollout engine's own layout (vLLM / SGLang), which verl fits into the same GPUs
  // (workers/megatron_workers.py:515-521).
  for (auto [key, name] :
       {std::pair{"actor_rollout_ref.rollout.tensor_model_parallel_size", "rollout_tensor_parallel_size"},
        std::pair{"actor_rollout_ref.rollout.data_parallel_size", "rollout_data_parallel_size"},
        std::pair{"actor_rollout_ref.rollout.pipeline_model_parallel_size", "rollout_pipeline_parallel_size"},
        std::pair{"actor_rollout_ref.rollout.expert_parallel_size", "rollout_expert_parallel_size"},
        std::pair{"actor_rollout_ref.rollout.name", "rollout_name"}})
    if (auto o = value_of(key)) actor.settings.push_back(read_as(*o, name, spelled));
  roles.push_back(actor);

  // Sizes a role writes that verl does not apply: the actor's value (or its default) runs.
  std::vector<Fact> actor_facts = facts_of(actor_sizes);
  auto ignored_sizes = [&](std::string_view prefix) {
    std::vector<Conflict> out;
    std::vector<NamedSetting> own = under(all, prefix, false, spelled);
    std::vector<Fact> own_facts = facts_of(own);
    for (Fact f : own_facts) {
      const Fact* runs = nullptr;
      for (const Fact& a : actor_facts)
        if (a.key == f.key) runs = &a;
      Fact winner;
      if (runs) {
        if (runs->value == f.value) continue;
        winner = *runs;
        winner.spelling = std::string(kActor) + winner.spelling;
      } else {
        winner.key = f.key;
        winner.value = Value::unknown("the actor's default");
        winner.spelling = "the actor's default";
      }
      f.spelling = std::string(prefix) + f.spelling;
      // verl builds the reference and critic in the actor's processes, on the Megatron groups the actor
      // set up (megatron_workers.py:273-293@b178a3cd56f5).
      std::string why = std::string("verl builds the ") + (prefix == kCritic ? "critic" : "reference model") +
                        " in the actor's processes, on the Megatron groups the actor set up";
      out.push_back(Conflict{std::move(winner), std::move(f), std::move(why)});
    }
    return out;
  };

  auto kl_loss = value_of("actor_rollout_ref.actor.use_kl_loss");
  auto kl_reward = value_of("algorithm.use_kl_in_reward");
  if ((kl_loss && is_true(kl_loss->value)) || (kl_reward && is_true(kl_reward->value))) {
    Role ref{"reference", common, ignored_sizes(kRef), actor_model};
    append(ref.settings, actor_sizes);
    std::vector<NamedSetting> own = under(all, kRef, true, spelled);
    append(ref.settings, own.empty() ? actor_overrides : own);
    roles.push_back(std::move(ref));
  }

  auto enable = value_of("critic.enable");
  auto estimator = value_of("algorithm.adv_estimator");
  bool critic = enable      ? is_true(enable->value)
                : estimator ? estimator->value == "gae"
                            : config_name.starts_with("ppo_megatron_trainer");
  if (auto s = value_of("critic.strategy"); s && s->value != "megatron") critic = false;
  if (critic) {
    Role c{"critic", common, ignored_sizes(kCritic), std::nullopt};
    append(c.settings, actor_sizes);
    append(c.settings, under(all, kCritic, true, spelled));
    if (auto o = value_of("critic.model.path")) {
      spelled.emplace_back(o->word->location.range, std::string(o->key));
      c.model = model_word(*o);
    }
    roles.push_back(std::move(c));
  }
  std::vector<RoleLaunch> out;
  for (auto& r : roles) {
    RoleLaunch l;
    l.role = r.name;
    l.settings = read_named_settings(r.settings);
    l.ignored = std::move(r.ignored);
    l.spelled = spelled;
    l.model = std::move(r.model);
    out.push_back(std::move(l));
  }
  return out;
}

// A launch that builds no Megatron role (FSDP): the GPUs Ray gets, the actor's Megatron fields where
// written at the top of its megatron section, and the model.
RoleLaunch ray_job(std::span<const Word> args) {
  std::vector<NamedSetting> settings;
  std::optional<Word> model;
  std::vector<Override> all;
  for (const Word& a : args)
    if (auto o = split(a)) all.push_back(*o);
  for (const Override& o : all) {
    std::string_view key = o.key;
    bool done = false;
    for (std::string_view prefix : {"actor_rollout_ref.actor.megatron.override_transformer_config.",
                                    "actor_rollout_ref.actor.megatron."})
      if (key.starts_with(prefix) && key.find('.', prefix.size()) == std::string_view::npos) {
        std::string path(key.substr(prefix.size()));
        settings.push_back(NamedSetting{path, std::string(o.value), o.word, path});
        done = true;
        break;
      }
    if (done) continue;
    if (key == "trainer.nnodes")
      settings.push_back(
          NamedSetting{"trainer.num_nodes", std::string(o.value), o.word, "trainer.num_nodes"});
    if (key == "trainer.n_gpus_per_node")
      settings.push_back(NamedSetting{"trainer.devices", std::string(o.value), o.word, "trainer.devices"});
    if (key == "actor_rollout_ref.model.path") model = model_word(o);
  }
  RoleLaunch l;
  l.settings = read_named_settings(settings);
  l.model = std::move(model);
  return l;
}

// The reward model as a role of its own, when reward_model.enable=True and it runs as verl's reward loop
// (reward_model.use_reward_loop, True in verl's configs: verl/trainer/config/reward_model/
// megatron_reward_loop.yaml@b178a3cd56f5): vLLM or SGLang servers of reward_model.rollout.
// tensor_model_parallel_size GPUs each, on the trainer's GPUs, or with reward_model.enable_resource_pool on
// a pool of reward_model.nnodes x reward_model.n_gpus_per_node GPUs of its own
// (verl/trainer/main_ppo.py:199-219@b178a3cd56f5), which the servers split by their TP
// (verl/experimental/reward_loop/reward_model.py:50-79@b178a3cd56f5).
std::optional<RoleLaunch> reward_model_role(std::span<const Word> args) {
  std::vector<Override> all;
  bool config_path = false, complete = true;
  for (const Word& a : args) {
    if (a.unknown) complete = false;
    if (a.text.starts_with("--config-path") || a.text.starts_with("--config-dir")) config_path = true;
    if (auto o = split(a)) all.push_back(*o);
  }
  auto value_of = [&](std::string_view key) -> std::optional<Override> {
    std::optional<Override> last;
    for (const auto& o : all)
      if (o.key == key) last = o;
    return last;
  };
  auto enable = value_of("reward_model.enable");
  if (!enable || !is_true(enable->value)) return std::nullopt;
  if (auto loop = value_of("reward_model.use_reward_loop"); loop && !is_true(loop->value))
    return std::nullopt;
  Spelled spelled;
  std::vector<NamedSetting> settings;
  for (auto [key, name] :
       {std::pair{"reward_model.rollout.tensor_model_parallel_size", "rollout_tensor_parallel_size"},
        std::pair{"reward_model.rollout.name", "rollout_name"}})
    if (auto o = value_of(key)) settings.push_back(read_as(*o, name, spelled));
  auto pool = value_of("reward_model.enable_resource_pool");
  if (pool && is_true(pool->value)) {
    // Its own pool: reward_model.nnodes x reward_model.n_gpus_per_node, refused at nnodes <= 0
    // (main_ppo.py:207-211).
    auto nnodes = value_of("reward_model.nnodes"), gpus = value_of("reward_model.n_gpus_per_node");
    auto as_int = [](std::string_view v) -> std::optional<long long> {
      bool negative = v.starts_with("-");
      if (negative) v.remove_prefix(1);
      if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
      long long n = std::stoll(std::string(v));
      return negative ? -n : n;
    };
    if (nnodes && !nnodes->word->unknown) {
      auto n = as_int(nnodes->value);
      auto g = gpus && !gpus->word->unknown ? as_int(gpus->value) : std::nullopt;
      if (n && (*n <= 0 || (g && *g > 0))) {
        Override w = *nnodes;
        std::string product = std::to_string(*n <= 0 ? *n : *n * *g);
        w.value = product;
        settings.push_back(
            read_as(w, "rollout_world_size", spelled,
                    *n <= 0 ? "reward_model.nnodes" : "reward_model.nnodes x reward_model.n_gpus_per_node"));
      }
    } else if (!nnodes && complete && !config_path) {
      // Left to verl's own config, whose reward_model.nnodes is 0.
      Override w = *pool;
      w.value = "0";
      settings.push_back(
          read_as(w, "rollout_world_size", spelled, "reward_model.nnodes (not set: verl's default 0)"));
    }
  } else {
    if (auto o = value_of("trainer.nnodes")) settings.push_back(read_as(*o, "trainer.num_nodes", spelled));
    if (auto o = value_of("trainer.n_gpus_per_node"))
      settings.push_back(read_as(*o, "trainer.devices", spelled));
  }
  RoleLaunch l;
  l.role = "reward model";
  l.settings = read_named_settings(settings);
  l.spelled = std::move(spelled);
  if (auto o = value_of("reward_model.model.path")) l.model = model_word(*o);
  return l;
}

// The reward loop's servers split the reward model's GPUs by their TP alone
// (verl/experimental/reward_loop/reward_model.py:50-79, verl/single_controller/ray/base.py:266-270
// @b178a3cd56f5); its own pool needs reward_model.nnodes > 0 (verl/trainer/main_ppo.py:207-211@b178a3cd56f5).
DriverTraits verl_reward_model_traits() {
  DriverTraits t;
  t.name = "verl";
  t.rollout = RolloutTraits{
      {},
      "reward_model.rollout.tensor_model_parallel_size={tp} does not divide the {world} GPUs {gpus}; verl "
      "splits them into one server per {tp} GPUs and asserts \"split_size must be a divisor of world_size\" "
      "when it starts the reward model",
      "use a reward_model.rollout.tensor_model_parallel_size that divides {world}",
      "use a reward_model.rollout.tensor_model_parallel_size that divides {world}, or give the reward "
      "model's "
      "pool a multiple of {tp} GPUs",
      "of the reward model's own pool ({spelling})",
      "the reward model shares with the trainer (trainer.nnodes x trainer.n_gpus_per_node)",
      "the reward model's GPUs: {world}"};
  t.rollout->tp_only = true;
  t.rollout->own_gpus_refusal =
      "reward_model.enable_resource_pool=True gives the reward model a pool of its own, but {spelling} is "
      "{world}; verl raises ValueError(\"config.reward_model.nnodes must be greater than 0\") when it builds "
      "its "
      "resource pools";
  t.rollout->own_gpus_refusal_help =
      "set reward_model.nnodes (and reward_model.n_gpus_per_node) to the reward model's own nodes, or drop "
      "reward_model.enable_resource_pool to run it on the trainer's GPUs";
  return t;
}

// verl turns sequence parallelism off itself at TP 1 (verl/workers/config/engine.py:133-135@b178a3cd56f5);
// its validate_config checks the actor's batch, the rollout's samples per step, against
// ppo_micro_batch_size_per_gpu per data-parallel rank (verl/utils/config.py:87-113@b178a3cd56f5); its
// FSDP settings are its own engine's.
DriverTraits verl_traits() {
  DriverTraits t;
  t.name = "verl";
  t.turns_sp_off_at_tp1 = true;
  t.fsdp_settings_its_own = true;
  t.batch = BatchCheck{
      BatchCheck::Divisor::kMicroBatchTimesDp,
      "{spelling} = {gbs} is not a multiple of ppo_micro_batch_size_per_gpu·DP = {mbs}·{dp} = {unit}; verl's "
      "validate_config asserts \"real_train_batch_size ({gbs}) must be divisible by minimal possible batch "
      "size ({unit})\" before it starts the workers",
      "make data.train_batch_size x rollout.n a multiple of {unit} (e.g. {near})", false};
  // Its engine config turns SP on wherever TP > 1 (verl/workers/config/engine.py:116,133@b178a3cd56f5).
  t.sp_on_with_tp = true;
  // Its rollout runs on the GPUs it trains on (verl/workers/megatron_workers.py:515-521@b178a3cd56f5);
  // RolloutConfig.__post_init__ refuses an EP other than TP x DP and PP on vLLM, SGLang and TensorRT-LLM
  // (verl/workers/config/rollout.py:257-266@b178a3cd56f5).
  using When = RolloutRefusal::When;
  t.rollout = RolloutTraits{
      {{When::kEpNotTpTimesDp, Key::kRolloutExpertParallelSize,
        "the rollout's expert_parallel_size={ep} is not its TP·DP = {tp}·{dp} = {tpdp}; verl asserts "
        "\"expert_parallel_size must be equal to tensor_model_parallel_size * data_parallel_size\" "
        "when it reads the rollout config",
        "set actor_rollout_ref.rollout.expert_parallel_size={tpdp} (or 1 for no expert parallelism in the "
        "rollout)",
        Key::kRolloutTensorParallelSize, "rollout tensor_model_parallel_size={tp}"},
       {When::kPipelineOnEngines,
        Key::kRolloutPipelineParallelSize,
        "the {engine} rollout with pipeline_model_parallel_size={pp}; verl raises "
        "NotImplementedError(\"Current "
        "rollout self.name='{engine}' not implemented pipeline_model_parallel_size > 1 yet.\")",
        "use actor_rollout_ref.rollout.pipeline_model_parallel_size=1 and scale the rollout with its "
        "tensor_model_parallel_size or data_parallel_size",
        Key::kRolloutName,
        "rollout name={engine}",
        {"vllm", "sglang", "trtllm"}}},
      "the rollout engine's TP·DP·PP = {tp}·{dp}·{pp} = {product} does not divide the {world} GPUs verl "
      "trains and generates on; verl asserts \"rollout world_size: {world} is not divisible by "
      "infer_world_size: {product}\" when it builds the rollout",
      "use a rollout tensor_model_parallel_size that divides {world}"};
  return t;
}

class Verl final : public LaunchAdapter {
 public:
  std::string_view name() const override { return "verl"; }
  bool claims(const LaunchCommand& launch) const override {
    return launch.module && launch.entry.starts_with("verl.");
  }
  std::vector<RoleLaunch> roles(const LaunchCommand& launch) const override {
    std::vector<RoleLaunch> roles = megatron_roles(launch.args);
    if (roles.empty()) roles.push_back(ray_job(launch.args));
    if (auto rm = reward_model_role(launch.args)) roles.push_back(std::move(*rm));
    return roles;
  }
  bool places_its_workers() const override { return true; }
  void complete(const LaunchCommand& launch, const RoleLaunch& role, RawJob& job) const override {
    job.framework = Framework::kVerl;
    job.driver_traits = verl_traits();
    // One driver process; Ray places the workers on trainer.nnodes x trainer.n_gpus_per_node GPUs,
    // counted as a Lightning trainer's are (nnodes 1, weak, when only the GPUs per node are written).
    job.launch = launch.kind == LaunchKind::kPython && role.settings.lightning_trainer
                     ? LaunchKind::kLightning
                     : LaunchKind::kNone;
    std::string entry(launch.entry);
    job.description =
        role.role.empty() ? entry + " (Ray)" : "verl " + role.role + " (" + entry + ", Megatron)";
    job.notes.push_back(
        "verl starts its workers through Ray: the GPUs are trainer.nnodes x trainer.n_gpus_per_node");
    if (role.role == "reward model") {
      job.driver_traits = verl_reward_model_traits();
      job.trains = false;  // it serves rewards
      job.description = "verl reward model (" + entry + ", reward loop)";
      job.notes.back() =
          "verl's reward model runs on the trainer's GPUs, or on reward_model.nnodes x "
          "reward_model.n_gpus_per_node of its own with reward_model.enable_resource_pool";
    }
  }
};

// verl's own documents: a PPO trainer config (actor_rollout_ref.actor.megatron.<field>, trainer.nnodes /
// n_gpus_per_node, actor_rollout_ref.model.path), or one of its config pieces naming its dataclass.
class VerlConfig final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "verl"; }
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    bool megatron = std::any_of(keys.begin(), keys.end(), [](const DriverKey& k) {
      return starts_with(*k.path, {"actor_rollout_ref", "actor", "megatron"});
    });
    // verl's own config pieces name their dataclass: `_target_: verl.workers.config.McoreEngineConfig`.
    const DriverKey* target = nullptr;
    for (const auto& k : keys)
      if (k.path->size() == 1 && (*k.path)[0] == "_target_" && k.scalar.starts_with("verl.")) target = &k;
    if (target) {
      bool mcore = target->scalar.find("Mcore") != std::string::npos ||
                   target->scalar.find("Megatron") != std::string::npos;
      DriverConfig piece{Framework::kVerl,
                         "verl " + target->scalar.substr(target->scalar.rfind('.') + 1),
                         "",
                         "",
                         false,
                         !mcore};
      piece.traits = verl_traits();
      // Megatron-Core fields at the top of an engine config are read as they are; the rest is verl's own.
      for (auto& k : keys) {
        if (mcore && k.path->size() == 1)
          k.quiet = true;
        else
          k.own_key = true;
      }
      return piece;
    }
    if (!megatron) {
      bool ppo = std::any_of(keys.begin(), keys.end(),
                             [](const DriverKey& k) { return starts_with(*k.path, {"actor_rollout_ref"}); });
      if (!ppo) return std::nullopt;
      for (auto& k : keys) k.own_key = true;  // an FSDP (or other backend) verl config
      return DriverConfig{Framework::kVerl, "verl trainer (not Megatron)", "", "", false, true};
    }
    const DriverKey* strategy = find(keys, {"actor_rollout_ref", "actor", "strategy"});
    bool off = strategy && strategy->scalar != "megatron";
    DriverConfig out{Framework::kVerl, "verl actor (actor_rollout_ref.actor.megatron)", "", "", false, false};
    out.traits = verl_traits();
    if (const DriverKey* m = find(keys, {"actor_rollout_ref", "model", "path"})) out.model = m->scalar;
    for (auto& k : keys) {
      const auto& p = *k.path;
      if (starts_with(p, {"actor_rollout_ref", "actor", "megatron"}) && p.size() == 4) {
        if (off) k.dropped = true;
        read_under(k, 3, {"model"});
        k.quiet = true;  // verl's own engine switches sit beside the Megatron-Core fields
      } else if (p == std::vector<std::string>{"trainer", "nnodes"}) {
        k.read_as = {"trainer", "num_nodes"};
      } else if (p == std::vector<std::string>{"trainer", "n_gpus_per_node"}) {
        k.read_as = {"trainer", "devices"};
      } else {
        k.own_key = true;  // rollout, critic, ref, data, ... (verl's own)
      }
    }
    out.not_megatron = off;
    return out;
  }
};

}  // namespace

const DocumentAdapter& verl_config_adapter() {
  static const VerlConfig adapter;
  return adapter;
}

const LaunchAdapter& verl_adapter() {
  static const Verl adapter;
  return adapter;
}

}  // namespace parlint
