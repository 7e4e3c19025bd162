// PL110 rollout-layout: a post-training framework's rollout or generation engine refuses its own layout.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kRolloutTensorParallelSize,
                          Key::kRolloutDataParallelSize,
                          Key::kRolloutPipelineParallelSize,
                          Key::kRolloutExpertParallelSize,
                          Key::kRolloutWorldSize,
                          Key::kRolloutName,
                          Key::kRolloutAsyncEngine,
                          Key::kRolloutGpusPerEngine,
                          Key::kRolloutDpAttention,
                          Key::kWorldSize};

constexpr RuleInfo kInfo{"PL110",
                         "rollout-layout",
                         Severity::kError,
                         "the rollout or generation engine refuses its layout on its GPUs",
                         R"md(# PL110 rollout-layout

## What it does
Checks the layout of the engine a post-training framework generates with (vLLM, SGLang, TensorRT-LLM)
against its own GPUs and against what the framework accepts for it, with the framework's own message:

- **verl** (`python -m verl.trainer.main_ppo`) runs its rollout on the GPUs it trains on: the world size
  must be a multiple of the engine's TP x DP x PP (`actor_rollout_ref.rollout.tensor_model_parallel_size`,
  `data_parallel_size`, `pipeline_model_parallel_size`), which verl asserts when it builds the rollout
  (`verl/workers/megatron_workers.py:515-521@b178a3cd56f5`). With `expert_parallel_size` > 1 verl asserts
  it equals the engine's TP x DP (`verl/workers/config/rollout.py:257-260@b178a3cd56f5`), and vLLM, SGLang
  and TensorRT-LLM rollouts raise `NotImplementedError` for `pipeline_model_parallel_size` > 1
  (`rollout.py:262-266@b178a3cd56f5`).
- **verl**'s reward model (`reward_model.enable=True`, run as its reward loop) is a job of its own: vLLM or
  SGLang servers of `reward_model.rollout.tensor_model_parallel_size` GPUs each, which split the GPUs it
  runs on by that TP alone and assert it divides them
  (`verl/experimental/reward_loop/reward_model.py:50-79@b178a3cd56f5`,
  `verl/single_controller/ray/base.py:266-270@b178a3cd56f5`). Those are the trainer's GPUs, or with
  `reward_model.enable_resource_pool=True` a pool of `reward_model.nnodes x reward_model.n_gpus_per_node`
  of its own, which verl refuses when `reward_model.nnodes` is 0 or less — its own default 0 when the
  launch, using verl's own configs (no `--config-path`), does not set it
  (`verl/trainer/main_ppo.py:199-219@b178a3cd56f5`). Not with `reward_model.use_reward_loop=False` (the
  legacy reward model worker).
- **NeMo-RL**'s vLLM generation: `policy.generation.vllm_cfg.tensor_parallel_size x pipeline_parallel_size`
  must divide the policy's GPUs when colocated
  (`nemo_rl/models/generation/vllm/vllm_generation.py:119-126@7ea279abfbeb`) and the generation's own
  `resources.num_nodes x resources.gpus_per_node` when not (`nemo_rl/algorithms/grpo.py:862-911@7ea279abfbeb`).
  vLLM's `expert_parallel_size` > 1 must be a multiple of its TP, an EP other than TP needs
  `async_engine: false`, and PP > 1 needs `async_engine: true` (`vllm_generation.py:128-146@7ea279abfbeb`).
- **ChatLearn**'s rollout (`models.policy`) runs on the trainer's GPUs unless the launch gives it its own;
  its `tensor_model_parallel_size` must divide them (`chatlearn/configs/policy_config.py:85-86@b7af31a972eb`),
  and it takes neither expert nor pipeline parallelism (`policy_config.py:89-90@b7af31a972eb`).
- **ms-swift**'s Megatron GRPO with `--vllm_mode colocate` runs vLLM on the training ranks in groups of
  `--vllm_tensor_parallel_size`, which must divide the world size
  (`swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623`).
- **ms-swift**'s Megatron GRPO (`megatron rlhf --rlhf_type grpo`) generates with vLLM by default
  (`use_vllm` true) but its Megatron arguments give `--vllm_mode` no default
  (`swift/megatron/arguments/megatron_args.py:103-105@3602360a5623`): without it, ms-swift raises once the
  model is built (`swift/megatron/trainers/rollout_mixin.py:418-419@3602360a5623`). Reported only when
  every argument of the launch is known and none is a config file, `--use_vllm false` or `--use_ray`.
