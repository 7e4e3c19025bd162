// PL102 world-size-indivisible: the world size is not a multiple of the dense or expert model-parallel size.
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
                          Key::kTensorModelParallelSize,
                          Key::kPipelineModelParallelSize,
                          Key::kContextParallelSize,
                          Key::kExpertModelParallelSize,
                          Key::kExpertTensorParallelSize,
                          Key::kNumMoeExperts,
                          Key::kNodes,
                          Key::kNnodes,
                          Key::kGpusPerNode,
                          Key::kWorldSize,
                          Key::kUseTpPpDpMapping,
                          Key::kTensorParallelNumWeightShards,
                          Key::kNumDistributedOptimizerInstances};

constexpr RuleInfo kInfo{"PL102",
                         "world-size-indivisible",
                         Severity::kError,
                         "world size is not divisible by TP·PP·CP or by PP·EP·ETP",
                         R"md(# PL102 world-size-indivisible

## What it does
Checks that the world size W (nodes x GPUs per node) is a multiple of both model-parallel sizes:
the dense mesh TP·PP·CP and the expert mesh PP·EP·ETP. The message gives the smallest valid world
size M = PP · lcm(TP·CP, EP·ETP) and the nearest valid GPU and node counts. With
`use_tp_pp_dp_mapping` (the rank order tp-cp-ep-pp-dp) and PP > 1, the dense and expert data-parallel
sizes must also be equal (Megatron-Core `parallel_state.py:898-902@d98e8a64ddf3`). With Megatron-LM's
weight sharding (`--tensor-parallel-num-weight-shards S`, a multiple of TP), the dense grid is
TP·PP·CP·(S/TP) (`parallel_state.py:806-823@d98e8a64ddf3`), and S must be a multiple of TP
(`model_parallel_config.py:28-42@d98e8a64ddf3`).

verl (`python -m verl.trainer.main_ppo`) runs its rollout engine (vLLM, SGLang) on the GPUs it trains on:
the world size must also be a multiple of the engine's TP x DP x PP
(`actor_rollout_ref.rollout.tensor_model_parallel_size`, `data_parallel_size`,
`pipeline_model_parallel_size`), which verl asserts when it builds the rollout
(`verl/workers/megatron_workers.py:515-521@b178a3cd56f5`).
The engine's own layout must hold too: with `expert_parallel_size` > 1 verl asserts it equals the engine's
TP x DP (`verl/workers/config/rollout.py:257-260@b178a3cd56f5`), and vLLM, SGLang and TensorRT-LLM rollouts
raise `NotImplementedError` for `pipeline_model_parallel_size` > 1 (`rollout.py:262-266@b178a3cd56f5`).

NeMo-RL's colocated vLLM generation does the same with `policy.generation.vllm_cfg.tensor_parallel_size x
pipeline_parallel_size` on the policy's GPUs (`nemo_rl/models/generation/vllm/vllm_generation.py:119-126@7ea279abfbeb`);
non-colocated (`policy.generation.colocated.enabled: false`), on the generation's own GPUs,
`resources.num_nodes x resources.gpus_per_node` (`nemo_rl/algorithms/grpo.py:862-911@7ea279abfbeb`). vLLM's
`expert_parallel_size` > 1 must be a multiple of its TP, and an EP other than TP needs
`async_engine: false`; PP > 1 needs `async_engine: true` (`vllm_generation.py:128-146@7ea279abfbeb`).
ms-swift's Megatron GRPO with `--vllm_mode colocate` runs vLLM on the training ranks in groups of
`--vllm_tensor_parallel_size`, which must divide the world size
(`swift/megatron/trainers/rollout_mixin.py:403-406@3602360a5623`).
ChatLearn's rollout (`models.policy`) takes neither expert nor pipeline parallelism
(`chatlearn/configs/policy_config.py:89-90@b7af31a972eb`).

## Why
`parallel_state.initialize_model_parallel` raises `RuntimeError: world_size (W) is not divisible by
TP·PP·CP` for the dense mesh and `... is not divisible by expert_tensor_model_pipeline_parallel size`
for the expert mesh; Megatron-LM asserts the first already in `validate_args`, Megatron-Bridge in
`set_data_parallel_size`. The job has waited in the queue and dies at start-up on every rank.

## Example
```yaml
trainer:
  num_nodes: 3
  devices: 8        # W = 24
model:
  tensor_model_parallel_size: 8
  pipeline_model_parallel_size: 2   # TP·PP = 16 does not divide 24
```

## Fix
```yaml
trainer:
  num_nodes: 4      # W = 32, DP = 2
  devices: 8
model:
  tensor_model_parallel_size: 8
  pipeline_model_parallel_size: 2
```

`parlint check --fix --unsafe-fixes` sets the node count to the nearest one whose world size the layout
divides (the smaller on a tie), everywhere it is written (`#SBATCH --nodes` and the launcher's `--nnodes`
together): an **unsafe** fix, because it changes the allocation. It is not offered when the counts written
disagree (PL106) or the world size rests on a fallback.

