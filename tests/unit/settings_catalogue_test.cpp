// The generated catalogue of real settings (rules/data/settings_catalogue.tsv): what PL801 must never
// call unknown, and misspellings it must still see.
#include "lint/knowledge/settings_catalogue.h"

#include <gtest/gtest.h>

namespace parlint {
namespace {

TEST(SettingsCatalogue, RealSettingsOfEveryFrameworkAreKnown) {
  for (const char* flag :
       {"--ckpt-fully-parallel-load", "--ckpt-fully-parallel-save", "--no-ckpt-fully-parallel-save",
        "--tensor-model-parallel-size", "--overlap-moe-expert-parallel-comm", "--no-pipeline-parallel",
        "--ds-sequence-parallel-size", "--moe-expert-parallel-size", "--zero-stage", "--deepspeed",
        "--deepspeed_config"})  // Megatron-DeepSpeed
    EXPECT_TRUE(is_training_flag(flag)) << flag;
  for (const char* flag : {"--target-tensor-parallel-size", "--target-pipeline-parallel-size"})  // converters
    EXPECT_TRUE(is_tool_flag(flag)) << flag;
  for (const char* key :
       {"fully_parallel_save", "fully_parallel_load", "ckpt_parallel_load", "sequence_length",
        "overlap_moe_expert_parallel_comm", "dist_ckpt_parallel_save", "dist_ckpt_parallel_save_within_dp",
        "_pipeline_model_parallel_layout_builder", "pipe_parallel_size", "pipe-parallel-size",
        "model_parallel_size", "output_layer_parallelism", "tensor_model_parallel_size"})
    EXPECT_TRUE(is_real_setting_key(key)) << key;
}

TEST(SettingsCatalogue, MisspellingsAreNotSettings) {
  EXPECT_FALSE(is_real_setting_key("expert_tensor_model_parallel_size"));
  EXPECT_FALSE(is_real_setting_key("tensor_model_paralel_size"));
  EXPECT_FALSE(is_training_flag("--expert-tensor-model-parallel-size"));
  EXPECT_FALSE(is_training_flag("--tensor-parallel-size"));  // a converter's flag, not pretrain_gpt.py's
  EXPECT_TRUE(is_tool_flag("--tensor-parallel-size"));
  EXPECT_FALSE(is_tool_flag("--pipeline-parallel-size-typo"));
  EXPECT_EQ(normalise_setting_name("--foo-bar"), "foo_bar");
  EXPECT_EQ(normalise_setting_name("-tp"), "tp");
}

}  // namespace
}  // namespace parlint
