#pragma once
// Canonical setting keys (Megatron-Core field names) and the spellings that map onto them
// (Megatron-LM flags, Megatron-Bridge and NeMo config fields, Hydra overrides, launcher options).
// Parsers call the matchers; rules only ever see Key values.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace parlint {

#define PARLINT_KEYS(X)                                                                                  \
  X(kTensorModelParallelSize, "tensor_model_parallel_size", kInt)                                        \
  X(kPipelineModelParallelSize, "pipeline_model_parallel_size", kInt)                                    \
  X(kVirtualPipelineModelParallelSize, "virtual_pipeline_model_parallel_size", kInt)                     \
  X(kContextParallelSize, "context_parallel_size", kInt)                                                 \
  X(kHierarchicalContextParallelSizes, "hierarchical_context_parallel_sizes", kList)                     \
  X(kCpCommType, "cp_comm_type", kAny)                                                                   \
  X(kExperimentalAttentionVariant, "experimental_attention_variant", kAny)                               \
  X(kExpertModelParallelSize, "expert_model_parallel_size", kInt)                                        \
  X(kExpertTensorParallelSize, "expert_tensor_parallel_size", kInt)                                      \
  X(kSequenceParallel, "sequence_parallel", kBool)                                                       \
  X(kNumLayersInFirstPipelineStage, "num_layers_in_first_pipeline_stage", kInt)                          \
  X(kNumLayersInLastPipelineStage, "num_layers_in_last_pipeline_stage", kInt)                            \
  X(kAccountForEmbeddingInPipelineSplit, "account_for_embedding_in_pipeline_split", kBool)               \
  X(kAccountForLossInPipelineSplit, "account_for_loss_in_pipeline_split", kBool)                         \
  X(kPipelineModelParallelLayout, "pipeline_model_parallel_layout", kAny)                                \
  X(kNumLayersPerVirtualPipelineStage, "num_layers_per_virtual_pipeline_stage", kInt)                    \
  X(kMicrobatchGroupSizePerVpStage, "microbatch_group_size_per_vp_stage", kInt)                          \
  X(kUseTpPpDpMapping, "use_tp_pp_dp_mapping", kBool)                                                    \
  X(kMtpNumLayers, "mtp_num_layers", kInt)                                                               \
  X(kRecomputeGranularity, "recompute_granularity", kAny)                                                \
  X(kNumLayers, "num_layers", kInt)                                                                      \
  X(kHiddenSize, "hidden_size", kInt)                                                                    \
  X(kFfnHiddenSize, "ffn_hidden_size", kInt)                                                             \
  X(kNumAttentionHeads, "num_attention_heads", kInt)                                                     \
  X(kNumQueryGroups, "num_query_groups", kInt)                                                           \
  X(kGroupQueryAttention, "group_query_attention", kBool)                                                \
  X(kKvChannels, "kv_channels", kInt)                                                                    \
  X(kNumMoeExperts, "num_moe_experts", kInt)                                                             \
  X(kMoeRouterTopk, "moe_router_topk", kInt)                                                             \
  X(kMoeFfnHiddenSize, "moe_ffn_hidden_size", kInt)                                                      \
  X(kAddBiasLinear, "add_bias_linear", kBool)                                                            \
  X(kVocabSize, "vocab_size", kInt)                                                                      \
  X(kTokenizerType, "tokenizer_type", kAny)                                                              \
  X(kTokenizerModel, "tokenizer_model", kAny)                                                            \
  X(kVocabFile, "vocab_file", kAny)                                                                      \
  X(kShareEmbeddingsAndOutputWeights, "share_embeddings_and_output_weights", kBool)                      \
  X(kSeqLength, "seq_length", kInt)                                                                      \
  X(kGlobalBatchSize, "global_batch_size", kInt)                                                         \
  X(kMicroBatchSize, "micro_batch_size", kInt)                                                           \
  X(kUseDistributedOptimizer, "use_distributed_optimizer", kBool)                                        \
  X(kZeroStage, "zero_stage", kInt)                                                                      \
  X(kUseMegatronFsdp, "use_megatron_fsdp", kBool)                                                        \
  X(kDataParallelShardingStrategy, "data_parallel_sharding_strategy", kAny)                              \
  X(kUseTorchFsdp2, "use_torch_fsdp2", kBool)                                                            \
  X(kTpCommOverlap, "tp_comm_overlap", kBool)                                                            \
  X(kPeft, "peft", kAny) /* Bridge cfg.peft, NeMo 2 peft=: adapters on a frozen model */                 \
  X(kMoeTokenDispatcherType, "moe_token_dispatcher_type", kAny)                                          \
  X(kMoeFlexDispatcherBackend, "moe_flex_dispatcher_backend", kAny)                                      \
  X(kMoeEnableDeepep, "moe_enable_deepep", kBool)                                                        \
  X(kMoeDispatchFwdDtype, "moe_dispatch_fwd_dtype", kAny)                                                \
  X(kMoeCombineBwdDtype, "moe_combine_bwd_dtype", kAny)                                                  \
  X(kMoeExpertRankCapacityFactor, "moe_expert_rank_capacity_factor", kAny)                               \
  X(kMoeSharedExpertOverlap, "moe_shared_expert_overlap", kBool)                                         \
  X(kOverlapMoeExpertParallelComm, "overlap_moe_expert_parallel_comm", kBool)                            \
  X(kDelayWgradCompute, "delay_wgrad_compute", kBool)                                                    \
  X(kRecomputeMethod, "recompute_method", kAny)                                                          \
  X(kHybridLayerPattern, "hybrid_layer_pattern", kAny)                                                   \
  X(kMambaNumHeads, "mamba_num_heads", kInt)                                                             \
  X(kMambaNumGroups, "mamba_num_groups", kInt)                                                           \
  X(kMambaHeadDim, "mamba_head_dim", kInt)                                                               \
  X(kSquaredRelu, "squared_relu", kBool) /* Megatron-LM's flag: an ungated squared-ReLU MLP */           \
  X(kSwiglu, "swiglu", kBool)            /* Megatron-LM's flag: a gated (SwiGLU) MLP; GeLU without it */ \
  X(kMoeLatentSize, "moe_latent_size", kInt)                                                             \
  X(kMoeSharedExpertIntermediateSize, "moe_shared_expert_intermediate_size", kInt)                       \
  X(kLinearNumKeyHeads, "linear_num_key_heads", kInt)                                                    \
  X(kLinearNumValueHeads, "linear_num_value_heads", kInt)                                                \
  X(kMegatronFsdpVersion, "megatron_fsdp_version", kInt)                                                 \
  X(kCkptFormat, "ckpt_format", kAny)                                                                    \
  X(kFsdpManualRegistration, "fsdp_manual_registration", kBool)                                          \
  X(kNcclUb, "nccl_ub", kBool)                                                                           \
  X(kInitModelWithMetaDevice, "init_model_with_meta_device", kBool)                                      \
  X(kNumDistributedOptimizerInstances, "num_distributed_optimizer_instances", kInt)                      \
  X(kCudaGraphImpl, "cuda_graph_impl", kAny)                                                             \
  X(kCudaGraphScope, "cuda_graph_scope", kList)                                                          \
  X(kCudaGraphModules, "cuda_graph_modules", kList)                                                      \
  X(kInferenceCudaGraphScope, "inference_cuda_graph_scope", kAny)                                        \
  X(kEnableCudaGraph, "enable_cuda_graph", kBool)                                                        \
  X(kExternalCudaGraph, "external_cuda_graph", kBool)                                                    \
  X(kCpuOffloading, "cpu_offloading", kBool)                                                             \
  X(kCheckForNanInLossAndGrad, "check_for_nan_in_loss_and_grad", kBool)                                  \
  X(kPipelineModelParallelCommBackend, "pipeline_model_parallel_comm_backend", kAny)                     \
  X(kDeterministicMode, "deterministic_mode", kBool)                                                     \
  X(kWindowSize, "window_size", kAny)                                                                    \
  X(kOverlapP2pComm, "overlap_p2p_comm", kBool)                                                          \
  X(kTensorParallelNumWeightShards, "tensor_parallel_num_weight_shards", kInt)                           \
  /* a post-training framework's rollout engine, as its adapter reads it                 */              \
  X(kRolloutTensorParallelSize, "rollout_tensor_parallel_size", kInt)                                    \
  X(kRolloutDataParallelSize, "rollout_data_parallel_size", kInt)                                        \
  X(kRolloutPipelineParallelSize, "rollout_pipeline_parallel_size", kInt)                                \
  X(kRolloutExpertParallelSize, "rollout_expert_parallel_size", kInt)                                    \
  X(kRolloutWorldSize, "rollout_world_size", kInt)                                                       \
  X(kRolloutName, "rollout_name", kAny)                                                                  \
  X(kRolloutAsyncEngine, "rollout_async_engine", kBool)                                                  \
  X(kRolloutStepBatchSize, "rollout_step_batch_size", kInt)                                              \
  X(kRolloutSamples, "rollout_samples", kInt)                                                            \
  X(kRolloutGroupSize, "rollout_group_size", kInt)                                                       \
  X(kRolloutGpusPerEngine, "rollout_gpus_per_engine", kInt)                                              \
  X(kRolloutDpAttention, "rollout_dp_attention", kBool)                                                  \
  X(kNodes, "nodes", kInt)                                                                               \
  X(kGpusPerNode, "gpus_per_node", kInt)                                                                 \
  X(kNtasksPerNode, "ntasks_per_node", kInt)                                                             \
  X(kNprocPerNode, "nproc_per_node", kInt)                                                               \
  X(kNnodes, "nnodes", kInt)                                                                             \
  X(kWorldSize, "world_size", kInt)                                                                      \
  /* whether the Megatron checkout a launch runs from refuses to start without                           \
     CUDA_DEVICE_MAX_CONNECTIONS=1 (a fork may have dropped the check): false when not */                \
  X(kChecksCudaDeviceMaxConnections, "checks_cuda_device_max_connections", kBool)                        \
  /* environment variables: keep them last (is_environment_variable) */                                  \
  X(kCudaDeviceMaxConnections, "CUDA_DEVICE_MAX_CONNECTIONS", kAny)                                      \
  X(kNemoHome, "NEMO_HOME", kAny)                                                                        \
  X(kHfHome, "HF_HOME", kAny)                                                                            \
  X(kPytorchCudaAllocConf, "PYTORCH_CUDA_ALLOC_CONF", kAny)                                              \
  X(kNcclGraphRegister, "NCCL_GRAPH_REGISTER", kAny)                                                     \
  X(kNcclAlgo, "NCCL_ALGO", kAny)                                                                        \
  X(kCudaGraphsUseNodePriority, "CUDA_GRAPHS_USE_NODE_PRIORITY", kAny)