- **slime** (`train.py` with `--rollout-num-gpus-per-engine`) splits each SGLang engine's GPUs into
  SGLang's TP x PP and asserts that `--sglang-pp-size` divides them; it asserts
  `--sglang-enable-dp-attention` whenever `--sglang-dp-size` > 1, with no message
  (`slime/backends/sglang_utils/arguments.py:173-184@624b824a898a`). It counts its engines by floor
  division of the rollout's GPUs (`--rollout-num-gpus`, or under `--colocate` the actor's
  `--actor-num-nodes x --actor-num-gpus-per-node` when it is not written:
  `slime/utils/arguments.py:1951-1952@624b824a898a`) by the GPUs of one engine
  (`slime/ray/rollout.py:1031-1035@624b824a898a`): a remainder stays idle without a message, which is
  reported as a warning, for engines within a node (`--num-gpus-per-node`, default 8) that slime starts
  itself (no `--sglang-config`, `--prefill-num-servers` or external engines). DP attention counts as
  off only when every argument of the launch is known.

Only values written in the launch or its configs are checked: an engine size left to the framework's
default, or a GPU count that is unknown, keeps the rule quiet.

## Why
Each of these is an assertion or exception the framework raises while it starts the engine: the job has
waited in the queue, loaded the trainer and dies before its first step. The training layout itself (PL102)
can be valid while the engine's is not, since the engine splits the same GPUs its own way.

## Example
```bash
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=3 \
    trainer.n_gpus_per_node=8 trainer.nnodes=2
```

## Fix
```bash
python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer \
    actor_rollout_ref.model.path=Qwen/Qwen2.5-7B-Instruct \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.tensor_model_parallel_size=4 \
    trainer.n_gpus_per_node=8 trainer.nnodes=2
```

## Framework behaviour
verl, NeMo-RL, ChatLearn, ms-swift and slime refuse to start with the messages quoted in the findings;
slime's idle rollout GPUs are a warning, since it runs with fewer engines. A
separate rule from PL102, so that a team can turn the engine checks off (`--ignore PL110`) without
losing the world-size check of the trainer.

## References
- verl `verl/workers/megatron_workers.py:515-521@b178a3cd56f5` (rollout world size against TP x DP x PP)
- verl `verl/workers/config/rollout.py:257-266@b178a3cd56f5` (expert_parallel_size = TP x DP; no PP for
  vLLM, SGLang, TensorRT-LLM)
