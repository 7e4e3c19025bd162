// PL603 cuda-graph-config: CUDA graph implementation, scopes and what they cannot be combined with.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kCudaGraphImpl,        Key::kCudaGraphScope,
                          Key::kCudaGraphModules,     Key::kInferenceCudaGraphScope,
                          Key::kEnableCudaGraph,      Key::kExternalCudaGraph,
                          Key::kCpuOffloading,        Key::kCheckForNanInLossAndGrad,
                          Key::kRecomputeGranularity, Key::kNumMoeExperts};

constexpr RuleInfo kInfo{
    "PL603",
    "cuda-graph-config",
    Severity::kError,
    "CUDA graph settings Megatron-Core, Megatron-LM or Megatron-Bridge refuse (implementation, scopes, "
    "full-iteration graphs with scopes or the NaN check, CPU offloading, full recompute)",
    R"md(# PL603 cuda-graph-config

## What it does
Checks the CUDA graph settings a job writes (`--cuda-graph-impl`, `--cuda-graph-scope` /
`--cuda-graph-modules`, the deprecated `--enable-cuda-graph` / `--external-cuda-graph`,
`model.cuda_graph_impl`, `model.cuda_graph_scope`):
- the implementation is `none`, `transformer_engine`, `local` or `full_iteration`; the deprecated
  switches are not combined with `cuda_graph_impl` or with each other; `cuda_graph_scope` (deprecated)
  and `cuda_graph_modules` are not both given;
- a `full_iteration` graph has no scopes, and training turns the NaN check off
  (`--no-check-for-nan-in-loss-and-grad`, Bridge's `rerun_state_machine.check_for_nan_in_loss=False`);
- per-layer graphs (`local`, `transformer_engine`) are not combined with CPU offloading, nor with full
  recomputation;
- scopes: not `moe` with `moe_router`; `moe_preprocess` only with `moe_router` (Transformer Engine
  graphs); no `moe`/`moe_router` scope on a model without experts;
- Megatron-Bridge runs `cuda_graph_impl: local` only as a full-iteration (or inference) graph: scoped
  graphs need `transformer_engine`.

Only values the job writes are judged; the NaN check counts as on when a configuration file or a recipe
that builds on no other leaves it out.

## Why
Megatron-Core asserts in `TransformerConfig.__post_init__` (`Invalid cuda graph implementation: ...`,
`cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".`, `CUDA graphs not supported with
CPU offloading.`, `full recompute is only supported with full iteration CUDA graph.`, `moe cuda graph is
only supported for MoE.`); Megatron-LM asserts `--no-check-for-nan-in-loss-and-grad should be set with
--cuda-graph-impl=full_iteration for training.`; Megatron-Bridge raises `Megatron Bridge supports
model.cuda_graph_impl="local" only for full-iteration CUDA graphs`.

## Example
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --cuda-graph-impl full_iteration --cuda-graph-scope attn \
  --no-check-for-nan-in-loss-and-grad --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```

## Fix
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --cuda-graph-impl full_iteration \
  --no-check-for-nan-in-loss-and-grad --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```

## Framework behaviour
| check | Megatron-Core / Megatron-LM | Megatron-Bridge |
|---|---|---|
| implementation, scopes, CPU offloading, recompute | asserts (`TransformerConfig`) | same |
| full iteration with the NaN check on | asserts (`validate_args`) | asserts (`validate()`) |
| `local` with scopes | accepted (Megatron-Core's graph manager) | `ValueError` |

## References
- Megatron-LM `megatron/core/transformer/transformer_config.py:2698-2797@d98e8a64ddf3` (implementation,
  deprecated switches, scopes, full iteration), `:2799-2860` (CPU offloading, MoE scopes, recompute)
- Megatron-LM `megatron/training/arguments.py:1235-1237@d98e8a64ddf3` (the NaN check)
- Megatron-Bridge `src/megatron/bridge/utils/cuda_graph.py:134-153@067f987df03b` (local graphs),
  `src/megatron/bridge/training/config.py:1508-1512@067f987df03b` (the NaN check)
)md",
    kReads};

// The scope names a setting lists: a list of names, or one name ("attn", "full"). nullopt: not written
// or not readable.
std::optional<std::vector<std::string>> scopes(const Fact* f) {
  if (!f) return std::nullopt;
  std::vector<std::string> out;
  if (f->value.kind() == Value::Kind::kNull) return out;  // cleared
  auto add = [&](const Value& v) {
    if (v.kind() != Value::Kind::kString) return false;
    std::string name = v.text();
    if (auto dot = name.rfind('.'); dot != std::string::npos)
      name = name.substr(dot + 1);  // CudaGraphScope.attn
    out.push_back(name);
    return true;
  };
  if (f->value.kind() == Value::Kind::kList) {
    for (const Value& v : f->value.items())
      if (!add(v)) return std::nullopt;
  } else if (!add(f->value)) {
    return std::nullopt;
  }
  return out;
}

bool contains(const std::vector<std::string>& v, std::string_view name) {
  return std::find(v.begin(), v.end(), name) != v.end();
}

class CudaGraphConfig final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Framework fw = job.framework();
    if (fw == Framework::kMegatronDeepSpeed) return;
    const bool mlm = fw == Framework::kMegatronLM, bridge = fw == Framework::kMegatronBridge;
    auto report = [&](const Fact* at, std::string message, std::string help, const Fact* other = nullptr) {
      out.push_back(finding_at(*at, std::move(message), std::move(help), other));
    };
    const Fact* impl_fact = job.fact_in_file(Key::kCudaGraphImpl);
    const std::string impl = impl_fact && impl_fact->value.kind() == Value::Kind::kString
                                 ? impl_fact->value.text()
                                 : std::string();
    const Fact* enable = job.fact_in_file(Key::kEnableCudaGraph);
    const Fact* external = job.fact_in_file(Key::kExternalCudaGraph);
    const bool enable_on = enable && enable->value.as_bool() == true;
    const bool external_on = external && external->value.as_bool() == true;

    // G1: the implementation and the deprecated switches.
    if (!impl.empty() && impl != "none" && impl != "transformer_engine" && impl != "local" &&
        impl != "full_iteration")
      return report(
          impl_fact,
          fmt::format("cuda_graph_impl \"{}\" is not an implementation; Megatron-Core asserts \"Invalid "
                      "cuda graph implementation: {}\"",
                      impl, impl),
          "use none, transformer_engine, local or full_iteration");
    if ((enable_on || external_on) && !impl.empty() && impl != "none")
      return report(enable_on ? enable : external,
                    fmt::format("{} together with cuda_graph_impl \"{}\"; Megatron-Core asserts \"Do not use "
                                "enable_cuda_graph or external_cuda_graph with cuda_graph_impl.\"",
                                enable_on ? "enable_cuda_graph" : "external_cuda_graph", impl),
                    "remove the deprecated switch and keep cuda_graph_impl", impl_fact);
    if (enable_on && external_on)
      return report(
          external,
          "enable_cuda_graph and external_cuda_graph together; Megatron-Core asserts \"enable_cuda_graph "
          "and external_cuda_graph cannot be enabled at the same time.\"",
          "use cuda_graph_impl local or transformer_engine instead of both switches", enable);
    const Fact* scope_fact = job.fact_in_file(Key::kCudaGraphScope);
    const Fact* modules_fact = job.fact_in_file(Key::kCudaGraphModules);
    auto scope = scopes(scope_fact), modules = scopes(modules_fact);
    if (scope && scope_fact->value.kind() != Value::Kind::kNull && modules && !modules->empty() &&
        !(modules->size() == 1 && (*modules)[0] == "full"))
      return report(
          modules_fact,
          "cuda_graph_scope and cuda_graph_modules together; Megatron-Core asserts \"cuda_graph_scope and "
          "cuda_graph_modules cannot be set together.\"",
          "keep cuda_graph_modules (cuda_graph_scope is deprecated)", scope_fact);
    const std::string effective = !impl.empty() ? impl
                                  : enable_on   ? "local"
                                  : external_on ? "transformer_engine"
                                                : "";
    if (effective.empty() || effective == "none") return;
    // Scopes set by code parlint cannot follow (a helper's condition) leave the scope checks undecided.
    for (Key k : {Key::kCudaGraphScope, Key::kCudaGraphModules})
      if (const Fact* f = job.fact(k); f && !scopes(f)) return;
    const Fact* at = impl_fact ? impl_fact : enable_on ? enable : external;
    std::vector<std::string> names = modules ? *modules : scope ? *scope : std::vector<std::string>{};
    std::erase(names, "full");  // the deprecated whole-layer scope
    const Fact* names_fact = modules ? modules_fact : scope_fact;

    // G2: full-iteration graphs capture everything, and need the NaN check off in training.
    if (effective == "full_iteration") {
      if (!names.empty())
        return report(
            names_fact,
            fmt::format("cuda_graph_impl full_iteration with the scopes [{}]; Megatron-Core asserts "
                        "\"cuda_graph_modules must be empty when cuda_graph_impl=\"full_iteration\".\"",
                        fmt::join(names, ", ")),
            "remove the scopes: a full-iteration graph captures the whole step", at);
      if (mlm || bridge) {
        const Fact* nan = job.fact(Key::kCheckForNanInLossAndGrad);
        const bool on = nan ? nan->location.in_file() && nan->value.as_bool() == true : job.leaves_defaults();
        if (on && (job.launch() == LaunchKind::kNone || job.gpu_entry_point()))
          return report(
              at,
              bridge ? "a full-iteration CUDA graph with the NaN check on; Megatron-Bridge asserts "
                       "\"check_for_nan_in_loss must be disabled when using full_iteration CUDA graph.\""
                     : "--cuda-graph-impl full_iteration with the NaN check on; Megatron-LM asserts "
                       "\"--no-check-for-nan-in-loss-and-grad should be set with "
                       "--cuda-graph-impl=full_iteration for training.\"",
              bridge ? "set rerun_state_machine.check_for_nan_in_loss = False"
                     : "add --no-check-for-nan-in-loss-and-grad",
              nan);
      }
      return;
    }
    // G3: per-layer graphs and CPU offloading.
    if (const Fact* off = job.fact_in_file(Key::kCpuOffloading); off && off->value.as_bool() == true)
      return report(
          off,
          fmt::format("CPU offloading with {} CUDA graphs; Megatron-Core raises \"CUDA graphs not supported "
                      "with CPU offloading.\"",
                      effective),
          "turn CPU offloading off, or use a full_iteration graph", at);
    // G5: full recompute only with full-iteration graphs.
    if (const Fact* g = job.fact_in_file(Key::kRecomputeGranularity);
        g && g->value.kind() == Value::Kind::kString && g->value.text() == "full")
      return report(
          g,
          fmt::format("full recomputation with {} CUDA graphs; Megatron-Core asserts \"full recompute is "
                      "only supported with full iteration CUDA graph.\"",
                      effective),
          "use selective recomputation, or a full_iteration graph", at);
    // G7: Megatron-Bridge runs local graphs only as full-iteration or inference graphs.
    if (bridge && effective == "local" && !contains(names, "full_iteration") &&
        !job.fact_in_file(Key::kInferenceCudaGraphScope))
      return report(
          at,
          fmt::format(
              "cuda_graph_impl local{}; Megatron-Bridge raises \"Megatron Bridge supports "
              "model.cuda_graph_impl=\"local\" only for full-iteration CUDA graphs\"",
              names.empty() ? std::string() : fmt::format(" with the scopes [{}]", fmt::join(names, ", "))),
          "use cuda_graph_impl transformer_engine for scoped graphs (or full_iteration for the whole step)");
    // G4: MoE scopes.
    if (names.empty()) return;
    if (contains(names, "moe") && contains(names, "moe_router"))
      return report(
          names_fact,
          "the CUDA graph scopes hold both moe and moe_router; Megatron-Core asserts \"cuda_graph_modules "
          "must not contain both moe and moe_router.\"",
          "keep moe_router (with moe_preprocess) or moe");
    if (effective == "transformer_engine" && contains(names, "moe_preprocess") &&
        !contains(names, "moe_router"))
      return report(
          names_fact,
          "the moe_preprocess CUDA graph scope without moe_router; Megatron-Core asserts \"moe_preprocess "
          "cuda graph is only supported with moe_router cuda graph.\"",
          "add moe_router to the scopes");
    const Fact* experts = job.fact(Key::kNumMoeExperts);
    const bool dense = experts &&
                       (experts->value.kind() == Value::Kind::kNull ||
                        (experts->value.as_int() && *experts->value.as_int() <= 1)) &&
                       (experts->location.in_file() || job.known_dense());
    if (dense && (contains(names, "moe") || contains(names, "moe_router")))
      return report(
          names_fact,
          "MoE CUDA graph scopes on a model without experts; Megatron-Core asserts \"moe cuda graph is only "
          "supported for MoE.\"",
          "remove moe and moe_router from the scopes", experts);
  }
};

PARLINT_REGISTER_RULE(CudaGraphConfig);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
