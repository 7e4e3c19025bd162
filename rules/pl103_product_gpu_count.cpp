// PL103 product-gpu-count: GPU counts sized with PP·TP·CP·EP·ETP instead of PP·lcm(TP·CP, EP·ETP).
#include <fmt/format.h>

#include <numeric>

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
                          Key::kGpusPerNode,
                          Key::kWorldSize};

constexpr RuleInfo kInfo{
    "PL103",
    "product-gpu-count",
    Severity::kInfo,
    "a node/GPU count computed as a product including TP and EP (warning), or an MoE job sized as "
    "PP·TP·CP·EP·ETP GPUs while PP·lcm(TP·CP, EP·ETP) is the minimum (info)",
    R"md(# PL103 product-gpu-count

## What it does
Finds GPU counts computed as the full product PP·TP·CP·EP·ETP.
- **warning**: an arithmetic expression whose result sets a node count, GPU count or world size
  multiplies both a TP and an EP size: the over-allocating formula. Shell arithmetic
  (`NODES=$(( TP*PP*EP/8 ))`), `expr` (`NODES=$(expr $TP \* $PP \* $EP / 8)`) and Python
  (`num_nodes = tp * pp * ep // 8`) are read alike.
- **info**: an MoE job whose world size equals that product while the minimum
  M = PP·lcm(TP·CP, EP·ETP) is smaller; the note gives M, the data-parallel sizes of both meshes, and
  the node count for M.

## Why
Megatron-Core lays the dense mesh (TP·CP·DP) and the expert mesh (ETP·EP·EDP) over the *same* GPUs
of each pipeline stage. Multiplying TP and EP counts the same GPUs twice. A world size equal to the
product is valid — it doubles (or more) the data parallelism — and NVIDIA's own DeepSeek-V3
benchmark runs TP2 PP8 EP64 on 1024 GPUs, exactly the product. But when the count came from the
product formula rather than a wish for more DP, M GPUs would have done the same work per replica.

## Example
```yaml
trainer:
  num_nodes: 2
  devices: 8        # W = 16 = PP·TP·CP·EP·ETP = 1·2·1·8·1
model:
  num_moe_experts: 32
  tensor_model_parallel_size: 2
  expert_model_parallel_size: 8
  expert_tensor_parallel_size: 1
```

## Fix
Nothing is wrong if DP = 8 and expert DP = 2 are intended. Otherwise one node suffices:
```yaml
trainer:
  num_nodes: 1      # W = 8 = M: DP = 4, expert DP = 1
  devices: 8
model:
  num_moe_experts: 32
  tensor_model_parallel_size: 2
  expert_model_parallel_size: 8
  expert_tensor_parallel_size: 1
```

## Framework behaviour
Valid in every framework; this is advice, not an error.

## References
- Megatron-LM `megatron/core/parallel_state.py:822-823@d98e8a64ddf3` and `:881-884` (W must be a multiple
  of TP·PP·CP and of ETP·EP·PP, so the smallest valid W is PP·lcm(TP·CP, EP·ETP))
- Megatron-Bridge `skills/nemo-mbridge-perf-parallelism-strategies/SKILL.md:151-153@067f987df03b` (calls
  PP·TP·CP·EP·ETP wrong: it over-allocates GPUs)
- Megatron-Bridge `skills/nemo-mbridge-perf-parallelism-strategies/SKILL.md:148@067f987df03b` (gives the
  minimum as PP·max(TP·CP, EP·ETP): the same as the lcm only when one size divides the other; TP 4, EP 6
  needs 12, not 6)
- Megatron-Bridge `src/megatron/bridge/perf_recipes/deepseek/h100/deepseek_v3.py:28-38@067f987df03b`
  (DeepSeek-V3 on 1024 H100: TP 2, PP 8, EP 64, exactly the product)
)md",
    kReads};

