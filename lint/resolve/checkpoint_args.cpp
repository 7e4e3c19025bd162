#include "lint/resolve/checkpoint_args.h"

namespace parlint {
namespace {

// Megatron-LM load_args_from_checkpoint (megatron/training/checkpointing.py:2256-2343@d98e8a64ddf3):
// _set_arg(name) fills an argument that is still None; _set_arg(name, force=True) replaces it.
constexpr Key kLmUnwritten[] = {
    Key::kNumLayers,         Key::kHiddenSize, Key::kFfnHiddenSize,      Key::kSeqLength,
    Key::kNumAttentionHeads, Key::kKvChannels, Key::kHybridLayerPattern, Key::kMoeTokenDispatcherType,
    Key::kVocabSize,         Key::kCkptFormat};
constexpr Key kLmForced[] = {Key::kNumQueryGroups,   Key::kGroupQueryAttention,
                             Key::kAddBiasLinear,    Key::kShareEmbeddingsAndOutputWeights,
                             Key::kMtpNumLayers,     Key::kNumMoeExperts,
                             Key::kMoeFfnHiddenSize, Key::kMoeRouterTopk,
                             Key::kMambaHeadDim,     Key::kMambaNumGroups,
                             Key::kMambaNumHeads};
// With --use-mp-args-from-checkpoint-args (checkpointing.py:2335-2342@d98e8a64ddf3); before ba7ea15abb
// (Megatron-Core 0.10) for every checkpoint of version 3 or later, as Megatron-DeepSpeed still does.
constexpr Key kSizes[] = {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize,
                          Key::kVirtualPipelineModelParallelSize, Key::kNumLayersPerVirtualPipelineStage,
                          Key::kExpertModelParallelSize};
// Megatron-DeepSpeed (megatron/checkpointing.py:489-528@f4157bea69f3): the parallel sizes are replaced
// for every checkpoint of version 3 or later, that is unless the checkpoint is older than parlint can tell.
constexpr Key kDsUnwritten[] = {Key::kNumLayers,  Key::kHiddenSize,        Key::kFfnHiddenSize,
                                Key::kSeqLength,  Key::kNumAttentionHeads, Key::kNumQueryGroups,
                                Key::kKvChannels, Key::kVocabSize};
constexpr Key kDsForced[] = {Key::kAddBiasLinear, Key::kShareEmbeddingsAndOutputWeights};
constexpr Key kDsSizes[] = {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize,
                            Key::kVirtualPipelineModelParallelSize};

}  // namespace

CheckpointArgKeys checkpoint_arg_keys(Framework framework) {
  if (framework == Framework::kMegatronDeepSpeed) return {kDsUnwritten, kDsForced, kDsSizes};
  if (framework == Framework::kMegatronLM) return {kLmUnwritten, kLmForced, kSizes};
  return {};
}

}  // namespace parlint
