// PL602 fsdp-config: Megatron-FSDP (v1, v2), Torch FSDP2 and partial distributed-optimizer sharding in
// combinations the frameworks refuse.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kUseMegatronFsdp,
                          Key::kMegatronFsdpVersion,
                          Key::kUseDistributedOptimizer,
                          Key::kCkptFormat,
                          Key::kFsdpManualRegistration,
                          Key::kNcclUb,
                          Key::kInitModelWithMetaDevice,
                          Key::kDataParallelShardingStrategy,
                          Key::kUseTpPpDpMapping,
                          Key::kTensorModelParallelSize,
                          Key::kPipelineModelParallelSize,
                          Key::kContextParallelSize,
                          Key::kExpertModelParallelSize,
                          Key::kVirtualPipelineModelParallelSize,
                          Key::kNumMoeExperts,
                          Key::kNumDistributedOptimizerInstances,
                          Key::kCudaGraphImpl,
                          Key::kUseTorchFsdp2,
                          Key::kWorldSize};

constexpr RuleInfo kInfo{
    "PL602",
    "fsdp-config",
    Severity::kError,
    "Megatron-FSDP or Torch FSDP2 with settings the framework refuses (version, checkpoint format, manual "
    "registration, v2 with model parallelism or MoE), or DP·CP not divisible by the distributed-optimizer "
    "instances",
    R"md(# PL602 fsdp-config

## What it does
Checks a job that shards with Megatron-FSDP (`--use-megatron-fsdp`, `ddp.use_megatron_fsdp`), Torch FSDP2
(`--use-torch-fsdp2`) or several distributed-optimizer instances (`num_distributed_optimizer_instances`):
- `megatron_fsdp_version` is 1 or 2;
- Megatron-LM: version 2 without `--use-distributed-optimizer`; the `fsdp_dtensor` checkpoint format;
  no meta-device initialisation with the `no_shard` strategy;
- `fsdp_manual_registration` only with Megatron-FSDP and `nccl_ub`;
- Megatron-Bridge v1: no `use_tp_pp_dp_mapping`;
- version 2 (data-parallel only): TP = PP = CP = 1 in both frameworks; Megatron-Bridge also refuses
  EP > 1, MoE models, a virtual pipeline, several optimizer instances (HSDP), `use_tp_pp_dp_mapping`
  and CUDA graphs, while Megatron-Core allows EP with MoE layers and requires the
  `optim_grads_params` strategy;
- Torch FSDP2 in Megatron-LM: PP = 1, EP = 1, no distributed optimizer, `torch_dist` or `torch_dcp`
  checkpoints;
- DP·CP divisible by `num_distributed_optimizer_instances`.

Only values the job writes are judged; a missing setting counts as the framework's default only in a
configuration file or recipe that does not build on another.

## Why
Each of these stops the job at start-up: Megatron-LM asserts in `validate_args` (`Megatron-FSDP requires
the fsdp_dtensor checkpointing format.`, `--use-torch-fsdp2 is not supported with pipeline parallelism`),
Megatron-Core raises when it builds the data-parallel wrapper (`megatron_fsdp_version must be either 1 or
2`, `MFSDP v2 does not currently support: tensor_model_parallel_size=...`) or the process groups (`Data
parallel size should be divisible by partial DistOpt shard factor`), and Megatron-Bridge raises in
`ConfigContainer.validate()` (`MFSDP V2 currently supports DP-only training; unsupported settings: ...`,
`use_tp_pp_dp_mapping is not supported with Megatron FSDP`).

## Example
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params \
  --use-distributed-optimizer --ckpt-format torch_dist --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```

## Fix
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params \
  --use-distributed-optimizer --ckpt-format fsdp_dtensor --num-layers 32 --hidden-size 4096 --num-attention-heads 32
```

## Framework behaviour
| check | Megatron-LM / Megatron-Core | Megatron-Bridge |
|---|---|---|
| version ∉ {1, 2} | `ValueError` (DDP config) | same |
| v2 with TP, PP or CP > 1 | `ValueError` | `ValueError` |
| v2 with EP > 1 / MoE | allowed (needs MoE layers) | `ValueError` |
| v2 with VPP, HSDP, CUDA graphs | not checked here | `ValueError` |
| checkpoint format | asserts `fsdp_dtensor` | only when saving or loading (not reported) |
| manual registration without `nccl_ub` | asserts | asserts |
| `use_tp_pp_dp_mapping` | not checked | asserts (v1), `ValueError` (v2) |
| Torch FSDP2 with PP, EP, distributed optimizer | asserts | — |
| DP·CP % optimizer instances | asserts when groups are built | same |

## References
- Megatron-LM `megatron/training/arguments.py:1031-1049@d98e8a64ddf3` (Torch FSDP2), `:1118-1192`
  (Megatron-FSDP)
- Megatron-LM `megatron/core/distributed/distributed_data_parallel_config.py:256-257@d98e8a64ddf3`
  (version)
- Megatron-LM `megatron/core/distributed/fsdp/mcore_fsdp_adapter.py:627-668@d98e8a64ddf3` (v2)
- Megatron-LM `megatron/core/parallel_state.py:922-926@d98e8a64ddf3` (optimizer instances)
- Megatron-Bridge `src/megatron/bridge/training/config.py:1079-1198@067f987df03b` (v1 and v2)
)md",
    kReads};

