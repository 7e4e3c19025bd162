// PL110 rollout-layout: a post-training framework's rollout or generation engine refuses its own layout.
#include <fmt/format.h>

#include <optional>
#include <tuple>

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
verl, NeMo-RL, ChatLearn and ms-swift refuse to start with the messages quoted in the findings. A
separate rule from PL102, so that a team can turn the engine checks off (`--ignore PL110`) without
losing the world-size check of the trainer.

## References
- verl `verl/workers/megatron_workers.py:515-521@b178a3cd56f5` (rollout world size against TP x DP x PP)
- verl `verl/workers/config/rollout.py:257-266@b178a3cd56f5` (expert_parallel_size = TP x DP; no PP for
  vLLM, SGLang, TensorRT-LLM)
- NeMo-RL `nemo_rl/models/generation/vllm/vllm_generation.py:119-146@7ea279abfbeb` (TP x PP divides the
  GPUs; EP against TP; async_engine)
- NeMo-RL `nemo_rl/algorithms/grpo.py:862-911@7ea279abfbeb` (the non-colocated generation's GPUs)
- ChatLearn `chatlearn/configs/policy_config.py:85-90@b7af31a972eb`
- ms-swift `swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623`
)md",
                         kReads};

class RolloutLayout final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  // The engine's layout against itself, whatever GPUs it gets: verl's RolloutConfig.__post_init__
  // (verl/workers/config/rollout.py:257-266@b178a3cd56f5), NeMo-RL's VllmGeneration.__init__
  // (vllm_generation.py:128-146@7ea279abfbeb).
  static void check_rollout_layout(const Job& job, std::vector<Finding>& out) {
    auto written = [&](Key k) -> const Fact* {
      const Fact* f = job.fact(k);
      return f && f->location.in_file() && !f->weak ? f : nullptr;
    };
    const Fact* ep = written(Key::kRolloutExpertParallelSize);
    const Fact* tp = written(Key::kRolloutTensorParallelSize);
    const Fact* pp = written(Key::kRolloutPipelineParallelSize);
    auto e = ep ? ep->value.as_int() : std::nullopt, t = tp ? tp->value.as_int() : std::nullopt;
    auto p = pp ? pp->value.as_int() : std::nullopt;
    if (job.framework() == Framework::kVerl) {
      if (e && t && *e > 1 && *t > 0) {
        auto dp = job.fact(Key::kRolloutDataParallelSize);
        auto d = dp ? dp->value.as_int() : std::optional<std::int64_t>(1);
        if (d && *d > 0 && *e != *t * *d) {
          Finding f;
          f.location = ep->location;
          f.message = fmt::format(
              "the rollout's expert_parallel_size={} is not its TP·DP = {}·{} = {}; verl asserts "
              "\"expert_parallel_size must be equal to tensor_model_parallel_size * data_parallel_size\" "
              "when it reads the rollout config",
              *e, *t, *d, *t * *d);
          f.help = fmt::format(
              "set actor_rollout_ref.rollout.expert_parallel_size={} (or 1 for no expert "
              "parallelism in the rollout)",
              *t * *d);
          f.related.push_back({tp->location, fmt::format("rollout tensor_model_parallel_size={}", *t)});
          out.push_back(std::move(f));
        }
      }
      const Fact* name = job.fact(Key::kRolloutName);
      std::optional<std::string> engine;
      if (name && name->value.kind() == Value::Kind::kString) engine = name->value.text();
      if (p && *p > 1 && engine && (*engine == "vllm" || *engine == "sglang" || *engine == "trtllm")) {
        Finding f;
        f.location = pp->location;
        f.message = fmt::format(
            "the {} rollout with pipeline_model_parallel_size={}; verl raises NotImplementedError(\"Current "
            "rollout self.name='{}' not implemented pipeline_model_parallel_size > 1 yet.\")",
            *engine, *p, *engine);
        f.help =
            "use actor_rollout_ref.rollout.pipeline_model_parallel_size=1 and scale the rollout with its "
            "tensor_model_parallel_size or data_parallel_size";
        f.related.push_back({name->location, fmt::format("rollout name={}", *engine)});
        out.push_back(std::move(f));
      }
      return;
    }
    if (job.driver() == Driver::kChatLearn) {
      for (auto [fact, value, name, said] :
           {std::tuple{ep, e, "expert_model_parallel_size",
                       "Expert Parallel of Policy model is not supported"},
            std::tuple{pp, p, "pipeline_model_parallel_size",
                       "Pipeline Parallel of Policy model is not supported"}}) {
        if (!value || *value <= 1) continue;
        Finding f;
        f.location = fact->location;
        f.message = fmt::format(
            "models.policy.{}={}, but ChatLearn's vLLM rollout runs without it: ChatLearn asserts \"{}\" at "
            "start-up",
            name, *value, said);
        f.help =
            fmt::format("set models.policy.{}=1 and scale the rollout with tensor_model_parallel_size", name);
        out.push_back(std::move(f));
      }
      return;
    }
    if (job.driver() != Driver::kNemoRl) return;
    const Fact* async_fact = job.fact(Key::kRolloutAsyncEngine);
    auto async = async_fact && async_fact->location.in_file() ? async_fact->value.as_bool() : std::nullopt;
    if (e && *e > 1) {
      if (t && *t > 0 && *e % *t != 0) {
        Finding f;
        f.location = ep->location;
        f.message = fmt::format(
            "vLLM's expert_parallel_size={} is not a multiple of its tensor_parallel_size={}; NeMo-RL "
            "asserts "
            "\"When EP > 1, EP must be a multiple of TP since vLLM's EP = DP * TP\" when it starts "
            "generation",
            *e, *t);
        f.help = fmt::format("set policy.generation.vllm_cfg.expert_parallel_size to a multiple of {}", *t);
        f.related.push_back({tp->location, fmt::format("vLLM tensor_parallel_size={}", *t)});
        out.push_back(std::move(f));
      } else if (t && *t > 0 && *e != *t && async == true) {
        Finding f;
        f.location = async_fact->location;
        f.message = fmt::format(
            "vLLM's expert_parallel_size={} differs from its tensor_parallel_size={}, so vLLM runs "
            "data-parallel inside, which NeMo-RL refuses with async_engine: true (\"vLLM async_engine has "
            "some issues when using DP inside vLLM\")",
            *e, *t);
        f.help =
            fmt::format("set policy.generation.vllm_cfg.async_engine=false, or expert_parallel_size={}", *t);
        f.related.push_back({ep->location, fmt::format("vLLM expert_parallel_size={}", *e)});
        out.push_back(std::move(f));
      }
    }
    if (p && *p > 1 && async == false) {
      Finding f;
      f.location = async_fact->location;
      f.message = fmt::format(
          "vLLM's pipeline_parallel_size={} with async_engine: false; NeMo-RL asserts \"When "
          "pipeline_parallel_size > 1, async_engine must be set to True in the vLLM configuration\"",
          *p);
      f.help = "set policy.generation.vllm_cfg.async_engine=true, or pipeline_parallel_size=1";
      f.related.push_back({pp->location, fmt::format("vLLM pipeline_parallel_size={}", *p)});
      out.push_back(std::move(f));
    }
  }

  // verl fits its rollout engine into the training GPUs: W must be a multiple of the engine's
  // TP x DP x PP (verl/workers/megatron_workers.py:515-521@b178a3cd56f5).
  static void check_rollout(const Job& job, std::int64_t W, std::vector<Finding>& out) {
    const Fact* tp = job.fact(Key::kRolloutTensorParallelSize);
    if (!tp || !tp->location.in_file()) return;
    auto t = tp->value.as_int();
    // An unknown DP or PP of the engine leaves the product unknown.
    auto size_of = [&](Key k) -> std::optional<std::int64_t> {
      const Fact* f = job.fact(k);
      return f ? f->value.as_int() : std::optional<std::int64_t>(1);
    };
    auto d = size_of(Key::kRolloutDataParallelSize), p = size_of(Key::kRolloutPipelineParallelSize);
    if (!t || !d || !p || *t <= 0 || *d <= 0 || *p <= 0) return;
    std::int64_t infer = *t * *d * *p;
    if (W % infer == 0) return;
    Finding f;
    f.location = tp->location;
    f.message = fmt::format(
        "the rollout engine's TP·DP·PP = {}·{}·{} = {} does not divide the {} GPUs verl trains and generates "
        "on; "
        "verl asserts \"rollout world_size: {} is not divisible by infer_world_size: {}\" when it builds the "
        "rollout",
        *t, *d, *p, infer, W, W, infer);
    // ms-swift's colocated vLLM (swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623).
    if (job.driver() == Driver::kMsSwift)
      f.message = fmt::format(
          "--vllm_tensor_parallel_size={} does not divide the {} ranks GRPO's colocated vLLM shares; "
          "ms-swift "
          "raises \"vllm_tensor_parallel_size ({}) must divide world size ({}) evenly.\"",
          *t, W, *t, W);
    // ChatLearn's rollout on the trainer's GPUs (chatlearn/configs/policy_config.py:85-86@b7af31a972eb).
    else if (job.driver() == Driver::kChatLearn)
      f.message = fmt::format(
          "models.policy's tensor_model_parallel_size={} does not divide the {} GPUs the rollout shares with "
          "the "
          "trainer; ChatLearn asserts \"models.policy.num_gpu must be divisible by "
          "tensor_model_parallel_size\"",
          *t, W);
    // NeMo-RL's vLLM (nemo_rl/models/generation/vllm/vllm_generation.py:119-126@7ea279abfbeb), on the
    // policy's GPUs or, non-colocated, on the generation's own.
    else if (job.framework() != Framework::kVerl) {
      const Fact* own = job.fact(Key::kRolloutWorldSize);
      f.message = fmt::format(
          "vLLM's TP·PP = {}·{} = {} does not divide the {} GPUs {}; NeMo-RL asserts "
          "\"World size must be a multiple of model parallel size. Got world size {} and model parallel size "
          "(TP * PP) {}\" when it starts generation",
          *t, *p, *t * *p, W,
          own ? "generation gets (" + own->spelling + ")" : std::string("it shares with the policy"), W,
          *t * *p);
      if (own) f.related.push_back({own->location, fmt::format("generation's GPUs: {}", W)});
    }
    f.help = fmt::format("use a rollout tensor_model_parallel_size that divides {}", W);
    if (job.driver() == Driver::kNemoRl)
      f.help = fmt::format("use a vllm_cfg tensor_parallel_size x pipeline_parallel_size that divides {}{}",
                           W, job.fact(Key::kRolloutWorldSize) ? ", or give generation more GPUs" : "");
    else if (job.driver() == Driver::kChatLearn)
      f.help = fmt::format("use a models.policy.tensor_model_parallel_size that divides {}", W);
    else if (job.driver() == Driver::kMsSwift)
      f.help = fmt::format("use a --vllm_tensor_parallel_size that divides {}", W);
    out.push_back(std::move(f));
  }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!(job.framework() == Framework::kVerl || (job.driver() == Driver::kNemoRl && job.role().empty()) ||
          job.driver() == Driver::kChatLearn || job.driver() == Driver::kMsSwift))
      return;
    check_rollout_layout(job, out);
    // The engine's GPUs: its own where the framework gives it some, else the trainer's.
    const Fact* own = job.fact(Key::kRolloutWorldSize);
    auto rollout_world = own ? own->value.as_int() : job.get_int(Key::kWorldSize);
    if (rollout_world && *rollout_world > 0) check_rollout(job, *rollout_world, out);
  }
};

PARLINT_REGISTER_RULE(RolloutLayout);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