## Framework behaviour
Megatron-Core, Megatron-LM, Megatron-Bridge and NeMo all refuse to start. The expert check uses the
effective ETP: TP when unset (Megatron-Core, Megatron-LM, NeMo), 1 when EP > 1 (Megatron-Bridge).
When some sizes are unknown, the product of the known ones is checked: every size is at least 1 and only
multiplies it, so if that product does not divide the world size, no value of the others can.

## References
- Megatron-LM `megatron/training/arguments.py:424-434@d98e8a64ddf3` (validate_args asserts W % (TP·PP·CP))
- Megatron-LM `megatron/core/parallel_state.py:815-823@d98e8a64ddf3` (dense mesh: RuntimeError
  unless W % (TP·PP·CP) = 0)
- Megatron-LM `megatron/core/parallel_state.py:871-884@d98e8a64ddf3` (expert mesh: unset ETP becomes TP;
  RuntimeError unless W % (ETP·EP·PP) = 0)
- Megatron-Bridge `src/megatron/bridge/training/config.py:1019-1026@067f987df03b` (asserts W % (TP·PP·CP);
  called by `set_data_parallel_size`, line 1037)
- Megatron-Bridge `src/megatron/bridge/models/transformer_config.py:87-88@067f987df03b` (unset ETP becomes
  1 when EP > 1)
)md",
                         kReads,
                         FixAvailability::kUnsafe};

class WorldSizeIndivisible final : public Rule {
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
    auto mesh = job.mesh();
    auto world = job.get_int(Key::kWorldSize);
    if (job.framework() == Framework::kVerl || (job.driver() == Driver::kNemoRl && job.role().empty()) ||
        job.driver() == Driver::kChatLearn || job.driver() == Driver::kMsSwift) {
      check_rollout_layout(job, out);
      // The engine's GPUs: its own where the framework gives it some, else the trainer's.
      const Fact* own = job.fact(Key::kRolloutWorldSize);
      auto rollout_world = own ? own->value.as_int() : world;
      if (rollout_world && *rollout_world > 0) check_rollout(job, *rollout_world, out);
    }
    if (!world || *world <= 0) return;
    if (!mesh) return check_known_factors(job, *world, out);
    const std::int64_t W = *world;
    if (weight_shards(job, *mesh, W, out)) return;
    const std::int64_t dense = dense_model_size(*mesh), expert = expert_model_size(*mesh);
    bool dense_bad = W % dense != 0, expert_bad = W % expert != 0;
    // On a dense model the expert mesh (PP·TP with ETP = TP) only repeats the dense check.
    if (dense_bad && !job.is_moe()) expert_bad = false;
    if (!dense_bad && !expert_bad) return check_rank_order(job, *mesh, W, out);

    const Fact* wf = job.fact(Key::kWorldSize);
    std::string what;
    if (dense_bad) what = fmt::format("TP·PP·CP = {}·{}·{} = {}", mesh->tp, mesh->pp, mesh->cp, dense);
    if (expert_bad)
      what += fmt::format("{}PP·EP·ETP = {}·{}·{} = {}", dense_bad ? " or by " : "", mesh->pp, mesh->ep,
                          mesh->etp, expert);
    std::int64_t M = min_world_size(*mesh);
    if (std::string from = table_source(job); !from.empty()) what += " (" + from + ")";

