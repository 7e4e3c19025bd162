// PL307 moe-dispatcher-config: token dispatcher, flex backend and their options in combinations
// Megatron-Core or Megatron-Bridge refuse.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kMoeTokenDispatcherType,  Key::kMoeFlexDispatcherBackend,
                          Key::kMoeEnableDeepep,         Key::kMoeDispatchFwdDtype,
                          Key::kMoeCombineBwdDtype,      Key::kMoeExpertRankCapacityFactor,
                          Key::kExpertModelParallelSize, Key::kExpertTensorParallelSize,
                          Key::kTensorModelParallelSize, Key::kNumMoeExperts};

constexpr RuleInfo kInfo{
    "PL307",
    "moe-dispatcher-config",
    Severity::kError,
    "MoE token dispatcher settings Megatron-Core refuses (unknown dispatcher, a flex backend without the "
    "flex dispatcher, DeepEP without a TP·EP group, DeepEP on GB200/GB300/Rubin under Megatron-Bridge)",
    R"md(# PL307 moe-dispatcher-config

## What it does
Checks the MoE token dispatcher (`--moe-token-dispatcher-type`, `model.moe_token_dispatcher_type`), the
flex dispatcher's backend (`--moe-flex-dispatcher-backend`, `moe_flex_dispatcher_backend`) and the
options that need one of them, as written in the job:
- the dispatcher is one of `allgather`, `alltoall`, `flex` (`alltoall_seq` was removed in
  Megatron-Core 0.13);
- `moe_enable_deepep` (deprecated) needs `flex` and cannot be combined with the `hybridep` backend;
- the `ncclep` backend needs `flex`;
- `moe_dispatch_fwd_dtype` / `moe_combine_bwd_dtype` other than `bf16` need `flex` with `ncclep`;
- `moe_expert_rank_capacity_factor` needs the `hybridep` or `ncclep` backend;
- the `deepep` and `ncclep` backends need an expert group of more than one rank (ETP·EP > 1);
- under Megatron-Bridge, `deepep` runs only on Ampere, Hopper, B200 and B300: on a GB200, GB300,
  VR200 or R100 profile the configuration is refused;
- Megatron-Bridge's performance launcher refuses `hybridep` with EP > 72 on NVL72 systems.

A setting left at its default is not judged where it may come from `$EXTRA_ARGS`; a recipe's value, or a
default of a launch whose every argument parlint read, is (`-ep 1` with the recipe's ETP 1 under DeepEP),
and a GPU check needs a
chosen profile (`--cluster`, the configuration, or the GPU a recipe's name targets): the default profile
is never the reason for a finding.

## Why
Megatron-Core validates these in `TransformerConfig.__post_init__` and raises `ValueError` before the
model is built, e.g. `moe_flex_dispatcher_backend='ncclep' requires moe_token_dispatcher_type='flex'.`
An unknown dispatcher type fails when the first MoE layer is built (`Unsupported token dispatcher type`).
The DeepEP and NCCL-EP managers assert `DeepEP dispatcher requires TPxEP > 1` when the layer is built.
Megatron-Bridge checks the GPU in `ConfigContainer.validate()`: `DeepEP is supported for Ampere, Hopper,
and Blackwell (B200/B300) GPUs. Current GPU: ...` (a GB200's compute capability is 10.x and its name
is not "NVIDIA B200").

## Example
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --num-experts 64 --expert-model-parallel-size 8 \
  --moe-token-dispatcher-type alltoall --moe-flex-dispatcher-backend ncclep
```

## Fix
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --num-experts 64 --expert-model-parallel-size 8 \
  --moe-token-dispatcher-type flex --moe-flex-dispatcher-backend ncclep
```

## Framework behaviour
| check | Megatron-Core / Megatron-LM / NeMo 2 | Megatron-Bridge |
|---|---|---|
| dispatcher value | `ValueError` at the first MoE layer (Megatron-LM's parser refuses the choice first) | same |
| deepep, ncclep, dtypes, rank capacity factor | `ValueError` in `TransformerConfig` | same |
| ETP·EP = 1 with deepep/ncclep | `AssertionError` when the dispatcher is built | same |
| deepep on GB200/GB300/VR200/R100 | not checked (parlint does not report it) | `ValueError` in `validate()` |
| hybridep, EP > 72, NVL72 | not checked | `ValueError` in the performance launcher |

Megatron-DeepSpeed has no such dispatcher and is not checked.

## References
- Megatron-LM `megatron/core/transformer/transformer_config.py:891-898@d98e8a64ddf3` (the choices and
  defaults), `:1743-1791` (deepep, ncclep, dispatch dtypes), `:1868-1882` (rank capacity factor)
- Megatron-LM `megatron/core/transformer/moe/moe_layer.py:329-331@d98e8a64ddf3` (unsupported dispatcher)
- Megatron-LM `megatron/core/transformer/moe/token_dispatcher.py:1836,1854@d98e8a64ddf3` (TPxEP > 1)
- Megatron-LM commit 9e3adb5334 (core_v0.13.0): `alltoall_seq` removed
- Megatron-Bridge `src/megatron/bridge/training/flex_dispatcher_backend.py:88-109@067f987df03b`, called
  from `src/megatron/bridge/training/config.py:1650-1654`
- Megatron-Bridge `scripts/performance/utils/utils.py:321-328@067f987df03b` (HybridEP within 72 ranks)
)md",
    kReads};

// A string setting as the job writes it (nullptr: not written, or not a string).
const Fact* written_text(const Job& job, Key key) {
  const Fact* f = job.fact_in_file(key);
  return f && f->value.kind() == Value::Kind::kString ? f : nullptr;
}

bool deepep_refused_gpu(const std::string& gpu) {
  return gpu == "gb200" || gpu == "gb300" || gpu == "vr200" || gpu == "r100";
}

class MoeDispatcherConfig final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Framework fw = job.framework();
    if (fw == Framework::kMegatronDeepSpeed) return;
    const Fact* dispatcher = written_text(job, Key::kMoeTokenDispatcherType);
    const Fact* backend = written_text(job, Key::kMoeFlexDispatcherBackend);
    const std::string d = dispatcher ? dispatcher->value.text() : "";
    const std::string b = backend ? backend->value.text() : "";
    auto report = [&](const Fact* at, std::string message, std::string help, const Fact* other = nullptr,
                      std::string other_note = {}) {
      out.push_back(finding_at(*at, std::move(message), std::move(help), other, other_note));
    };

    // E7: the dispatcher value.
    if (dispatcher && d != "allgather" && d != "alltoall" && d != "flex") {
      const auto& core = job.megatron_core();
      if (d == "alltoall_seq" && core && core->before(0, 13)) return;  // accepted before 0.13
      report(
          dispatcher,
          fmt::format("moe_token_dispatcher_type \"{}\" is not a token dispatcher; Megatron-Core accepts "
                      "allgather, alltoall and flex and raises \"Unsupported token dispatcher type: {}\" "
                      "when it builds the first MoE layer{}",
                      d, d, d == "alltoall_seq" ? " (alltoall_seq was removed in Megatron-Core 0.13)" : ""),
          "use alltoall (alltoall_seq's successor) or flex");
      return;
    }
    const bool flex = d == "flex";

    // M2: the deprecated DeepEP switch.
    if (const Fact* deepep = job.fact(Key::kMoeEnableDeepep);
        deepep && deepep->location.in_file() && deepep->value.as_bool() == true) {
      if (dispatcher && !flex)
        report(deepep,
               fmt::format("moe_enable_deepep with moe_token_dispatcher_type \"{}\" ({}); Megatron-Core "
                           "raises \"DeepEP backend is only supported with flex token dispatcher.\"",
                           d, describe_source(*dispatcher, job.path())),
               "set moe_token_dispatcher_type to flex and moe_flex_dispatcher_backend to deepep (the "
               "replacement of the deprecated moe_enable_deepep)",
               dispatcher, "dispatcher set here");
      else if (b == "hybridep")
        report(deepep,
               fmt::format("moe_enable_deepep with moe_flex_dispatcher_backend \"hybridep\" ({}); "
                           "Megatron-Core raises \"Only one backend is supported for flex token "
                           "dispatcher.\"",
                           describe_source(*backend, job.path())),
               "remove moe_enable_deepep (deprecated) and keep one backend", backend, "backend set here");
    }

    // M3: ncclep needs the flex dispatcher.
    if (b == "ncclep" && dispatcher && !flex)
      report(backend,
             fmt::format("moe_flex_dispatcher_backend \"ncclep\" with moe_token_dispatcher_type \"{}\" ({}); "
                         "Megatron-Core raises \"moe_flex_dispatcher_backend='ncclep' requires "
                         "moe_token_dispatcher_type='flex'.\"",
                         d, describe_source(*dispatcher, job.path())),
             "set moe_token_dispatcher_type to flex", dispatcher, "dispatcher set here");

    // M4: quantised dispatch needs flex + ncclep.
    for (Key k : {Key::kMoeDispatchFwdDtype, Key::kMoeCombineBwdDtype}) {
      const Fact* dtype = written_text(job, k);
      if (!dtype || dtype->value.text() == "bf16") continue;
      const bool other_dispatcher = dispatcher && !flex;
      const bool other_backend = backend && b != "ncclep";
      if (!other_dispatcher && !other_backend) continue;
      const Fact* cause = other_dispatcher ? dispatcher : backend;
      report(dtype,
             fmt::format("{} \"{}\" with {} ({}); Megatron-Core raises \"moe_dispatch_fwd_dtype / "
                         "moe_combine_bwd_dtype require the 'ncclep' flex dispatcher backend.\"",
                         key_name(k), dtype->value.text(),
                         other_dispatcher ? fmt::format("moe_token_dispatcher_type \"{}\"", d)
                                          : fmt::format("moe_flex_dispatcher_backend \"{}\"", b),
                         describe_source(*cause, job.path())),
             "use moe_token_dispatcher_type flex with moe_flex_dispatcher_backend ncclep, or keep bf16",
             cause, "set here");
      break;
    }

    // M5: the per-rank capacity factor needs hybridep or ncclep.
    if (const Fact* cap = job.fact(Key::kMoeExpertRankCapacityFactor);
        cap && cap->location.in_file() && cap->value.is_known() && cap->value.kind() != Value::Kind::kNull &&
        backend && b != "hybridep" && b != "ncclep")
      report(cap,
             fmt::format("moe_expert_rank_capacity_factor with moe_flex_dispatcher_backend \"{}\" ({}); "
                         "Megatron-Core raises \"moe_expert_rank_capacity_factor requires "
                         "moe_flex_dispatcher_backend to be 'hybridep' or 'ncclep'.\"",
                         b, describe_source(*backend, job.path())),
             "use the hybridep or ncclep backend, or remove moe_expert_rank_capacity_factor", backend,
             "backend set here");

    if (!flex || !(b == "deepep" || b == "ncclep")) {
      hybridep_domain(job, dispatcher, backend, out);
      return;
    }
    // M1: DeepEP and NCCL-EP dispatch within the expert TP x EP group; one rank has no peer.
    // Sizes known to run: written, the recipe's, or defaults of a launch whose every flag was read.
    if (job.reliable_fact(Key::kExpertModelParallelSize) &&
        job.get_int(Key::kNumMoeExperts).value_or(0) > 0) {
      auto ep = job.get_int(Key::kExpertModelParallelSize);
      auto etp = job.is_written(Key::kExpertTensorParallelSize)  ? job.get_int(Key::kExpertTensorParallelSize)
                 : job.is_written(Key::kTensorModelParallelSize) ? job.get_int(Key::kTensorModelParallelSize)
                 : job.reliable_fact(Key::kExpertTensorParallelSize)
                     ? job.get_int(Key::kExpertTensorParallelSize)
                     : std::nullopt;
      if (ep && etp && *ep * *etp <= 1)
        report(
            backend,
            fmt::format("the {} backend dispatches tokens within the expert tensor x expert parallel group, "
                        "which has ETP·EP = {}·{} = 1 rank here; Megatron-Core asserts \"{} dispatcher "
                        "requires TPxEP > 1\" when it builds the MoE layers",
                        b, *etp, *ep, b == "deepep" ? "DeepEP" : "NCCL EP"),
            "set expert_model_parallel_size > 1, or use the alltoall dispatcher",
            job.fact(Key::kExpertModelParallelSize), "EP set here");
    }
    // M11: Megatron-Bridge accepts DeepEP on SM 8.x/9.x and on GPUs named B200/B300 only.
    if (b == "deepep" && fw == Framework::kMegatronBridge && job.cluster_chosen() &&
        deepep_refused_gpu(job.cluster().gpu))
      report(backend,
             fmt::format("the deepep backend on {} GPUs (the {} profile); Megatron-Bridge raises \"DeepEP is "
                         "supported for Ampere, Hopper, and Blackwell (B200/B300) GPUs. Current GPU: ...\" "
                         "in ConfigContainer.validate()",
                         job.cluster().gpu, job.cluster().name),
             "use moe_flex_dispatcher_backend hybridep on GB200/GB300 (NVL72), or the alltoall dispatcher");
  }

  // M13: Megatron-Bridge's performance launcher keeps HybridEP within one 72-GPU NVLink domain.
  static void hybridep_domain(const Job& job, const Fact* dispatcher, const Fact* backend,
                              std::vector<Finding>& out) {
    if (!dispatcher || dispatcher->value.text() != "flex" || !backend || backend->value.text() != "hybridep")
      return;
    const RecipeInfo* r = job.recipe();
    if (job.framework() != Framework::kMegatronBridge || !r || r->package != "perf_recipes") return;
    if (!job.cluster_chosen() || !deepep_refused_gpu(job.cluster().gpu)) return;
    auto ep = job.get_int(Key::kExpertModelParallelSize);
    if (!ep || *ep <= 72) return;
    Finding f;
    const Fact* at = job.fact(Key::kExpertModelParallelSize);
    f.location = at->location.in_file() ? at->location : backend->location;
    f.message = fmt::format(
        "the hybridep backend with EP={} on {} GPUs (the {} profile); Megatron-Bridge's performance launcher "
        "raises \"HybridEP expert parallel size must not exceed the 72-rank NVLink domain.\"",
        *ep, job.cluster().gpu, job.cluster().name);
    f.help = "keep expert_model_parallel_size at most 72";
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(MoeDispatcherConfig);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