enum class Key : std::uint8_t {
#define PARLINT_KEY_ENUM(id, name, type) id,
  PARLINT_KEYS(PARLINT_KEY_ENUM)
#undef PARLINT_KEY_ENUM
};
inline constexpr std::size_t kKeyCount = 0
#define PARLINT_KEY_COUNT(id, name, type) +1
    PARLINT_KEYS(PARLINT_KEY_COUNT)
#undef PARLINT_KEY_COUNT
    ;

// What a key's value should look like; parsers use it to read "2" as an int and "True" as a bool.
enum class KeyType { kInt, kBool, kList, kAny };

std::string_view key_name(Key key);
KeyType key_type(Key key);
std::optional<Key> key_from_name(std::string_view canonical_name);

// A framework's node and device counts (trainer.num_nodes, trainer.devices) where a launch gives them
// (on its command line, in a config it selects, in a recipe a NeMo-Run executor runs) are what the
// framework starts, not what the allocation holds: kNodes -> kNnodes, kGpusPerNode -> kNprocPerNode.
// Every other key is itself.
Key as_launched(Key key);

// The parallel layout sizes and sequence parallelism (TP, PP, VPP, CP, EP, ETP, SP): the keys every
// framework writes side by side (model., trainer.strategy., cfg.model., one flag group).
bool is_parallel_layout_key(Key key);