    Finding f;
    f.location = anchor(job, *wf);
    f.weak = wf->weak;
    f.message = fmt::format(
        "world size {} ({}) is not divisible by {}{}; {} refuses to start (initialize_model_parallel raises "
        "\"world_size ({}) is not divisible by {}\"). The smallest valid world size for this layout is "
        "M = PP·lcm(TP·CP, EP·ETP) = {}",
        W, wf->spelling, what, wf->weak ? " (" + wf->weak_note + ")" : "",
        framework_display_name(job.framework()), W, dense_bad ? dense : expert, M);

    if (auto g = job.get_int(Key::kGpusPerNode); g && *g > 0) {
      auto counts = nearest_valid_node_counts(M, *g, job.get_int(Key::kNodes).value_or(W / *g));
      std::vector<std::int64_t> gpus;
      for (auto n : counts) gpus.push_back(n * *g);
      f.help = fmt::format("use {} nodes of {} GPUs ({} GPUs; any multiple of M = {} works)",
                           join_numbers(counts, " or "), *g, join_numbers(gpus, " or "), M);
    } else {
      std::vector<std::int64_t> gpus;
      if (W / M > 0) gpus.push_back(W / M * M);
      gpus.push_back((W / M + 1) * M);
      f.help = fmt::format("use a multiple of M = {} GPUs ({})", M, join_numbers(gpus, " or "));
    }
    f.help += ", or change the parallel sizes so that TP·PP·CP and PP·EP·ETP divide " + std::to_string(W);

