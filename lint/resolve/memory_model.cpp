#include "lint/resolve/memory_model.h"

#include "lint/knowledge/hybrid_pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace parlint {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A hybrid model's layers by kind (Megatron-Core's hybrid pattern: each symbol one sublayer).
struct HybridLayers {
  double mixers = 0;     // M Mamba, G gated delta net
  double attention = 0;  // * attention, D DeepSeek sparse attention, + MLA
  double mlp = 0;        // -
  double moe = 0;        // E
};

struct Inputs {
  double h, a, g, d, L, V, f, s, b, t, p, c, e, te, world;
  double E = 0, k = 0, f_moe = 0;
  double latent = 0;    // moe_latent_size: experts work in this width, projected from and back to h
  double f_shared = 0;  // moe_shared_expert_intermediate_size: a dense MLP beside the routed experts
  double mamba_inner = 0;
  std::optional<double> v;  // VPP
  std::optional<double> m;  // microbatches
  std::optional<HybridLayers> hybrid;
  bool sp, gated = true, squared_relu = false, untied = false;
};

std::optional<double> num(const Job& job, Key key) {
  auto v = job.get_int(key);
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

// How much of the training state is sharded over data parallelism (ZeRO's stages): 0 none, 1 optimizer
// state (Megatron's distributed optimizer), 2 and gradients, 3 and parameters (FSDP's
// optim_grads_params). nullopt when the job does not say.
struct Sharding {
  int stage = 0;
  std::string by;  // "the distributed optimizer", "ZeRO-3", "Megatron FSDP (optim_grads)"
};

std::optional<Sharding> sharding(const Job& job) {
  if (job.get_bool(Key::kUseTorchFsdp2).value_or(false)) return Sharding{3, "PyTorch FSDP2"};
  if (job.get_bool(Key::kUseMegatronFsdp).value_or(false)) {
    const Fact* strategy = job.fact(Key::kDataParallelShardingStrategy);
    // Megatron-LM's flag defaults to optim_grads_params; Megatron-Core's DDP config to no_shard.
    std::string s = strategy ? (strategy->value.kind() == Value::Kind::kString ? strategy->value.text() : "")
                    : megatron_lm_family(job.framework()) ? "optim_grads_params"
                                                          : "no_shard";
    int stage = s == "no_shard"             ? 0
                : s == "optim"              ? 1
                : s == "optim_grads"        ? 2
                : s == "optim_grads_params" ? 3
                                            : -1;
    if (stage < 0) return std::nullopt;
    return Sharding{stage, "Megatron FSDP (" + s + ")"};
  }
  if (job.framework() == Framework::kMegatronDeepSpeed) {
    // The stage is the DeepSpeed config's zero_optimization.stage, which --zero-stage mirrors by convention.
    const Fact* zero = job.fact(Key::kZeroStage);
    if (!zero) return std::nullopt;
    auto stage = zero->value.as_int();
    if (!stage || *stage < 0 || *stage > 3) return std::nullopt;
    return Sharding{static_cast<int>(*stage), fmt::format("ZeRO-{}", *stage)};
  }
  auto distopt = job.get_bool(Key::kUseDistributedOptimizer);
  if (!distopt) {
    if (megatron_lm_family(job.framework()) || job.framework() == Framework::kNemo1) return Sharding{0, ""};
    return std::nullopt;
  }
  return *distopt ? Sharding{1, "the distributed optimizer"} : Sharding{0, ""};
}

// Adapters set (cfg.peft = LoRA(), peft=llm.peft.LoRA()): anything but None or "none".
bool peft_on(const Job& job) {
  const Fact* f = job.fact(Key::kPeft);
  if (!f) return false;
  if (auto b = f->value.as_bool()) return *b;
  if (f->value.kind() == Value::Kind::kString) {
    std::string s = f->value.text();
    return !s.empty() && s != "none" && s != "None" && s != "null";
  }
  return f->value.kind() != Value::Kind::kNull;
}

}  // namespace

