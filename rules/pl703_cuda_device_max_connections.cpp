// PL703 cuda-device-max-connections: Megatron-LM with TP or CP > 1 before Blackwell needs the variable at 1.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kContextParallelSize, Key::kSequenceParallel,
                          Key::kCudaDeviceMaxConnections, Key::kChecksCudaDeviceMaxConnections};

constexpr RuleInfo kInfo{"PL703",
                         "cuda-device-max-connections",
                         Severity::kWarning,
                         "Megatron-LM launch with TP > 1 or CP > 1 on a pre-Blackwell profile without "
                         "CUDA_DEVICE_MAX_CONNECTIONS=1",
                         R"md(# PL703 cuda-device-max-connections

## What it does
For Megatron-LM launches with TP > 1 or CP > 1 on GPUs before Blackwell (A100, H100, H200, GH200),
checks that the launch exports `CUDA_DEVICE_MAX_CONNECTIONS=1`.

## Why
Megatron-LM overlaps tensor/context-parallel communication with compute and relies on kernels being
scheduled in issue order, which needs a single hardware work queue. `validate_args` asserts
"Using tensor model parallelism or context parallelism require setting the environment variable
CUDA_DEVICE_MAX_CONNECTIONS to 1" (it only warns with FSDP or MoE all-to-all overlap).

## Example
```bash
#!/bin/bash
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 4 --num-layers 32
```

## Fix
```bash
#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 4 --num-layers 32
```

`parlint check --fix` makes this change (a **safe** fix: the framework refuses to start without it): the
written value becomes 1, or an `export CUDA_DEVICE_MAX_CONNECTIONS=1` line goes right before the launch
command, with its indentation. A launch inside a continued command line gets no fix.

## Framework behaviour
Launches of checkpoint and data tools (merging or converting checkpoints, preparing data) are not
checked: they do not start training. A launch from inside a Megatron checkout (a fork) runs that
checkout's own `megatron/training/arguments.py` (or `megatron/arguments.py`): parlint reads it, and
when no assert or raise there names the variable, the fork does not refuse to start and nothing is
reported (`plan` notes the file). A fork's own entry point (a `pretrain_*.py` that is neither
Megatron-LM's nor Megatron-DeepSpeed's, such as Megatron-LLaMA's `pretrain_llama.py`) launched where
its checkout is not beside the script runs checks parlint has not read: nothing is reported. A variable
that a sourced file may export (a `source env.sh` that
parlint cannot read) is unknown, and nothing is reported either. Megatron-LM refuses to start (`megatron/training/arguments.py:1477-1479@d98e8a64ddf3`, only before
Blackwell: `get_device_arch_version() < 10`). Megatron-DeepSpeed (a launch with `--deepspeed` or its own
flags) raises `RuntimeError: Using sequence parallelism requires setting the environment variable
CUDA_DEVICE_MAX_CONNECTIONS to 1` only when sequence parallelism stays on, i.e. with SP and TP > 1; with
`--deepspeed` it turns the asynchronous all-reduce off itself, so TP alone needs nothing
(`megatron/arguments.py:387-411@f4157bea69f3`). Megatron-Bridge and NeMo have no such check (their
performance scripts set the variable themselves). Blackwell profiles (`dgx-b200`, `gb200-nvl72`,
`gb300-nvl72`) do not need it.

## References
- Megatron-LM `megatron/training/arguments.py:1453-1479@d98e8a64ddf3` (TP > 1 or CP > 1 before Blackwell:
  asserts `CUDA_DEVICE_MAX_CONNECTIONS=1`, only warns with FSDP or MoE all-to-all overlap)
- Megatron-Bridge `scripts/performance/utils/overrides.py:258-262@067f987df03b` (its performance launcher
  sets 1 for TP or CP > 1 on Hopper, 32 on Blackwell)
)md",
                         kReads,
                         FixAvailability::kSafe};

bool pre_blackwell(const std::string& gpu) {
  return gpu == "a100" || gpu == "h100" || gpu == "h200" || gpu == "gh200" || gpu == "h800";
}