- verl `verl/experimental/reward_loop/reward_model.py:50-79@b178a3cd56f5` and
  `verl/single_controller/ray/base.py:266-270@b178a3cd56f5` (the reward model's servers split its GPUs by
  their TP), `verl/trainer/main_ppo.py:199-219@b178a3cd56f5` (the reward model's own pool; nnodes > 0)
- NeMo-RL `nemo_rl/models/generation/vllm/vllm_generation.py:119-146@7ea279abfbeb` (TP x PP divides the
  GPUs; EP against TP; async_engine)
- NeMo-RL `nemo_rl/algorithms/grpo.py:862-911@7ea279abfbeb` (the non-colocated generation's GPUs)
- ChatLearn `chatlearn/configs/policy_config.py:85-90@b7af31a972eb`
- ms-swift `swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623` (colocated vLLM's TP),
  `swift/megatron/trainers/rollout_mixin.py:418-419@3602360a5623` and
  `swift/megatron/arguments/megatron_args.py:103-105@3602360a5623` (no default vllm_mode)
- slime `slime/backends/sglang_utils/arguments.py:173-184@624b824a898a` (engine GPUs against SGLang's
  PP; DP attention for SGLang's DP), `slime/ray/rollout.py:1031-1035@624b824a898a` (engines by floor
  division), `slime/utils/arguments.py:1951-1952@624b824a898a` (colocated rollout GPUs)
)md",
                         kReads};

// The sizes a refusal's template names; a size not written is 1.
struct EngineSizes {
  std::int64_t tp = 1, dp = 1, pp = 1, ep = 1;
  std::string engine;
  std::int64_t engine_gpus = 0;
};

std::string fill(const std::string& text, const EngineSizes& s) {
  return fmt::format(fmt::runtime(text), fmt::arg("tp", s.tp), fmt::arg("dp", s.dp), fmt::arg("pp", s.pp),
                     fmt::arg("ep", s.ep), fmt::arg("tpdp", s.tp * s.dp), fmt::arg("engine", s.engine),
                     fmt::arg("engine_gpus", s.engine_gpus));
}

class RolloutLayout final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  // The engine's layout against itself, whatever GPUs it gets, as the framework's adapter lists its
  // refusals (verl's RolloutConfig.__post_init__, NeMo-RL's VllmGeneration.__init__, ChatLearn's
  // PolicyConfig: see the documentation above).
  static void check_rollout_layout(const Job& job, const RolloutTraits& traits, std::vector<Finding>& out) {
    auto written = [&](Key k) -> const Fact* {
      const Fact* f = job.fact(k);
      return f && f->location.in_file() && !f->weak ? f : nullptr;
    };
    const Fact* ep = written(Key::kRolloutExpertParallelSize);
    const Fact* tp = written(Key::kRolloutTensorParallelSize);
    const Fact* pp = written(Key::kRolloutPipelineParallelSize);
    auto e = ep ? ep->value.as_int() : std::nullopt, t = tp ? tp->value.as_int() : std::nullopt;
    auto p = pp ? pp->value.as_int() : std::nullopt;
    const Fact* async_fact = job.fact(Key::kRolloutAsyncEngine);
    auto async = async_fact && async_fact->location.in_file() ? async_fact->value.as_bool() : std::nullopt;
    const Fact* dp = job.fact(Key::kRolloutDataParallelSize);
    auto d = dp ? dp->value.as_int() : std::optional<std::int64_t>(1);
    const Fact* name = job.fact(Key::kRolloutName);
    std::optional<std::string> engine;
    if (name && name->value.kind() == Value::Kind::kString) engine = name->value.text();
    const Fact* gpus = written(Key::kRolloutGpusPerEngine);
    auto g = gpus ? gpus->value.as_int() : std::nullopt;
    const Fact* dp_written = written(Key::kRolloutDataParallelSize);
    auto dw = dp_written ? dp_written->value.as_int() : std::nullopt;
    const Fact* dp_attention = job.fact(Key::kRolloutDpAttention);
    auto attention = dp_attention ? dp_attention->value.as_bool() : std::nullopt;
    EngineSizes sizes{t.value_or(1), d.value_or(1),       p.value_or(1),
                      e.value_or(1), engine.value_or(""), g.value_or(0)};

    for (const RolloutRefusal& r : traits.refusals) {
      using When = RolloutRefusal::When;
      bool refused = false;
      switch (r.when) {
        case When::kEpNotTpTimesDp:
          refused = e && t && *e > 1 && *t > 0 && d && *d > 0 && *e != *t * *d;
          break;
        case When::kPipelineOnEngines:
          refused = p && *p > 1 && engine &&
                    std::find(r.engines.begin(), r.engines.end(), *engine) != r.engines.end();
          break;
        case When::kExpertParallel:
          refused = e && *e > 1;
          break;
        case When::kPipeline:
          refused = p && *p > 1;
          break;
        case When::kEpNotMultipleOfTp:
          refused = e && *e > 1 && t && *t > 0 && *e % *t != 0;
          break;
        case When::kEpNotTpWhenAsync:
          refused = e && *e > 1 && t && *t > 0 && *e % *t == 0 && *e != *t && async == true;
          break;
        case When::kPipelineWithoutAsync:
          refused = p && *p > 1 && async == false;
          break;
        case When::kEngineGpusNotMultipleOfPp:
          refused = p && *p > 1 && g && *g > 0 && *g % *p != 0;
          break;
        case When::kDataParallelWithoutDpAttention:
          refused = dw && *dw > 1 && attention == false;
          break;
        case When::kNoEngineMode:
          refused = name && name->value.kind() == Value::Kind::kString && name->value.text().empty() &&
                    name->location.in_file();
          break;
      }
      if (!refused) continue;
      const Fact* at = job.fact(r.at);
      if (!at) continue;
      Finding f;
      f.location = at->location;
      f.message = fill(r.message, sizes);
      f.help = fill(r.help, sizes);
      if (r.related)
        if (const Fact* other = job.fact(*r.related))
          f.related.push_back({other->location, fill(r.related_note, sizes)});
      out.push_back(std::move(f));
    }
  }

  // The engine's TP x DP x PP against the GPUs it runs on (verl/workers/megatron_workers.py:515-521,
  // nemo_rl/models/generation/vllm/vllm_generation.py:119-126, chatlearn/configs/policy_config.py:85-86,
  // swift/megatron/trainers/rollout_mixin.py:403-406: see the references above).
  static void check_rollout(const Job& job, const RolloutTraits& traits, std::int64_t W,
                            std::vector<Finding>& out) {
    const Fact* tp = job.fact(Key::kRolloutTensorParallelSize);
    if (!tp || !tp->location.in_file()) return;
    auto t = tp->value.as_int();
    // An unknown DP or PP of the engine leaves the product unknown.
    auto size_of = [&](Key k) -> std::optional<std::int64_t> {
      const Fact* f = job.fact(k);
      return f ? f->value.as_int() : std::optional<std::int64_t>(1);
    };
    auto d = size_of(Key::kRolloutDataParallelSize), p = size_of(Key::kRolloutPipelineParallelSize);
    if (traits.tp_only) d = p = 1;
    if (!t || !d || !p || *t <= 0 || *d <= 0 || *p <= 0) return;
    std::int64_t infer = *t * *d * *p;
    if (W % infer == 0) return;
    const Fact* own = job.fact(Key::kRolloutWorldSize);
    std::string gpus = own ? fmt::format(fmt::runtime(traits.own_gpus), fmt::arg("spelling", own->spelling))
                           : traits.shared_gpus;
    auto with_sizes = [&](const std::string& text) {
      return fmt::format(fmt::runtime(text), fmt::arg("tp", *t), fmt::arg("dp", *d), fmt::arg("pp", *p),
                         fmt::arg("product", infer), fmt::arg("tppp", *t * *p), fmt::arg("world", W),
                         fmt::arg("gpus", gpus));
    };
    Finding f;
    f.location = tp->location;
    f.message = with_sizes(traits.world_refusal);
    if (own && !traits.own_gpus_note.empty())
      f.related.push_back({own->location, with_sizes(traits.own_gpus_note)});
    f.help = with_sizes(own && !traits.world_help_own.empty() ? traits.world_help_own : traits.world_help);
    out.push_back(std::move(f));
  }

  // A framework that counts its engines by floor division of its rollout GPUs leaves the rest idle
  // (slime/ray/rollout.py:1031-1035@624b824a898a): a warning, with both counts written.
  static void check_idle_gpus(const Job& job, const RolloutTraits& traits, std::vector<Finding>& out) {
    if (traits.idle_gpus_warning.empty()) return;
    const Fact* world = job.fact(Key::kRolloutWorldSize);
    const Fact* per_engine = job.fact(Key::kRolloutGpusPerEngine);
    if (!world || !per_engine || !per_engine->location.in_file() || world->weak || per_engine->weak) return;
    auto w = world->value.as_int(), g = per_engine->value.as_int();
    if (!w || !g || *w <= 0 || *g <= 0 || *w % *g == 0) return;
    auto with_counts = [&](const std::string& text) {
      return fmt::format(fmt::runtime(text), fmt::arg("world", *w), fmt::arg("engine_gpus", *g),
                         fmt::arg("engines", *w / *g), fmt::arg("idle", *w % *g),
                         fmt::arg("spelling", world->spelling));
    };
    Finding f;
    f.location = per_engine->location;
    f.severity = Severity::kWarning;
    f.message = with_counts(traits.idle_gpus_warning);
    f.help = with_counts(traits.idle_gpus_help);
    if (world->location.in_file())
      f.related.push_back({world->location, with_counts("{spelling} = {world}")});
    out.push_back(std::move(f));
  }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const auto& rollout = job.driver_traits().rollout;
    if (!rollout) return;
    check_rollout_layout(job, *rollout, out);
    check_idle_gpus(job, *rollout, out);
    if (rollout->world_refusal.empty()) return;
    // The engine's GPUs: its own where the framework gives it some, else the trainer's.
    const Fact* own = job.fact(Key::kRolloutWorldSize);
    auto rollout_world = own ? own->value.as_int() : job.get_int(Key::kWorldSize);
    if (rollout_world && *rollout_world > 0) check_rollout(job, *rollout, *rollout_world, out);
    // Its own GPUs counted 0 or fewer (verl's reward_model.nnodes left at 0).
    if (own && rollout_world && *rollout_world <= 0 && !rollout->own_gpus_refusal.empty() &&
        own->location.in_file()) {
      auto with_world = [&](const std::string& text) {
        return fmt::format(fmt::runtime(text), fmt::arg("world", *rollout_world),
                           fmt::arg("spelling", own->spelling));
      };
      Finding f;
      f.location = own->location;
      f.message = with_world(rollout->own_gpus_refusal);
      f.help = with_world(rollout->own_gpus_refusal_help);
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(RolloutLayout);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