std::vector<std::string> memory_inputs_missing(const Job& job) {
  std::vector<std::string> missing;
  for (Key k : {Key::kHiddenSize, Key::kNumAttentionHeads, Key::kNumLayers, Key::kVocabSize, Key::kSeqLength,
                Key::kMicroBatchSize, Key::kWorldSize})
    if (!job.get_int(k)) missing.emplace_back(key_name(k));
  if (!job.get_int(Key::kFfnHiddenSize) && !job.get_int(Key::kMoeFfnHiddenSize))
    missing.emplace_back("ffn_hidden_size");
  if (!job.mesh()) missing.emplace_back("parallel sizes");
  if (!sharding(job)) {
    if (job.framework() == Framework::kMegatronDeepSpeed)
      missing.emplace_back("zero_stage");
    else if (job.get_bool(Key::kUseMegatronFsdp).value_or(false))
      missing.emplace_back("data_parallel_sharding_strategy");
    else
      missing.emplace_back("use_distributed_optimizer");
  }
  return missing;
}

namespace {

// Inputs the caller supplies in place of the job's (assumed, or chosen to compare).
struct Supplied {
  std::optional<double> micro_batch;
  std::optional<Sharding> sharding;
  std::vector<AssumedInput> assumed;
};

// The distributed optimizer as a framework leaves it when the job does not say, and why; nullopt where
// parlint knows no default to assume (Megatron-DeepSpeed's ZeRO stage, an FSDP strategy, verl).
std::optional<AssumedInput> default_distributed_optimizer(const Job& job) {
  AssumedInput a;
  a.key = Key::kUseDistributedOptimizer;
  a.framework = job.framework();
  switch (job.framework()) {
    case Framework::kUnknown:
      a.value = Value::boolean(false);
      a.reason =
          "not set; Megatron-Core's default (use_distributed_optimizer=False in "
          "DistributedDataParallelConfig "
          "and OptimizerConfig): fp32 master weights and Adam state are not sharded";
      return a;
    case Framework::kMegatronBridge:
      a.value = Value::boolean(true);
      a.reason =
          "not set; Megatron-Bridge's recipes turn it on (_pretrain_common in recipes/common.py), though its "
          "config classes alone default to off";
      return a;
    case Framework::kNemo2: {
      int on = 0, all = 0;
      for (const auto& r : builtin_recipes())
        if (r.is_nemo2() && r.function == "pretrain_recipe" && r.distributed_optimizer) {
          ++all;
          on += *r.distributed_optimizer;
        }
      a.value = Value::boolean(true);
      a.reason =
          fmt::format("not set; {} of the {} NeMo 2 pretraining recipes parlint knows turn it on", on, all);
      return a;
    }
    default:
      return std::nullopt;
  }
}

// The model, layout and batch the estimate is made of; nullopt when the layout leaves a data-parallel
// group empty.
std::optional<Inputs> read_inputs(const Job& job, const Supplied& supplied) {
  auto mesh = *job.mesh();
  Inputs in{};
  in.h = *num(job, Key::kHiddenSize);
  in.a = *num(job, Key::kNumAttentionHeads);
  in.g = num(job, Key::kNumQueryGroups).value_or(in.a);
  in.d = num(job, Key::kKvChannels).value_or(in.h / in.a);
  in.L = *num(job, Key::kNumLayers);
  in.V = *num(job, Key::kVocabSize);
  in.f = num(job, Key::kFfnHiddenSize).value_or(4 * in.h);
  in.s = *num(job, Key::kSeqLength);
  in.b = supplied.micro_batch ? *supplied.micro_batch : *num(job, Key::kMicroBatchSize);
  in.world = *num(job, Key::kWorldSize);
  in.t = static_cast<double>(mesh.tp);
  in.p = static_cast<double>(mesh.pp);
  in.c = static_cast<double>(mesh.cp);
  in.e = static_cast<double>(mesh.ep);
  in.te = static_cast<double>(mesh.etp);
  in.sp = job.get_bool(Key::kSequenceParallel).value_or(false);
  in.v = num(job, Key::kVirtualPipelineModelParallelSize);
  in.untied = !job.get_bool(Key::kShareEmbeddingsAndOutputWeights).value_or(true);
  if (auto experts = num(job, Key::kNumMoeExperts); experts && *experts > 0) {
    in.E = *experts;
    in.k = num(job, Key::kMoeRouterTopk).value_or(2);
    in.f_moe = num(job, Key::kMoeFfnHiddenSize).value_or(in.f);
  }
  // An ungated MLP has two matrices, not SwiGLU's three: --squared-relu, and Megatron-LM without --swiglu
  // (its GeLU default). Where swiglu is not known, SwiGLU.
  in.squared_relu = job.get_bool(Key::kSquaredRelu).value_or(false);
  in.gated = !in.squared_relu && job.get_bool(Key::kSwiglu).value_or(true);
  if (auto latent = num(job, Key::kMoeLatentSize); latent && *latent > 0) in.latent = *latent;
  if (auto shared = num(job, Key::kMoeSharedExpertIntermediateSize); shared && *shared > 0)
    in.f_shared = *shared;
  if (const Fact* pattern = job.fact(Key::kHybridLayerPattern);
      pattern && pattern->value.kind() == Value::Kind::kString) {
    auto parsed = parse_hybrid_pattern(pattern->value.text());
    if (parsed.error.empty() && parsed.pattern && parsed.pattern->layers > 0) {
      HybridLayers layers;
      for (char c : parsed.pattern->main) {
        if (c == 'M' || c == 'G') layers.mixers += 1;
        if (c == '*' || c == 'D' || c == '+') layers.attention += 1;
        if (c == '-') layers.mlp += 1;
        if (c == 'E') layers.moe += 1;
      }
      in.hybrid = layers;
      in.L = static_cast<double>(parsed.pattern->layers);
      // Mamba's inner width: heads x head dimension, or twice the hidden size (expand=2).
      auto heads = num(job, Key::kMambaNumHeads);
      in.mamba_inner = heads ? *heads * num(job, Key::kMambaHeadDim).value_or(64) : 2 * in.h;
    }
  }
  double dp = in.world / (in.t * in.p * in.c), edp = in.world / (in.p * in.e * in.te);
  if (dp < 1 || edp < 1) return std::nullopt;
  if (auto gbs = num(job, Key::kGlobalBatchSize)) in.m = *gbs / (in.b * dp);

  return in;
}

// Weights, gradients and optimizer state per GPU: the parameters each GPU holds (TP-sharded,
// replicated, routed experts) times the bytes each takes under the job's sharding.
void add_weights_and_optimizer(const Job& job, const Inputs& in, const Sharding& shard, MemoryEstimate& out) {
  double dp = in.world / (in.t * in.p * in.c), edp = in.world / (in.p * in.e * in.te);
  // SwiGLU (3hf) unless the MLP is ungated (--squared-relu: 2hf).
  const double q = in.d * in.a, gamma = in.gated ? 1.5 : 1.0;
  double attention = 2 * in.h * q * (1 + in.g / in.a);
  double dense_mlp = 2 * in.h * in.f * gamma;
  double norms = 2 * in.h;  // RMSNorm
  bool moe = in.E > 0;
  // Latent MoE: the experts' matrices are latent x f_moe, with one projection down and one back up.
  const double expert_width = in.latent > 0 ? in.latent : in.h;
  double experts = moe ? 2 * expert_width * in.f_moe * in.E * gamma : 0;
  double router = moe ? in.h * in.E : 0;
  double moe_dense = moe && in.latent > 0 ? 2 * in.h * in.latent : 0;
  moe_dense += moe ? 2 * in.h * in.f_shared * gamma : 0;  // and the shared expert, TP-sharded
  double tp_block = in.L * (attention + (moe ? moe_dense : dense_mlp));
  double rep_block = in.L * (norms + router);
  double exp_block = in.L * experts;
  if (in.hybrid) {
    // One sublayer per symbol: a Mamba mixer (in_proj ~ h x 2·inner plus the states, out_proj inner x h),
    // attention, a dense MLP or the experts, each with its norm.
    const HybridLayers& n = *in.hybrid;
    double mixer = 3 * in.h * in.mamba_inner;
    tp_block = n.mixers * mixer + n.attention * attention + n.mlp * dense_mlp + n.moe * moe_dense;
    rep_block = in.L * in.h + n.moe * router;
    exp_block = n.moe * experts;
  }
  double p_tp = (tp_block / in.p + in.h * in.V) / in.t;
  // A separate output layer lives on the last stage; with one stage it shares the GPU with the embedding.
  if (in.untied && in.p == 1) p_tp += in.h * in.V / in.t;
  double p_rep = rep_block / in.p;
  double p_exp = exp_block / in.p / (in.te * in.e);
  // bf16 weights (2 bytes), fp32 gradients (4) and Adam's fp32 master weights and moments (12), each
  // divided over the data-parallel group from the stage that shards it.
  auto bytes = [&](double group) {
    switch (shard.stage) {
      case 1:
        return 6 + 12 / group;
      case 2:
        return 2 + 16 / group;
      case 3:
        return 18 / group;
      default:
        return 18.0;
    }
  };
  auto bytes_text = [&](double group) {
    switch (shard.stage) {
      case 1:
        return fmt::format("(6 + 12/{:g})", group);
      case 2:
        return fmt::format("(2 + 16/{:g})", group);
      case 3:
        return fmt::format("18/{:g}", group);
      default:
        return std::string("18");
    }
  };
  // The distributed optimizer shards dense state over the dp-cp group (Megatron-Bridge's estimate;
  // Megatron-LM's formula uses DP alone and overstates it under CP) and expert state over expert DP.
  double weights = (p_tp + p_rep) * bytes(dp * in.c) + p_exp * bytes(edp);
  // bf16 gradients (grad_reduce_in_fp32 off) save 2 bytes per parameter: the least any setting needs.
  double grad_dense = shard.stage >= 2 ? dp * in.c : 1, grad_expert = shard.stage >= 2 ? edp : 1;
  double weights_min = weights - 2 * ((p_tp + p_rep) / grad_dense + p_exp / grad_expert);
  // PEFT (LoRA, DoRA) trains adapters only: the frozen base weights carry no gradients or optimizer
  // state; the adapters' own are a small fraction and not counted.
  const bool peft = peft_on(job);
  if (peft) weights = weights_min = 2 * (p_tp + p_rep + p_exp);
  out.params_per_gpu = p_tp + p_rep + p_exp;
  out.expert_params_per_gpu = p_exp;
  out.weights_optimizer_gib = weights / kGiB;
  out.weights_optimizer_min_gib = weights_min / kGiB;
  out.terms.push_back(fmt::format(
      "{:.2f}B parameters per GPU ({:.2f}B TP-sharded, {:.2f}B routed experts) x {} bytes = "
      "{:.1f} GiB for {}",
      out.params_per_gpu / 1e9, p_tp / 1e9, p_exp / 1e9, peft ? std::string("2") : bytes_text(dp * in.c),
      out.weights_optimizer_gib,
      peft ? "the frozen weights (PEFT: only the adapters train)" : "weights, gradients and optimizer"));
  if (!shard.by.empty() && shard.by != "the distributed optimizer")
    out.terms.back() += " (sharded by " + shard.by + ")";
}

// Activations of the first pipeline stage's in-flight micro-batches, by the recompute the job asks for.
void add_activations(const Job& job, const Inputs& in, MemoryEstimate& out) {
  double act;
  // A hybrid pattern's layer is one sublayer (a mixer, attention, an MLP or the experts): about half of a
  // transformer layer's activations.
  const double layers = in.hybrid ? in.L / 2 : in.L;
  const Fact* recompute = job.fact(Key::kRecomputeGranularity);
  std::string granularity =
      recompute && recompute->value.kind() == Value::Kind::kString ? recompute->value.text() : "";
  out.recompute_known = !granularity.empty();
  bool full = granularity == "full";
  if (full) {
    // Full recompute keeps only each layer's input (2 bytes per element, sharded by SP): every sublayer's.
    act = 2 * in.s * in.b * in.h * in.L + 8 * in.s * in.b * in.p + in.s * in.b * in.h * in.p;
  } else if (in.sp) {
    act = in.s * in.b * in.h * (18 + 4 * in.f / in.h) * layers + 8 * in.s * in.b * in.p +
          in.s * in.b * in.h * in.p;
  } else {
    act = in.s * in.b * in.h * (10 + 24 / in.t) * layers + 8 * in.s * in.b * in.p + in.s * in.b * in.h * in.p;
  }
  if (in.v && *in.v > 1)
    act *= 1 + (in.p - 1) / (in.p * *in.v);
  else if (in.p > 1 && in.m)
    act *= std::min(1.0, *in.m / in.p);
  if (full) {
    if (in.p == 1) act += 2 * (in.s * in.b * in.V / in.t + in.s * in.b * in.h);
    if (in.sp) act /= in.t;
  } else if (in.sp) {
    if (in.p == 1) act += in.s * in.b * in.h * 4 * (1 + in.V / in.h);
    act /= in.t;
  } else {
    if (in.p == 1) act += 2 * (in.s * in.b * in.V / in.t + in.s * in.b * in.h);
    act *= 1.05;
  }
  act /= in.c;  // context parallelism splits the sequence (as Megatron-Bridge's estimate does)
  out.activations_gib = act / kGiB;
  out.terms.push_back(
      fmt::format("{:.1f} GiB of activations (seq {:g} / CP {:g}, micro-batch {:g}, {} layers on the "
                  "first stage's in-flight micro-batches)",
                  out.activations_gib, in.s, in.c, in.b, in.L / in.p));
  std::string recompute_text =
      full ? "activations with full recompute (layer inputs only)"
      : granularity == "none"
          ? "no recompute: with flash attention a layer stores what selective recompute keeps"
      : granularity.empty() ? "recompute not set: activations as with selective recompute"
                            : "activations with " + granularity + " recompute";
  out.assumptions = {recompute_text + (in.sp  ? ", sharded by sequence parallelism"
                                       : full ? ""
                                              : " (Megatron-LM's branch without sequence parallelism)"),
                     std::string("bf16 parameters, fp32 gradients and Adam state; ") +
                         (in.gated          ? "SwiGLU MLP"
                          : in.squared_relu ? "squared-ReLU MLP (ungated)"
                                            : "GeLU MLP (ungated, no --swiglu)") +
                         (in.hybrid ? "; the hybrid pattern's layers by kind" : "") + "; RMSNorm",
                     "not modelled: CPU offload, CUDA graphs, NCCL buffers and allocator overhead"};
}

std::optional<MemoryEstimate> estimate(const Job& job, const Supplied& supplied) {
  std::vector<std::string> missing = memory_inputs_missing(job);
  std::erase_if(missing, [&](const std::string& m) {
    return (m == key_name(Key::kMicroBatchSize) && supplied.micro_batch) ||
           (m == key_name(Key::kUseDistributedOptimizer) && supplied.sharding);
  });
  if (!missing.empty()) return std::nullopt;
  std::optional<Inputs> in = read_inputs(job, supplied);
  if (!in) return std::nullopt;
  MemoryEstimate out;
  add_weights_and_optimizer(job, *in, supplied.sharding ? *supplied.sharding : *sharding(job), out);
  add_activations(job, *in, out);
  out.total_gib = out.weights_optimizer_gib + out.activations_gib;
  out.assumed = supplied.assumed;
  return out;
}

// What estimate_memory_assuming() supplies for `job`: the micro-batch size and the optimizer's sharding
// when the job leaves them out or they are unknown, and nothing else.
Supplied assumptions_for(const Job& job) {
  Supplied s;
  std::vector<std::string> missing = memory_inputs_missing(job);
  auto is_missing = [&](Key k) {
    return std::find(missing.begin(), missing.end(), key_name(k)) != missing.end();
  };
  if (is_missing(Key::kMicroBatchSize)) {
    const Fact* f = job.fact(Key::kMicroBatchSize);
    AssumedInput a;
    a.key = Key::kMicroBatchSize;
    a.value = Value::integer(1);
    a.framework = job.framework();
    int ones = 0, all = 0;
    for (const auto& r : builtin_recipes())
      if (r.mbs) {
        ++all;
        ones += *r.mbs == 1;
      }
    a.reason = fmt::format(
        "{}; the smallest, which {} of the {} published recipes parlint knows use (activations "
        "grow with it)",
        f && f->value.is_unknown() ? "unknown (" + f->value.unknown_reason() + ")" : "not set", ones, all);
    s.micro_batch = 1;
    s.assumed.push_back(std::move(a));
  }
  if (is_missing(Key::kUseDistributedOptimizer))
    if (auto a = default_distributed_optimizer(job)) {
      s.sharding = *a->value.as_bool() ? Sharding{1, "the distributed optimizer"} : Sharding{0, ""};
      s.assumed.push_back(std::move(*a));
    }
  return s;
}

}  // namespace

std::optional<MemoryEstimate> estimate_memory(const Job& job) {
  return estimate(job, {});
}

std::optional<MemoryEstimate> estimate_memory_assuming(const Job& job) {
  return estimate(job, assumptions_for(job));
}

std::optional<MemoryEstimate> estimate_memory_with_distributed_optimizer(const Job& job, bool on) {
  Supplied s = assumptions_for(job);
  std::erase_if(s.assumed, [](const AssumedInput& a) { return a.key == Key::kUseDistributedOptimizer; });
  s.sharding = on ? Sharding{1, "the distributed optimizer"} : Sharding{0, ""};
  return estimate(job, s);
}

}  // namespace parlint