class ProductGpuCount final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const ParsedFile& file, std::vector<Finding>& out) const override {
    for (const SizeExpression& e : file.size_expressions) {
      bool tp = false, ep = false;
      // With every size known, the product over-allocates only when the meshes overlap: with
      // gcd(TP·CP, EP·ETP) = 1 (TP = 1, say) it equals PP·lcm(TP·CP, EP·ETP), the right count.
      std::optional<std::int64_t> dense = 1, expert = 1;
      for (std::size_t i = 0; i < e.factors.size(); ++i) {
        Key k = e.factors[i];
        std::int64_t value = 0;  // 0: not known there
        if (i < e.factor_values.size() && e.factor_values[i]) value = *e.factor_values[i];
        bool is_dense = k == Key::kTensorModelParallelSize || k == Key::kContextParallelSize;
        bool is_expert = k == Key::kExpertModelParallelSize || k == Key::kExpertTensorParallelSize;
        tp |= is_dense;
        ep |= is_expert;
        if (!is_dense && !is_expert) continue;
        auto& side = is_dense ? dense : expert;
        if (!side || value <= 0 || value >= (1 << 24))
          side.reset();
        else
          side = *side * value;
      }
      if (!tp || !ep) continue;
      // One side known to be 1 (TP = 1 written above the formula) makes the product exact whatever the
      // other side is.
      if ((dense && *dense == 1) || (expert && *expert == 1)) continue;
      if (dense && expert && std::gcd(*dense, *expert) == 1) continue;
      const char* what = e.target_key == Key::kNodes       ? "node count"
                         : e.target_key == Key::kWorldSize ? "world size"
                                                           : "GPU count";
      Finding f;
      f.location = e.location;
      f.severity = Severity::kWarning;
      f.message = fmt::format(
          "{} computes the {} as a product of both the tensor/context and the expert parallel sizes; the "
          "dense "
          "mesh (TP·CP) and the expert mesh (EP·ETP) share each pipeline stage's GPUs, so this "
          "over-allocates "
          "whenever they overlap",
          e.target, what);
      f.help =
          "size with PP·lcm(TP·CP, EP·ETP) GPUs (for powers of two: PP·max(TP·CP, EP·ETP)); any multiple of "
          "it is valid and only adds data parallelism";
      out.push_back(std::move(f));
    }
  }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.is_moe()) return;
    auto mesh = job.mesh();
    auto world = job.get_int(Key::kWorldSize);
    if (!mesh || !world) return;
    std::int64_t product = product_world_size(*mesh), M = min_world_size(*mesh);
    if (*world != product || M >= product) return;
    auto dp = data_parallel_size(*mesh, *world), edp = expert_data_parallel_size(*mesh, *world);
    auto dp_min = data_parallel_size(*mesh, M), edp_min = expert_data_parallel_size(*mesh, M);
    if (!dp || !edp || !dp_min || !edp_min) return;

    const Fact* wf = job.fact(Key::kWorldSize);
    Finding f;
    f.location = wf->location;
    f.message = fmt::format(
        "world size {} equals the product PP·TP·CP·EP·ETP = {}·{}·{}·{}·{}, but this layout needs only "
        "M = PP·lcm(TP·CP, EP·ETP) = {} GPUs: the dense and expert meshes share each pipeline stage's GPUs. "
        "At {} GPUs DP = {} and expert DP = {}; at {} GPUs DP = {} and expert DP = {}",
        *world, mesh->pp, mesh->tp, mesh->cp, mesh->ep, mesh->etp, M, *world, *dp, *edp, M, *dp_min,
        *edp_min);
    f.help =
        "valid as it is if the extra data parallelism is intended; if the GPU count came from the product "
        "formula, ";
    auto g = job.get_int(Key::kGpusPerNode);
    if (g && *g > 0 && M % *g == 0)
      f.help += fmt::format("{} node{} of {} GPUs ({} GPUs) run{} the same layout", M / *g,
                            M / *g == 1 ? "" : "s", *g, M, M / *g == 1 ? "s" : "");
    else
      f.help += fmt::format("{} GPUs run the same layout", M);
    for (const auto& w : wf->written_at)
      if (w.location.range != wf->location.range) f.related.push_back(w);
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(ProductGpuCount);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
