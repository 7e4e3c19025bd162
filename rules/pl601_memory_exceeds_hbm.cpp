// PL601 memory-exceeds-hbm: the estimated per-GPU training memory exceeds the GPU's memory.
#include <fmt/format.h>

#include "lint/resolve/memory_model.h"
#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize,
                          Key::kPipelineModelParallelSize,
                          Key::kVirtualPipelineModelParallelSize,
                          Key::kContextParallelSize,
                          Key::kExpertModelParallelSize,
                          Key::kExpertTensorParallelSize,
                          Key::kSequenceParallel,
                          Key::kPeft,
                          Key::kDataParallelShardingStrategy,
                          Key::kRecomputeGranularity,
                          Key::kNumLayers,
                          Key::kHiddenSize,
                          Key::kFfnHiddenSize,
                          Key::kNumAttentionHeads,
                          Key::kNumQueryGroups,
                          Key::kKvChannels,
                          Key::kNumMoeExperts,
                          Key::kMoeRouterTopk,
                          Key::kMoeFfnHiddenSize,
                          Key::kVocabSize,
                          Key::kShareEmbeddingsAndOutputWeights,
                          Key::kSeqLength,
                          Key::kGlobalBatchSize,
                          Key::kMicroBatchSize,
                          Key::kUseDistributedOptimizer,
                          Key::kZeroStage,
                          Key::kUseMegatronFsdp,
                          Key::kUseTorchFsdp2,
                          Key::kHybridLayerPattern,
                          Key::kMambaNumHeads,
                          Key::kMambaHeadDim,
                          Key::kSquaredRelu,
                          Key::kSwiglu,
                          Key::kMoeLatentSize,
                          Key::kMoeSharedExpertIntermediateSize,
                          Key::kWorldSize};