bool written_true(const Job& job, Key key) {
  const Fact* f = job.fact_in_file(key);
  return f && f->value.as_bool() == true;
}

std::optional<std::int64_t> written_int(const Job& job, Key key) {
  const Fact* f = job.fact_in_file(key);
  return f ? f->value.as_int() : std::nullopt;
}

std::string written_text(const Job& job, Key key) {
  const Fact* f = job.fact_in_file(key);
  return f && f->value.kind() == Value::Kind::kString ? f->value.text() : std::string();
}

class FsdpConfig final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Framework fw = job.framework();
    // DeepSpeed's ZeRO, or a framework whose data-parallel settings are its own engine's (its adapter says).
    if (fw == Framework::kMegatronDeepSpeed || job.driver_traits().fsdp_settings_its_own) return;
    const bool mlm = fw == Framework::kMegatronLM, bridge = fw == Framework::kMegatronBridge;
    auto report = [&](const Fact* at, std::string message, std::string help, const Fact* other = nullptr) {
      out.push_back(finding_at(*at, std::move(message), std::move(help), other));
    };
    auto src = [&](Key k) { return describe_source(*job.fact(k), job.path()); };

    if (const Fact* reg = job.fact_in_file(Key::kFsdpManualRegistration);
        (mlm || bridge) && reg && reg->value.as_bool() == true) {
      const Fact* ub = job.fact(Key::kNcclUb);
      const bool ub_off = ub ? ub->location.in_file() && ub->value.as_bool() == false : job.leaves_defaults();
      if (ub_off)
        return report(
            reg,
            fmt::format("fsdp_manual_registration without nccl_ub{}; {} asserts \"{}\"",
                        ub ? " (" + src(Key::kNcclUb) + ")" : "", bridge ? "Megatron-Bridge" : "Megatron-LM",
                        bridge ? "DDP.fsdp_manual_registration requires DDP.nccl_ub!"
                               : "FSDP manual registration is only supported with --nccl-ub argument."),
            "turn nccl_ub on, or remove fsdp_manual_registration", ub);
    }

    if (written_true(job, Key::kUseMegatronFsdp)) {
      const Fact* fsdp = job.fact(Key::kUseMegatronFsdp);
      const Fact* version_fact = job.fact_in_file(Key::kMegatronFsdpVersion);
      auto version = written_int(job, Key::kMegatronFsdpVersion);
      if (version && *version != 1 && *version != 2)
        return report(
            version_fact,
            fmt::format("megatron_fsdp_version={}; Megatron-Core raises \"megatron_fsdp_version must be "
                        "either 1 or 2\"",
                        *version),
            "use megatron_fsdp_version 1 (the default) or 2");
      const bool v2 = version == 2;
      if (mlm && v2 && written_true(job, Key::kUseDistributedOptimizer))
        return report(version_fact,
                      "--megatron-fsdp-version 2 with --use-distributed-optimizer; Megatron-LM asserts "
                      "\"--megatron-fsdp-version 2 is not compatible with --use-distributed-optimizer\"",
                      "remove --use-distributed-optimizer (version 2 brings its own optimizer)",
                      job.fact(Key::kUseDistributedOptimizer));
      if (mlm) {
        if (const std::string ckpt = written_text(job, Key::kCkptFormat);
            !ckpt.empty() && ckpt != "fsdp_dtensor")
          return report(job.fact(Key::kCkptFormat),
                        fmt::format("--ckpt-format {} with --use-megatron-fsdp; Megatron-LM asserts "
                                    "\"Megatron-FSDP requires the `fsdp_dtensor` checkpointing format.\"",
                                    ckpt),
                        "use --ckpt-format fsdp_dtensor", fsdp);
        if (written_true(job, Key::kInitModelWithMetaDevice) &&
            written_text(job, Key::kDataParallelShardingStrategy) == "no_shard")
          return report(
              job.fact(Key::kInitModelWithMetaDevice),
              "meta-device initialisation with the no_shard strategy; Megatron-LM raises \"Meta device "
              "initialization (init_model_with_meta_device=True) is not supported or necessary for the "
              "'no_shard' / 0 sharding strategy.\"",
              "remove --init-model-with-meta-device, or shard (optim_grads_params)",
              job.fact(Key::kDataParallelShardingStrategy));
      }
      if (bridge && !v2 && written_true(job, Key::kUseTpPpDpMapping))
        return report(
            job.fact(Key::kUseTpPpDpMapping),
            "use_tp_pp_dp_mapping with Megatron-FSDP; Megatron-Bridge asserts \"use_tp_pp_dp_mapping is "
            "not supported with Megatron FSDP\"",
            "remove dist.use_tp_pp_dp_mapping (the default rank order works with Megatron-FSDP)", fsdp);
      if (v2 && version2(job, bridge, version_fact, out)) return;
    }

    if (mlm && written_true(job, Key::kUseTorchFsdp2)) {
      const Fact* fsdp2 = job.fact(Key::kUseTorchFsdp2);
      if (auto pp = written_int(job, Key::kPipelineModelParallelSize); pp && *pp > 1)
        return report(
            job.fact(Key::kPipelineModelParallelSize),
            fmt::format("PP={} with --use-torch-fsdp2; Megatron-LM asserts \"--use-torch-fsdp2 is not "
                        "supported with pipeline parallelism\"",
                        *pp),
            "use PP=1 with Torch FSDP2, or Megatron-FSDP / the distributed optimizer", fsdp2);
      if (auto ep = written_int(job, Key::kExpertModelParallelSize); ep && *ep > 1)
        return report(
            job.fact(Key::kExpertModelParallelSize),
            fmt::format("EP={} with --use-torch-fsdp2; Megatron-LM asserts \"--use-torch-fsdp2 is not "
                        "supported with expert parallelism\"",
                        *ep),
            "use EP=1 with Torch FSDP2, or Megatron-FSDP", fsdp2);
      if (written_true(job, Key::kUseDistributedOptimizer))
        return report(
            job.fact(Key::kUseDistributedOptimizer),
            "--use-distributed-optimizer with --use-torch-fsdp2; Megatron-LM asserts \"--use-torch-fsdp2 "
            "is not supported with MCore's distributed optimizer\"",
            "remove --use-distributed-optimizer (FSDP2 shards the optimizer state itself)", fsdp2);
      if (const std::string ckpt = written_text(job, Key::kCkptFormat);
          !ckpt.empty() && ckpt != "torch_dist" && ckpt != "torch_dcp")
        return report(
            job.fact(Key::kCkptFormat),
            fmt::format("--ckpt-format {} with --use-torch-fsdp2; Megatron-LM asserts \"--use-torch-fsdp2 "
                        "requires --ckpt-format torch_dist or torch_dcp\"",
                        ckpt),
            "use --ckpt-format torch_dist or torch_dcp", fsdp2);
    }

    // F6: the partial distributed optimizer shards within DP·CP.
    if (auto n = written_int(job, Key::kNumDistributedOptimizerInstances); n && *n > 1) {
      auto dp = job.data_parallel();
      auto cp = job.get_int(Key::kContextParallelSize);
      if (dp && cp && (*dp * *cp) % *n != 0)
        report(
            job.fact(Key::kNumDistributedOptimizerInstances),
            fmt::format("num_distributed_optimizer_instances={} does not divide DP·CP = {}·{} = {}; "
                        "Megatron-Core asserts \"Data parallel size should be divisible by partial DistOpt "
                        "shard factor\" when it builds the process groups",
                        *n, *dp, *cp, *dp * *cp),
            fmt::format("use a number of instances that divides {}", *dp * *cp));
    }
  }

  // Megatron-FSDP version 2: data-parallel only (both frameworks), and Megatron-Bridge's narrower contract.
  static bool version2(const Job& job, bool bridge, const Fact* version, std::vector<Finding>& out) {
    const char* who = bridge ? "Megatron-Bridge" : "Megatron-Core";
    std::string sizes;
    const Fact* first = nullptr;
    for (auto [key, name] : {std::pair{Key::kTensorModelParallelSize, "tensor_model_parallel_size"},
                             std::pair{Key::kPipelineModelParallelSize, "pipeline_model_parallel_size"},
                             std::pair{Key::kContextParallelSize, "context_parallel_size"},
                             std::pair{Key::kExpertModelParallelSize, "expert_model_parallel_size"}}) {
      if (key == Key::kExpertModelParallelSize && !bridge) continue;  // Megatron-Core v2 allows EP with MoE
      if (auto v = written_int(job, key); v && *v != 1) {
        sizes += fmt::format("{}{}={}", sizes.empty() ? "" : ", ", name, *v);
        if (!first) first = job.fact(key);
      }
    }
    Finding f;
    f.location = version->location;
    if (!sizes.empty()) {
      f.message =
          fmt::format("Megatron-FSDP version 2 with {}; {} raises \"{}\"", sizes, who,
                      bridge ? "MFSDP V2 currently supports DP-only training; unsupported settings: " + sizes
                             : "MFSDP v2 does not currently support: " + sizes);
      f.help = "use Megatron-FSDP version 1 for model parallelism, or keep only data parallelism";
      f.related = related_locations(*first, "set here");
      out.push_back(std::move(f));
      return true;
    }
    if (!bridge) {
      if (const std::string s = written_text(job, Key::kDataParallelShardingStrategy);
          !s.empty() && s != "optim_grads_params") {
        f.message = fmt::format(
            "Megatron-FSDP version 2 with data_parallel_sharding_strategy {}; Megatron-Core raises \"MFSDP "
            "v2 "
            "requires data_parallel_sharding_strategy='optim_grads_params'.\"",
            s);
        f.help = "use --data-parallel-sharding-strategy optim_grads_params";
        out.push_back(std::move(f));
        return true;
      }
      return false;
    }
    struct Refusal {
      bool hit;
      const Fact* at;
      const char* quote;
      const char* help;
    };
    const Fact* experts = job.fact_in_file(Key::kNumMoeExperts);
    const Fact* vpp = job.fact_in_file(Key::kVirtualPipelineModelParallelSize);
    const Fact* instances = job.fact_in_file(Key::kNumDistributedOptimizerInstances);
    const Fact* graphs = job.fact_in_file(Key::kCudaGraphImpl);
    const Fact* mapping = job.fact_in_file(Key::kUseTpPpDpMapping);
    for (const Refusal& r :
         {Refusal{experts && experts->value.as_int().value_or(0) > 0, experts,
                  "MFSDP V2 does not currently support MoE models.",
                  "use Megatron-FSDP version 1 for MoE models"},
          Refusal{vpp && vpp->value.kind() != Value::Kind::kNull, vpp,
                  "MFSDP V2 does not currently support multiple model chunks.",
                  "remove the virtual pipeline"},
          Refusal{instances && instances->value.as_int().value_or(1) != 1, instances,
                  "MFSDP V2 does not currently support HSDP.", "use one distributed-optimizer instance"},
          Refusal{graphs && graphs->value.kind() == Value::Kind::kString && graphs->value.text() != "none",
                  graphs, "MFSDP V2 does not support CUDA graphs.", "set model.cuda_graph_impl to none"},
          Refusal{mapping && mapping->value.as_bool() == true, mapping,
                  "MFSDP V2 does not support use_tp_pp_dp_mapping.", "remove dist.use_tp_pp_dp_mapping"}}) {
      if (!r.hit) continue;
      f.location = r.at->location;
      f.message =
          fmt::format("Megatron-FSDP version 2 ({}) with {}; Megatron-Bridge raises \"{}\"",
                      describe_source(*version, job.path()), describe_source(*r.at, job.path()), r.quote);
      f.help = r.help;
      out.push_back(std::move(f));
      return true;
    }
    return false;
  }
};

PARLINT_REGISTER_RULE(FsdpConfig);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