// The environment variables the rules read (CUDA_DEVICE_MAX_CONNECTIONS, NCCL_ALGO, ...): keys named
// as the variable is, set by `export`, `env`, launcher options and env_vars sections, never by settings.
bool is_environment_variable(Key key);
std::span<const Key> environment_variable_keys();

// A spelling that maps onto a key. `priority` orders spellings of one key within one file
// (Bridge: dataset.seq_length wins over model.seq_length); `inverted` flips a boolean
// (--disable-bias-linear sets add_bias_linear to false).
struct KeyMatch {
  Key key;
  int priority = 1;
  bool inverted = false;
};

// A setting's name as a config key, its canonical name or a known alias (decoder_last_pipeline_num_layers,
// untie_embeddings_and_output_weights, inverted): whatever section it sits in.
std::optional<KeyMatch> match_setting_name(std::string_view leaf);

// The command-line flags that set `key` directly (not inverted ones such as --disable-bias-linear), the
// dashed canonical name first when it is one: --sequence-parallel; --num-moe-experts, --num-experts.
std::vector<std::string> megatron_flags_for(Key key);

// A dotted configuration path, already split into components: trainer.strategy.context_parallel_size,
// model.tensor_model_parallel_size, training.model.num_layers, dataset.seq_length.
std::optional<KeyMatch> match_config_path(std::span<const std::string> path);

// A Megatron-LM command-line flag with its dashes: --tensor-model-parallel-size, --num-experts.
std::optional<KeyMatch> match_megatron_flag(std::string_view flag);

// What a script variable's name says it holds: TP, TP_SIZE, TENSOR_PARALLEL_SIZE -> TP; NNODES,
// NUM_NODES -> nodes; NUM_GPUS, TOTAL_GPUS -> GPU count (kGpusPerNode stands for any GPU count);
// WORLD_SIZE -> world size. Used for expressions such as NODES=$(( TP*PP*EP/8 )).
std::optional<Key> key_for_variable_name(std::string_view name);

}  // namespace parlint