constexpr RuleInfo kInfo{
    "PL601",
    "memory-exceeds-hbm",
    Severity::kWarning,
    "estimated per-GPU memory (weights, gradients, optimizer state, activations) > the GPU's memory",
    R"md(# PL601 memory-exceeds-hbm

## What it does
Estimates the memory one GPU of the most-loaded pipeline stage needs — parameters, gradients and
optimizer state by sharding bucket, plus activations — with Megatron-LM's theoretical formulas, and
warns when it exceeds the cluster profile's GPU memory. Activations depend on the recompute setting
(`recompute_granularity`, `--recompute-activations`, NeMo's `activations_checkpoint_granularity`): when
it is stated, the whole estimate counts; when it is not, only the parameters, gradients and optimizer
state (with bf16 gradients, the least any setting needs) are compared, so the finding never rests on a
guess. It fires only when every input is known (hidden size, heads, layers, vocabulary, sequence length,
micro-batch size, world size, parallel sizes).

The parameters follow the model's own shape: the MLP is SwiGLU (three matrices) unless `--squared-relu`
makes it ungated (two), and a Megatron-LM launch's is GeLU (two) unless it passes `--swiglu`, with
`ffn_hidden_size` defaulting to 4h, or 8h/3 rounded down to 64 with `--swiglu`
(`megatron/training/arguments.py:1320-1329@d98e8a64ddf3`); experts work in `moe_latent_size` when it is set (with a projection down from and
back to the hidden size), and `moe_shared_expert_intermediate_size` adds a dense MLP beside them. A hybrid
model (`hybrid_layer_pattern`) is counted layer by layer: each symbol is one sublayer — a Mamba mixer
(`M`, `G`), attention (`*`, `D`, `+`), a dense MLP (`-`) or the experts (`E`) — so only the `E` layers
hold experts, and each sublayer carries about half a transformer layer's activations.

## Why
An out-of-memory error comes after the job has waited in the queue and loaded its checkpoint. The
estimate is a floor: NCCL buffers, the allocator's fragmentation and CUDA graphs come on top.

## Example
```yaml
trainer: {num_nodes: 1, devices: 8}
model:
  num_layers: 80
  hidden_size: 8192
  ffn_hidden_size: 28672
  num_attention_heads: 64
  num_query_groups: 8
  vocab_size: 128256
  encoder_seq_length: 8192
  micro_batch_size: 1
  tensor_model_parallel_size: 8
```

## Fix
```yaml
trainer: {num_nodes: 4, devices: 8}
model:
  num_layers: 80
  hidden_size: 8192
  ffn_hidden_size: 28672
  num_attention_heads: 64
  num_query_groups: 8
  vocab_size: 128256
  encoder_seq_length: 8192
  micro_batch_size: 1
  tensor_model_parallel_size: 8
  pipeline_model_parallel_size: 4
  sequence_parallel: true
```

## Framework behaviour
CUDA out of memory at the first step (or later, when activations peak). With PEFT (Megatron-Bridge
`cfg.peft = LoRA(...)`, NeMo 2 `peft=`) the base weights are frozen: they cost their 2 bf16 bytes and
no gradients or optimizer state (the adapters' own state is small and not counted). Megatron-Bridge turns
the distributed optimizer on for both `ddp` and `optimizer` when either has it, so one side written
`False` does not turn it off.

## Configuration
The GPU memory comes from the cluster profile (`--cluster`, or `cluster: {gpu_memory_gib: …}`).

## References
- Megatron-LM `megatron/training/theoretical_memory_usage.py:12@d98e8a64ddf3` (parameters, gradients and
  optimizer state per GPU, by sharding bucket)
- Megatron-LM `megatron/training/theoretical_memory_usage.py:308@d98e8a64ddf3` and `:382` (activations
  with SP and selective recompute, and without; chosen at line 466)
- Megatron-Bridge `src/megatron/bridge/training/utils/theoretical_memory_utils.py:123@067f987df03b`
  (`estimate_training_memory`, Megatron-Bridge's version)
- Megatron-Bridge `src/megatron/bridge/peft/base.py:176-190@067f987df03b` (PEFT freezes the base
  parameters: `requires_grad = False`)
- Megatron-LM `megatron/training/arguments.py:2448@d98e8a64ddf3` (`--squared-relu`: the activation without
  a gate) and `megatron/core/transformer/transformer_config.py:952@d98e8a64ddf3` (`moe_latent_size`)
- Megatron-Bridge `src/megatron/bridge/training/config.py:2101-2123@067f987df03b` (the distributed
  optimizer is on for both ddp and optimizer when either sets it)
- Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
  arXiv:2205.05198 (activation bytes per layer, Table 2)
)md",
    kReads};

class MemoryExceedsHbm final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (!job.trains()) return;  // a generation, serving or conversion run: no training to tune or fail
    auto est = estimate_memory(job);
    double hbm = job.cluster().gpu_memory_gib;
    // Activations depend on recompute, offloading and CUDA graphs, which configurations rarely state; the
    // finding rests on what is certain: parameters, gradients and optimizer state alone do not fit.
    if (!est || hbm <= 0) return;  // no profile knows this GPU's memory
    // With the recompute setting stated, the whole estimate counts; otherwise only the certain part.
    bool over = est->recompute_known ? est->total_gib > hbm : est->weights_optimizer_min_gib > hbm;
    if (!over) return;
    const Fact* at = nullptr;
    for (Key k : {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize, Key::kMicroBatchSize})
      if (const Fact* f = job.fact(k); f && f->location.in_file()) {
        at = f;
        break;
      }
    Finding f;
    f.location = at ? at->location : Location{job.path(), job.range()};
    f.weak = job.fact(Key::kWorldSize)->weak;
    f.message = fmt::format("estimated {:.1f} GiB per GPU exceeds the {:g} GiB of each {}: {}; {}",
                            est->total_gib, hbm, describe_gpu(job), est->terms[0], est->terms[1]);
    f.help =
        "shard more (TP within the node, PP across nodes, the distributed optimizer, SP), or lower the "
        "micro-batch size; the estimate leaves out NCCL buffers and fragmentation";
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(MemoryExceedsHbm);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
