#include "lint/model/keys.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace parlint {
namespace {

std::optional<KeyMatch> path(std::initializer_list<std::string> parts) {
  std::vector<std::string> v(parts);
  return match_config_path(v);
}

TEST(Keys, CanonicalNamesRoundTrip) {
  for (std::size_t i = 0; i < kKeyCount; ++i) {
    Key k = static_cast<Key>(i);
    EXPECT_EQ(key_from_name(key_name(k)), k);
  }
}

TEST(Keys, ConfigPathsAcrossFrameworks) {
  EXPECT_EQ(path({"model", "tensor_model_parallel_size"})->key, Key::kTensorModelParallelSize);
  EXPECT_EQ(path({"trainer", "strategy", "context_parallel_size"})->key, Key::kContextParallelSize);
  EXPECT_EQ(path({"training", "model", "pipeline_model_parallel_size"})->key,
            Key::kPipelineModelParallelSize);
  EXPECT_EQ(path({"training", "trainer", "num_nodes"})->key, Key::kNodes);
  EXPECT_EQ(path({"trainer", "devices"})->key, Key::kGpusPerNode);
  EXPECT_EQ(path({"model", "encoder_seq_length"})->key, Key::kSeqLength);
  EXPECT_EQ(path({"model", "num_experts"})->key, Key::kNumMoeExperts);
  EXPECT_EQ(path({"train", "global_batch_size"})->key, Key::kGlobalBatchSize);
  EXPECT_EQ(path({"tensor_model_parallel_size"})->key, Key::kTensorModelParallelSize);
  EXPECT_EQ(path({"env_vars", "CUDA_DEVICE_MAX_CONNECTIONS"})->key, Key::kCudaDeviceMaxConnections);
}

TEST(Keys, SeqLengthPriorities) {
  EXPECT_GT(path({"dataset", "seq_length"})->priority, path({"model", "seq_length"})->priority);
  EXPECT_LT(path({"model", "data", "seq_length"})->priority, path({"model", "encoder_seq_length"})->priority);
}

TEST(Keys, UnrelatedSectionsDoNotMatch) {
  EXPECT_FALSE(path({"exp_manager", "tensor_model_parallel_size"}));
  EXPECT_FALSE(path({"trainer", "max_steps"}));
  EXPECT_FALSE(path({"model", "optim", "name"}));
  EXPECT_FALSE(path({"model", "devices"}));
  EXPECT_FALSE(path({"model", "world_size"}));
}

TEST(Keys, MegatronFlags) {
  EXPECT_EQ(match_megatron_flag("--tensor-model-parallel-size")->key, Key::kTensorModelParallelSize);
  EXPECT_EQ(match_megatron_flag("--num-experts")->key, Key::kNumMoeExperts);
  EXPECT_EQ(match_megatron_flag("--encoder-seq-length")->key, Key::kSeqLength);
  EXPECT_EQ(match_megatron_flag("--decoder-first-pipeline-num-layers")->key,
            Key::kNumLayersInFirstPipelineStage);
  EXPECT_TRUE(match_megatron_flag("--disable-bias-linear")->inverted);
  EXPECT_EQ(match_megatron_flag("--num-virtual-stages-per-pipeline-rank")->key,
            Key::kVirtualPipelineModelParallelSize);
  // Megatron-LM has no --virtual-pipeline-model-parallel-size flag; launch keys are not Megatron flags.
  EXPECT_FALSE(match_megatron_flag("--virtual-pipeline-model-parallel-size"));
  EXPECT_FALSE(match_megatron_flag("--nodes"));
  EXPECT_FALSE(match_megatron_flag("--tensor-parallel-size"));
  EXPECT_FALSE(match_megatron_flag("tensor-model-parallel-size"));
}

TEST(Keys, OnALaunchNodeAndDeviceCountsAreWhatTheFrameworkStarts) {
  EXPECT_EQ(as_launched(Key::kNodes), Key::kNnodes);
  EXPECT_EQ(as_launched(Key::kGpusPerNode), Key::kNprocPerNode);
  EXPECT_EQ(as_launched(Key::kTensorModelParallelSize), Key::kTensorModelParallelSize);
  EXPECT_EQ(as_launched(Key::kNnodes), Key::kNnodes);
}

TEST(Keys, EnvironmentVariablesAreTheVariablesTheRulesRead) {
  std::vector<std::string> names;
  for (Key k : environment_variable_keys()) {
    EXPECT_TRUE(is_environment_variable(k));
    names.emplace_back(key_name(k));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"CUDA_DEVICE_MAX_CONNECTIONS", "NEMO_HOME", "HF_HOME",
                                             "PYTORCH_CUDA_ALLOC_CONF", "NCCL_GRAPH_REGISTER", "NCCL_ALGO",
                                             "CUDA_GRAPHS_USE_NODE_PRIORITY"}));
  EXPECT_FALSE(is_environment_variable(Key::kWorldSize));
  EXPECT_FALSE(is_environment_variable(Key::kTensorModelParallelSize));
  // Not a setting anywhere but in an environment section.
  EXPECT_FALSE(match_config_path(std::vector<std::string>{"model", "HF_HOME"}));
}

TEST(Keys, MegatronFlagsForAKey) {
  EXPECT_EQ(megatron_flags_for(Key::kSequenceParallel), std::vector<std::string>{"--sequence-parallel"});
  auto experts = megatron_flags_for(Key::kNumMoeExperts);
  EXPECT_NE(std::find(experts.begin(), experts.end(), "--num-experts"), experts.end());
  // Only flags that set the key itself: --disable-bias-linear sets add_bias_linear to false.
  auto bias = megatron_flags_for(Key::kAddBiasLinear);
  EXPECT_EQ(std::find(bias.begin(), bias.end(), "--disable-bias-linear"), bias.end());
  EXPECT_TRUE(megatron_flags_for(Key::kNodes).empty());  // launch keys are not Megatron-LM flags
}

}  // namespace
}  // namespace parlint