// Megatron-LM's and Megatron-DeepSpeed's own training entry points (their checkouts' top level).
bool forks_entry_point(std::string_view entry) {
  auto slash = entry.rfind('/');
  if (slash != std::string_view::npos) entry.remove_prefix(slash + 1);
  if (!entry.starts_with("pretrain_")) return false;
  for (std::string_view own :
       {"pretrain_gpt.py", "pretrain_hybrid.py", "pretrain_mamba.py", "pretrain_vlm.py", "pretrain_bert.py",
        "pretrain_t5.py", "pretrain_ict.py", "pretrain_retro.py", "pretrain_gpt_core.py",
        "pretrain_vision_classify.py", "pretrain_vision_dino.py", "pretrain_vision_inpaint.py"})
    if (entry == own) return false;
  return true;
}

class CudaDeviceMaxConnections final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!megatron_lm_family(job.framework()) || job.launch() == LaunchKind::kNone) return;
    if (!job.gpu_entry_point()) return;  // checkpoint and data tools do not start training
    // The launch runs from a fork whose arguments.py never checks the variable: nothing refuses.
    const Fact* checks = job.fact(Key::kChecksCudaDeviceMaxConnections);
    if (checks && checks->value.as_bool() == false) return;
    // A pretrain_*.py that is neither Megatron-LM's nor Megatron-DeepSpeed's (Megatron-LLaMA's
    // pretrain_llama.py) belongs to a fork whose argument checks parlint has not read: whether it
    // refuses is unknown.
    if (!checks && forks_entry_point(job.entry_script())) return;
    if (!pre_blackwell(job.cluster().gpu)) return;
    auto tp = job.get_int(Key::kTensorModelParallelSize), cp = job.get_int(Key::kContextParallelSize);
    if (!tp || !cp || (*tp <= 1 && *cp <= 1)) return;
    bool deepspeed = job.framework() == Framework::kMegatronDeepSpeed;
    if (deepspeed) {  // only sequence parallelism (kept on with TP > 1) makes Megatron-DeepSpeed raise
      auto sp = job.get_bool(Key::kSequenceParallel);
      if (!sp || !*sp || *tp <= 1) return;
    }
    const Fact* env = job.fact(Key::kCudaDeviceMaxConnections);
    if (env && (env->value.is_unknown() || env->value.as_int() == 1)) return;
    const Fact* cause = deepspeed ? job.fact(Key::kSequenceParallel)
                        : *tp > 1 ? job.fact(Key::kTensorModelParallelSize)
                                  : job.fact(Key::kContextParallelSize);
    std::string gpus = job.cluster().name.empty() || job.cluster().name == default_cluster_profile().name
                           ? fmt::format("{} GPUs (the default {} profile; pass --cluster for Blackwell)",
                                         job.cluster().gpu, default_cluster_profile().name)
                           : fmt::format("{} GPUs (the {} profile)", job.cluster().gpu, job.cluster().name);
    std::string missing = env ? "CUDA_DEVICE_MAX_CONNECTIONS=" + env->value.to_string()
                              : std::string("CUDA_DEVICE_MAX_CONNECTIONS is not exported");
    Finding f;
    f.location = env ? env->location : Location{job.path(), job.range()};
    if (deepspeed)
      f.message = fmt::format(
          "this Megatron-DeepSpeed launch keeps sequence parallelism on (TP={}) on {} but {}; "
          "Megatron-DeepSpeed "
          "raises \"Using sequence parallelism requires setting the environment variable "
          "CUDA_DEVICE_MAX_CONNECTIONS to 1\"",
          *tp, gpus, missing);
    else
      f.message = fmt::format(
          "this Megatron-LM launch uses {}={} on {} but {}; Megatron-LM asserts \"Using tensor model "
          "parallelism or context parallelism require setting the environment variable "
          "CUDA_DEVICE_MAX_CONNECTIONS to 1\"",
          *tp > 1 ? "TP" : "CP", *tp > 1 ? *tp : *cp, gpus, missing);
    f.help = "export CUDA_DEVICE_MAX_CONNECTIONS=1 before the launch";
    if (cause && cause->location.in_file()) f.related.push_back({cause->location, "set here"});
    // Safe: the framework refuses to start without it.
    if (auto change = environment_change(job, env, "CUDA_DEVICE_MAX_CONNECTIONS", Value::integer(1)))
      f.fix = FixRequest{FixApplicability::kSafe,
                         env ? "set CUDA_DEVICE_MAX_CONNECTIONS to 1"
                             : "export CUDA_DEVICE_MAX_CONNECTIONS=1 before the launch",
                         {std::move(*change)}};
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(CudaDeviceMaxConnections);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
