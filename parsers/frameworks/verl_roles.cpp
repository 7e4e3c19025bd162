#include "parsers/frameworks/verl_roles.h"

#include <map>
#include <optional>
#include <string_view>

#include "parsers/args/training_args.h"

namespace parlint {
namespace {

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

// How the words parlint reads were written, by where they were written.
using Spelled = std::vector<std::pair<SourceRange, std::string>>;

// `word` with its text replaced by `key=value` (where it was written stays, and how, in `spelled`).
Word respelled(const Override& o, std::string_view key, Spelled& spelled, std::string written = {}) {
  Word w = *o.word;
  w.text = std::string(key) + "=" + std::string(o.value);
  spelled.emplace_back(w.location.range, written.empty() ? std::string(o.key) : written);
  return w;
}

bool is_true(std::string_view v) {
  return v == "True" || v == "true";
}

// The words under `prefix` with the prefix taken off: the role's sizes (not its transformer overrides)
// or, with `overrides`, its override_transformer_config fields.
std::vector<Word> under(const std::vector<Override>& all, std::string_view prefix, bool overrides,
                        Spelled& spelled) {
  std::vector<Word> out;
  for (const auto& o : all) {
    if (!o.key.starts_with(prefix)) continue;
    std::string_view rest = o.key.substr(prefix.size());
    bool is_override = rest.starts_with(kOverrides);
    if (is_override != overrides) continue;
    if (is_override) rest.remove_prefix(kOverrides.size());
    if (rest.find('.') != std::string_view::npos) continue;  // a nested config of verl's own
    out.push_back(respelled(o, rest, spelled));
  }
  return out;
}

// The Megatron-Core facts a list of bare `field=value` words gives.
std::vector<Fact> facts_of(const std::vector<Word>& words) {
  return parse_training_args(words).facts;
}

}  // namespace

std::vector<VerlRole> verl_roles(const std::vector<Word>& args) {
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
  std::vector<Word> actor_sizes = under(all, kActor, false, spelled),
                    actor_overrides = under(all, kActor, true, spelled);
  if (auto s = value_of("actor_rollout_ref.actor.strategy")) megatron_config = s->value == "megatron";
  if (!megatron_config && actor_sizes.empty() && actor_overrides.empty()) return {};

  // What every role shares: the GPUs (one process per GPU for all of them), and the model.
  std::vector<Word> common;
  if (auto o = value_of("trainer.nnodes")) common.push_back(respelled(*o, "trainer.num_nodes", spelled));
  if (auto o = value_of("trainer.n_gpus_per_node"))
    common.push_back(respelled(*o, "trainer.devices", spelled));
  std::vector<Word> actor_model;
  if (auto o = value_of("actor_rollout_ref.model.path"))
    actor_model.push_back(respelled(*o, "--hf-model", spelled));

  std::vector<VerlRole> roles;
  VerlRole actor{"actor", common, {}, {}};
  actor.args.insert(actor.args.end(), actor_sizes.begin(), actor_sizes.end());
  actor.args.insert(actor.args.end(), actor_overrides.begin(), actor_overrides.end());
  actor.args.insert(actor.args.end(), actor_model.begin(), actor_model.end());
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
      actor.args.push_back(respelled(g, "global_batch_size", spelled,
                                     n ? "data.train_batch_size x actor_rollout_ref.rollout.n"
                                       : "data.train_batch_size (x rollout.n = 1, its default)"));
      actor.args.push_back(respelled(*micro, "micro_batch_size", spelled));
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
    if (auto o = value_of(key)) actor.args.push_back(respelled(*o, name, spelled));
  roles.push_back(actor);

  // Sizes a role writes that verl does not apply: the actor's value (or its default) runs.
  std::vector<Fact> actor_facts = facts_of(actor_sizes);
  auto ignored_sizes = [&](std::string_view prefix) {
    std::vector<Conflict> out;
    std::vector<Word> own = under(all, prefix, false, spelled);
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
      out.push_back(Conflict{std::move(winner), std::move(f)});
    }
    return out;
  };

  auto kl_loss = value_of("actor_rollout_ref.actor.use_kl_loss");
  auto kl_reward = value_of("algorithm.use_kl_in_reward");
  if ((kl_loss && is_true(kl_loss->value)) || (kl_reward && is_true(kl_reward->value))) {
    VerlRole ref{"reference", common, ignored_sizes(kRef), {}};
    ref.args.insert(ref.args.end(), actor_sizes.begin(), actor_sizes.end());
    std::vector<Word> own = under(all, kRef, true, spelled);
    const std::vector<Word>& overrides = own.empty() ? actor_overrides : own;
    ref.args.insert(ref.args.end(), overrides.begin(), overrides.end());
    ref.args.insert(ref.args.end(), actor_model.begin(), actor_model.end());
    roles.push_back(std::move(ref));
  }

  auto enable = value_of("critic.enable");
  auto estimator = value_of("algorithm.adv_estimator");
  bool critic = enable      ? is_true(enable->value)
                : estimator ? estimator->value == "gae"
                            : config_name.starts_with("ppo_megatron_trainer");
  if (auto s = value_of("critic.strategy"); s && s->value != "megatron") critic = false;
  if (critic) {
    VerlRole c{"critic", common, ignored_sizes(kCritic), {}};
    c.args.insert(c.args.end(), actor_sizes.begin(), actor_sizes.end());
    std::vector<Word> own = under(all, kCritic, true, spelled);
    c.args.insert(c.args.end(), own.begin(), own.end());
    if (auto o = value_of("critic.model.path")) c.args.push_back(respelled(*o, "--hf-model", spelled));
    roles.push_back(std::move(c));
  }
  for (auto& r : roles) r.spelled = spelled;
  return roles;
}

}  // namespace parlint