    add_related(job, *wf, f);
    if (!wf->weak) f.fix = node_count_fix(job, W, M);
    out.push_back(std::move(f));
  }

 private:
  // GTP: --tensor-parallel-num-weight-shards S shards each weight over S ranks, TP of them the TP group and
  // S / TP a weight-rematerialisation axis the world must hold too (model_parallel_config.py:28-42,
  // parallel_state.py:806-823@d98e8a64ddf3).
  static bool weight_shards(const Job& job, const MeshSizes& mesh, std::int64_t W,
                            std::vector<Finding>& out) {
    const Fact* shards = job.fact(Key::kTensorParallelNumWeightShards);
    if (!shards || !shards->location.in_file() || !shards->value.as_int()) return false;
    const std::int64_t S = *shards->value.as_int(), tp = mesh.tp;
    Finding f;
    f.location = shards->location;
    if (S < tp || S % tp != 0) {
      f.message = fmt::format(
          "tensor_parallel_num_weight_shards={} with TP={}; Megatron-Core raises "
          "\"tensor_parallel_num_weight_shards "
          "({}) must be {}\"",
          S, tp, S,
          S < tp ? fmt::format(">= tensor_model_parallel_size ({})", tp)
                 : fmt::format("divisible by tensor_model_parallel_size ({})", tp));
      f.help = fmt::format("use a multiple of TP={} (TP itself turns the weight sharding off)", tp);
      out.push_back(std::move(f));
      return true;
    }
    const std::int64_t gtp = S / tp;
    if (gtp <= 1) return false;
    if (auto n = job.get_int(Key::kNumDistributedOptimizerInstances); n && *n > 1) {
      f.message = fmt::format(
          "tensor_parallel_num_weight_shards={} (a weight-sharding factor of {}) with "
          "num_distributed_optimizer_instances={}; Megatron-Core asserts \"GTP_remat with "
          "num_distributed_optimizer_instances > 1 is not yet supported.\"",
          S, gtp, *n);
      f.help = "use one distributed-optimizer instance with weight sharding";
      out.push_back(std::move(f));
      return true;
    }
    const std::int64_t model = dense_model_size(mesh) * gtp;
    if (W % model == 0) return false;
    const Fact* wf = job.fact(Key::kWorldSize);
    f.location = anchor(job, *wf);
    f.weak = wf->weak;
    f.message = fmt::format(
        "world size {} ({}) is not divisible by TP·PP·CP·(shards/TP) = {}·{}·{}·{} = {} ({}); "
        "initialize_model_parallel raises \"world_size ({}) is not divisible by {}\"",
        W, wf->spelling, mesh.tp, mesh.pp, mesh.cp, gtp, model, describe_source(*shards, job.path()), W,
        model);
    f.help = fmt::format("use a multiple of {} GPUs, or fewer weight shards", model);
    add_related(job, *wf, f);
    out.push_back(std::move(f));
    return true;
  }

  // W3: with the TP-PP-DP rank order (use_tp_pp_dp_mapping: DP is not the outermost dimension), the dense
  // and expert grids must have the same data-parallel size when PP > 1.
  static void check_rank_order(const Job& job, const MeshSizes& mesh, std::int64_t W,
                               std::vector<Finding>& out) {
    const Fact* mapping = job.fact(Key::kUseTpPpDpMapping);
    if (!mapping || !mapping->location.in_file() || mapping->value.as_bool() != true || mesh.pp <= 1) return;
    if (!job.is_moe()) return;
    const std::int64_t dp = W / dense_model_size(mesh), edp = W / expert_model_size(mesh);
    if (dp == edp) return;
    Finding f;
    f.location = mapping->location;
    f.message = fmt::format(
        "use_tp_pp_dp_mapping with PP={} gives the attention layers DP = W/(TP·PP·CP) = {}/({}·{}·{}) = {} "
        "but "
        "the MoE layers expert DP = W/(PP·EP·ETP) = {}/({}·{}·{}) = {}; Megatron-Core asserts \"When not "
        "using "
        "pp-last rank ordering, the data parallel size of the attention and moe layers must be the same\"",
        mesh.pp, W, mesh.tp, mesh.pp, mesh.cp, dp, W, mesh.pp, mesh.ep, mesh.etp, edp);
    f.help = "remove use_tp_pp_dp_mapping (the default order puts PP last), or choose EP·ETP = TP·CP";
    out.push_back(std::move(f));
  }

  // A built-in recipe the parallel sizes come from, named where no file location can show it.
  static std::string table_source(const Job& job) {
    std::vector<std::string> names;
    std::string source;
    for (auto [k, name] : {std::pair{Key::kTensorModelParallelSize, "TP"},
                           {Key::kPipelineModelParallelSize, "PP"},
                           {Key::kContextParallelSize, "CP"},
                           {Key::kExpertModelParallelSize, "EP"},
                           {Key::kExpertTensorParallelSize, "ETP"}})
      if (const Fact* p = job.fact(k); p && !p->location.in_file() && p->origin == Origin::kRecipeDefault &&
                                       p->value.as_int().value_or(1) > 1 && p->spelling.starts_with("the ")) {
        if (source.empty()) source = p->spelling;
        if (p->spelling == source) names.push_back(name);
      }
    if (names.empty()) return "";
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
      list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return list + " from " + source;
  }

  // The setting to change: the world size where it is written, unless that is a helper outside the job
  // (a shared trainer() given num_nodes); then where the job itself chose the value (its default
  // num_nodes=1), or else a parallel size the job sets.
  // Unsafe: the nearest node count whose world size the layout divides (the smaller one on a tie), set
  // wherever that count is written (the allocation and the launcher's count alike, so they stay equal).
  static std::optional<FixRequest> node_count_fix(const Job& job, std::int64_t world,
                                                  std::int64_t min_world) {
    std::vector<const Fact*> written;
    std::optional<std::int64_t> nodes;
    for (Key k : {Key::kNodes, Key::kNnodes}) {
      const Fact* f = job.fact(k);
      if (!f || !f->location.in_file() || f->weak) continue;
      auto n = f->value.as_int();
      if (!n || *n <= 0 || (nodes && *n != *nodes)) return std::nullopt;
      nodes = n;
      written.push_back(f);
    }
    if (!nodes || world % *nodes != 0) return std::nullopt;
    std::int64_t per_node = world / *nodes;
    auto counts = nearest_valid_node_counts(min_world, per_node, *nodes);
    if (counts.empty()) return std::nullopt;
    std::int64_t to = counts.front();
    if (counts.size() == 2 && counts[1] - *nodes < *nodes - counts[0]) to = counts[1];
    FixRequest fix{
        FixApplicability::kUnsafe,
        fmt::format("run on {} nodes ({} GPUs, a multiple of M = {})", to, to * per_node, min_world),
        {}};
    for (const Fact* f : written) fix.changes.push_back(set_value(*f, Value::integer(to)));
    return fix;
  }

  static Location anchor(const Job& job, const Fact& world) {
    const SourceRange& extent = job.extent();
    auto inside = [&](const Location& l) {
      return l.in_file() && l.path == job.path() && !(l.range.start < extent.start) &&
             !(extent.end < l.range.end);
    };
    if (!extent.valid() || inside(world.location)) return world.location;
    const RelatedLocation* first_inside = nullptr;
    for (const auto& w : world.written_at) {
      if (!inside(w.location)) continue;
      if (w.message.find("(default of ") != std::string::npos) return w.location;  // a parameter default
      if (!first_inside) first_inside = &w;
    }
    if (first_inside) return first_inside->location;
    for (Key k : {Key::kPipelineModelParallelSize, Key::kTensorModelParallelSize, Key::kContextParallelSize,
                  Key::kExpertModelParallelSize, Key::kExpertTensorParallelSize})
      if (const Fact* p = job.fact(k); p && inside(p->location) && p->value.as_int().value_or(1) > 1)
        return p->location;
    return world.location;
  }

  // Where the world size was assembled, and the parallel sizes above 1 written in a file.
  static void add_related(const Job& job, const Fact& world, Finding& f) {
    for (const auto& w : world.written_at)
      if (w.location.range != world.location.range) f.related.push_back(w);
    for (Key k : {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize, Key::kContextParallelSize,
                  Key::kExpertModelParallelSize, Key::kExpertTensorParallelSize}) {
      const Fact* p = job.fact(k);
      if (p && p->location.in_file() && p->value.as_int().value_or(1) > 1)
        f.related.push_back({p->location, fmt::format("{}={} set here", key_name(k), p->value.to_string())});
    }
  }

  // Some sizes unknown: a product of the known ones that does not divide the world size fails whatever
  // the others are (each is at least 1 and multiplies the product).
  static void check_known_factors(const Job& job, std::int64_t W, std::vector<Finding>& out) {
    struct Factor {
      Key key;
      const char* name;
    };
    auto partial = [&](std::initializer_list<Factor> factors, std::string& names, std::string& values,
                       std::string& unknown) {
      std::int64_t product = 1;
      int known = 0;
      for (const auto& f : factors) {
        auto v = job.get_int(f.key);
        if (!v || *v < 1) {
          unknown += unknown.empty() ? f.name : std::string(", ") + f.name;
          continue;
        }
        names += names.empty() ? f.name : std::string("·") + f.name;
        values += values.empty() ? std::to_string(*v) : "·" + std::to_string(*v);
        product *= *v;
        ++known;
      }
      return known >= 2 ? product : 1;
    };
    std::string dn, dv, du, en, ev, eu;
    std::int64_t dense = partial({{Key::kTensorModelParallelSize, "TP"},
                                  {Key::kPipelineModelParallelSize, "PP"},
                                  {Key::kContextParallelSize, "CP"}},
                                 dn, dv, du);
    std::int64_t expert = job.is_moe() ? partial({{Key::kPipelineModelParallelSize, "PP"},
                                                  {Key::kExpertModelParallelSize, "EP"},
                                                  {Key::kExpertTensorParallelSize, "ETP"}},
                                                 en, ev, eu)
                                       : 1;
    bool dense_bad = dense > 1 && W % dense != 0, expert_bad = expert > 1 && W % expert != 0;
    if (!dense_bad && !expert_bad) return;
    const Fact* wf = job.fact(Key::kWorldSize);
    std::string what =
        dense_bad
            ? fmt::format("{} = {} = {} ({} unknown: any value only multiplies it)", dn, dv, dense, du)
            : fmt::format("{} = {} = {} ({} unknown: any value only multiplies it)", en, ev, expert, eu);
    std::int64_t bound = dense_bad ? dense : expert;
    Finding f;
    f.location = anchor(job, *wf);
    f.weak = wf->weak;
    f.message = fmt::format(
        "world size {} ({}) is not divisible by {}{}; {} refuses to start (initialize_model_parallel raises "
        "\"world_size ({}) is not divisible by ...\")",
        W, wf->spelling, what, wf->weak ? " (" + wf->weak_note + ")" : "",
        framework_display_name(job.framework()), W);
    f.help = fmt::format("use a multiple of {} GPUs, or change the parallel sizes so that they divide {}",
                         bound, W);
    add_related(job, *wf, f);
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(WorldSizeIndivisible);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
