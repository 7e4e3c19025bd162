// PL102 world-size-indivisible: the world size is not a multiple of the dense or expert model-parallel size.
#include <fmt/format.h>

#include <optional>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize,
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

The rollout and generation engines of the post-training frameworks (verl, NeMo-RL, ChatLearn,
ms-swift) are checked against their own GPUs by PL110 rollout-layout.

A NeMo-RL policy trains on its share of `cluster.num_nodes x cluster.gpus_per_node`: generation that is
not colocated takes GPUs of a single node or whole nodes of several, and so does a reward model when the
data routes a task to it (`data.{train,validation,default}.env_name: reward_model`;
`env.reward_model.resources.gpus_per_node` of a single node, `.num_nodes` of several:
`nemo_rl/algorithms/grpo.py:759-818@7ea279abfbeb`). The world checked is that share, as NeMo-RL computes it;
the help then asks for a share that is a multiple of M and no node count is offered as a fix (more nodes
change what the other roles take, not the share's GPUs per node).

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
- NeMo-RL `nemo_rl/algorithms/grpo.py:759-818@7ea279abfbeb` (the reward model's nodes or GPUs leave the
  policy the rest of the cluster) and `grpo.py:855-915@7ea279abfbeb` (non-colocated generation's share)
)md",
                         kReads,
                         FixAvailability::kUnsafe};

class WorldSizeIndivisible final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto mesh = job.mesh();
    auto world = job.get_int(Key::kWorldSize);
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

    if (job.shares_cluster()) {
      // A share of a cluster split with other roles: more nodes change what the others take, not the
      // share's GPUs per node, so no node count is advised and no fix offered.
      f.help = fmt::format(
          "make the job's share of the cluster ({}) a multiple of M = {}: give the other roles fewer or more "
          "GPUs, or a larger cluster",
          wf->spelling, M);
    } else if (auto g = job.get_int(Key::kGpusPerNode); g && *g > 0) {
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
    if (!wf->weak && !job.shares_cluster()) f.fix = node_count_fix(job, W, M);
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
