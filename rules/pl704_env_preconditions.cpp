// PL704 env-preconditions: environment variables a feature the job turns on needs, or refuses.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kUseMegatronFsdp,
                          Key::kUseTorchFsdp2,
                          Key::kPipelineModelParallelCommBackend,
                          Key::kCudaGraphImpl,
                          Key::kDeterministicMode,
                          Key::kCudaDeviceMaxConnections,
                          Key::kPytorchCudaAllocConf,
                          Key::kNcclGraphRegister,
                          Key::kNcclAlgo,
                          Key::kTensorParallelNumWeightShards,
                          Key::kTensorModelParallelSize,
                          Key::kCudaGraphsUseNodePriority};

constexpr RuleInfo kInfo{
    "PL704",
    "env-preconditions",
    Severity::kError,
    "an environment variable a feature refuses or needs: CUDA_DEVICE_MAX_CONNECTIONS=1 with FSDP or the UCC "
    "pipeline backend, NCCL_GRAPH_REGISTER with TE CUDA graphs and expandable segments, NCCL_ALGO in "
    "Megatron-Bridge's deterministic mode",
    R"md(# PL704 env-preconditions

## What it does
Checks the environment a job sets (`export`, `env` prefixes, launcher options, Megatron-Bridge's
`cfg.env_vars`, NeMo-Run executors' `env_vars=`, YAML `env_vars:`) against what the features it turns
on require:
- Megatron-FSDP or Torch FSDP2 with `CUDA_DEVICE_MAX_CONNECTIONS=1`: refused;
- the UCC pipeline backend (`--pipeline-model-parallel-comm-backend ucc`) with
  `CUDA_DEVICE_MAX_CONNECTIONS=1`: refused;
- Megatron-LM with Transformer Engine CUDA graphs and `PYTORCH_CUDA_ALLOC_CONF` holding
  `expandable_segments:True`: `NCCL_GRAPH_REGISTER=0` is required;
- Megatron-Bridge's deterministic mode (`model.deterministic_mode`): `NCCL_ALGO` must be one of `Tree`,
  `Ring`, `CollnetDirect`, `CollnetChain`, `^NVLS`;
- Megatron-LM's tensor-parallel weight sharding (`--tensor-parallel-num-weight-shards` above TP) with CUDA
  graphs on Blackwell or later: `CUDA_GRAPHS_USE_NODE_PRIORITY=1` is required. The GPU comes from the
  chosen cluster profile (`--cluster`, the configuration, or the GPU a recipe's name targets), never from
  the default one.

A variable set to a refused value is an error. A required variable the job does not set is a warning: the
cluster or the container may set it (parlint sees only the job's files).

## Why
The frameworks check the process environment at start-up: Megatron-LM asserts `FSDP requires
CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset.` and `Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory
access when using CUDA Graph with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.`; Megatron-Core asserts
`UCC-backend requires CUDA_DEVICE_MAX_CONNECTIONS > 1`; Megatron-Bridge asserts `NCCL_ALGO must be one of
('Tree', 'Ring', 'CollnetDirect', 'CollnetChain', '^NVLS').` Megatron-LM's own examples export
`CUDA_DEVICE_MAX_CONNECTIONS=1` for TP (PL703), which is exactly what FSDP refuses.

## Example
```bash
#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun --nproc_per_node=8 pretrain_gpt.py --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params \
  --ckpt-format fsdp_dtensor --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```

## Fix
```bash
#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=8
torchrun --nproc_per_node=8 pretrain_gpt.py --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params \
  --ckpt-format fsdp_dtensor --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```

`parlint check --fix` fixes the two checks that have one answer (a **safe** fix: Megatron-LM refuses
anything else): `NCCL_GRAPH_REGISTER=0` and `CUDA_GRAPHS_USE_NODE_PRIORITY=1`, changed where written or
exported right before the launch command. FSDP and UCC want a connection count above 1 and deterministic
mode one of five NCCL algorithms: those choices stay yours.

## Framework behaviour
| check | Megatron-LM | Megatron-Bridge |
|---|---|---|
| FSDP with `CUDA_DEVICE_MAX_CONNECTIONS=1` | asserts (Megatron-FSDP and Torch FSDP2) | asserts (Megatron-FSDP v1) |
| UCC backend with `CUDA_DEVICE_MAX_CONNECTIONS=1` | asserts (Megatron-Core) | same |
| TE graphs, expandable segments, `NCCL_GRAPH_REGISTER` | asserts | not checked (its perf recipes set both) |
| deterministic mode and `NCCL_ALGO` | — | asserts |

Not checked, because they depend on versions parlint cannot see: `nccl_ub` with expandable segments
(torch < 2.11 only), and `NVTE_CPU_OFFLOAD_V1` for fine-grained offloading (Transformer Engine ≥ 2.10 only).

## References
- Megatron-LM `megatron/training/arguments.py:1048-1049,1166-1167@d98e8a64ddf3` (FSDP), `:1962-1968`
  (NCCL_GRAPH_REGISTER)
- Megatron-LM `megatron/core/parallel_state.py:1200-1208@d98e8a64ddf3` (UCC)
- Megatron-LM `megatron/training/arguments.py:1515-1545@d98e8a64ddf3` (weight sharding with CUDA graphs on
  Blackwell: `CUDA_GRAPHS_USE_NODE_PRIORITY=1`)
- Megatron-Bridge `src/megatron/bridge/training/config.py:1110-1112,1043-1063@067f987df03b` (FSDP,
  deterministic mode)
)md",
    kReads,
    FixAvailability::kSafe};

// An environment variable's value as text ("1" for an integer 1); nullopt when unset or unknown.
std::optional<std::string> env_text(const Fact* f) {
  if (!f || f->value.is_unknown()) return std::nullopt;
  if (auto i = f->value.as_int()) return std::to_string(*i);
  if (auto b = f->value.as_bool()) return *b ? "True" : "False";
  if (f->value.kind() == Value::Kind::kString) return f->value.text();
  return std::nullopt;
}

class EnvPreconditions final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Framework fw = job.framework();
    const bool mlm = fw == Framework::kMegatronLM, bridge = fw == Framework::kMegatronBridge;
    if (!mlm && !bridge) return;
    const Fact* connections = job.fact(Key::kCudaDeviceMaxConnections);
    const bool one_connection = env_text(connections) == "1";
    auto report = [&](const Fact* at, const Fact* other, Severity severity, std::string message,
                      std::string help, std::string other_note,
                      std::optional<FixRequest> fix = std::nullopt) {
      Finding f;
      f.location = at && at->location.in_file() ? at->location : Location{job.path(), job.range()};
      f.severity = severity;
      f.message = std::move(message);
      f.help = std::move(help);
      if (other && other->location.in_file() && other != at)
        f.related = related_locations(*other, other_note);
      f.fix = std::move(fix);
      out.push_back(std::move(f));
    };
    // The one value Megatron-LM asks for, where it is written or exported before the launch: safe.
    auto require = [&](const Fact* existing, std::string_view name,
                       std::int64_t value) -> std::optional<FixRequest> {
      auto change = environment_change(job, existing, name, Value::integer(value));
      if (!change) return std::nullopt;
      return FixRequest{FixApplicability::kSafe,
                        existing ? fmt::format("set {} to {}", name, value)
                                 : fmt::format("export {}={} before the launch", name, value),
                        {std::move(*change)}};
    };

    // E-a: FSDP keeps several streams in flight.
    const Fact* fsdp = job.fact_in_file(Key::kUseMegatronFsdp);
    if (!(fsdp && fsdp->value.as_bool() == true) && mlm) fsdp = job.fact_in_file(Key::kUseTorchFsdp2);
    if (fsdp && fsdp->value.as_bool() == true && one_connection)
      report(connections, fsdp, Severity::kError,
             fmt::format("CUDA_DEVICE_MAX_CONNECTIONS=1 ({}) with {}; {} asserts \"FSDP requires "
                         "CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset.\"",
                         describe_source(*connections, job.path()),
                         fsdp->key == Key::kUseTorchFsdp2 ? "Torch FSDP2" : "Megatron-FSDP",
                         bridge ? "Megatron-Bridge" : "Megatron-LM"),
             "unset CUDA_DEVICE_MAX_CONNECTIONS or raise it (8 or 32) for FSDP", "FSDP turned on here");

    // E-b: the UCC pipeline backend overlaps its transfers.
    if (const Fact* backend = job.fact_in_file(Key::kPipelineModelParallelCommBackend);
        backend && backend->value.kind() == Value::Kind::kString && backend->value.text() == "ucc" &&
        one_connection)
      report(connections, backend, Severity::kError,
             fmt::format(
                 "CUDA_DEVICE_MAX_CONNECTIONS=1 ({}) with the UCC pipeline backend; Megatron-Core asserts "
                 "\"UCC-backend requires CUDA_DEVICE_MAX_CONNECTIONS > 1\"",
                 describe_source(*connections, job.path())),
             "raise CUDA_DEVICE_MAX_CONNECTIONS, or use the nccl pipeline backend", "UCC chosen here");

    // E-c: Transformer Engine graphs, expandable segments and NCCL graph registration (Megatron-LM).
    const Fact* impl = job.fact_in_file(Key::kCudaGraphImpl);
    const Fact* alloc = job.fact(Key::kPytorchCudaAllocConf);
    auto alloc_text = env_text(alloc);
    if (mlm && impl && impl->value.kind() == Value::Kind::kString &&
        impl->value.text() == "transformer_engine" && alloc_text &&
        alloc_text->find("expandable_segments:True") != std::string::npos) {
      const Fact* reg = job.fact(Key::kNcclGraphRegister);
      auto reg_text = env_text(reg);
      if (!(reg && reg->value.is_unknown()) && reg_text != "0")
        report(
            reg ? reg : alloc, impl, reg ? Severity::kError : Severity::kWarning,
            fmt::format("Transformer Engine CUDA graphs with PYTORCH_CUDA_ALLOC_CONF={} ({}) and {}; "
                        "Megatron-LM asserts \"Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory access "
                        "when using CUDA Graph with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.\"{}",
                        *alloc_text, describe_source(*alloc, job.path()),
                        reg ? "NCCL_GRAPH_REGISTER=" + reg_text.value_or("?")
                            : std::string("NCCL_GRAPH_REGISTER not set"),
                        reg ? "" : " unless the environment the job starts in sets it"),
            "export NCCL_GRAPH_REGISTER=0 before the launch", "CUDA graphs chosen here",
            require(reg, "NCCL_GRAPH_REGISTER", 0));
    }

    // E-e: weight sharding with CUDA graphs on Blackwell and later needs node priorities in the graphs.
    if (const Fact* shards = job.fact_in_file(Key::kTensorParallelNumWeightShards); mlm && shards) {
      auto tp = job.get_int(Key::kTensorModelParallelSize);
      const std::string gpu = job.cluster().gpu;
      const bool blackwell = gpu == "b200" || gpu == "b300" || gpu == "gb200" || gpu == "gb300" ||
                             gpu == "vr200" || gpu == "r100";
      const bool graphs = impl && impl->value.kind() == Value::Kind::kString && impl->value.text() != "none";
      const Fact* priority = job.fact(Key::kCudaGraphsUseNodePriority);
      if (tp && shards->value.as_int() && *shards->value.as_int() > *tp && graphs && job.cluster_chosen() &&
          blackwell && !(priority && priority->value.is_unknown()) && env_text(priority) != "1")
        report(
            priority ? priority : shards, impl, priority ? Severity::kError : Severity::kWarning,
            fmt::format(
                "weight sharding (tensor_parallel_num_weight_shards={} over TP={}) with CUDA graphs on "
                "{} GPUs (the {} profile) and {}; Megatron-LM asserts \"GTP requires "
                "CUDA_GRAPHS_USE_NODE_PRIORITY=1 to make sure fine-grained GTP comms can be well "
                "overlapped with GEMMs when CudaGraph is enabled for Blackwell and later architecture.\"{}",
                *shards->value.as_int(), *tp, gpu, job.cluster().name,
                priority ? "CUDA_GRAPHS_USE_NODE_PRIORITY=" + env_text(priority).value_or("?")
                         : std::string("CUDA_GRAPHS_USE_NODE_PRIORITY not set"),
                priority ? "" : " unless the environment the job starts in sets it"),
            "export CUDA_GRAPHS_USE_NODE_PRIORITY=1 before the launch", "CUDA graphs chosen here",
            require(priority, "CUDA_GRAPHS_USE_NODE_PRIORITY", 1));
    }

    // E-g: Megatron-Bridge's deterministic mode fixes the NCCL algorithm.
    if (const Fact* det = job.fact_in_file(Key::kDeterministicMode);
        bridge && det && det->value.as_bool() == true) {
      const Fact* algo = job.fact(Key::kNcclAlgo);
      auto algo_text = env_text(algo);
      static constexpr std::string_view kAllowed[] = {"Tree", "Ring", "CollnetDirect", "CollnetChain",
                                                      "^NVLS"};
      const bool allowed =
          algo_text && std::find(std::begin(kAllowed), std::end(kAllowed), *algo_text) != std::end(kAllowed);
      if (!(algo && algo->value.is_unknown()) && !allowed)
        report(algo ? algo : det, det, algo ? Severity::kError : Severity::kWarning,
               fmt::format(
                   "deterministic_mode with {}; Megatron-Bridge asserts \"NCCL_ALGO must be one of ('Tree', "
                   "'Ring', 'CollnetDirect', 'CollnetChain', '^NVLS').\"{}",
                   algo ? "NCCL_ALGO=" + algo_text.value_or("?") : std::string("NCCL_ALGO not set"),
                   algo ? "" : " unless the environment the job starts in sets it"),
               "set NCCL_ALGO (e.g. Ring) in cfg.env_vars or with export",
               "deterministic mode turned on here");
    }
  }
};

PARLINT_REGISTER_RULE(EnvPreconditions);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
