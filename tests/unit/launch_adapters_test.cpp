// The framework adapters of launches (parsers/frameworks): which launches each claims, the jobs it builds
// from them and what it adds to each, read from typed settings.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "parsers/frameworks/adapters.h"

namespace parlint {
namespace {

std::vector<Word> words(const std::string& line) {
  std::vector<Word> out;
  std::istringstream in(line);
  std::string t;
  int column = 1;
  while (in >> t) {
    Word w;
    w.text = t;
    w.location = {"run.sh", {{1, column}, {1, column + static_cast<int>(t.size()) - 1}}};
    column += static_cast<int>(t.size()) + 1;
    out.push_back(std::move(w));
  }
  return out;
}

struct Launch {
  std::vector<Word> args;
  LaunchCommand command;
  Launch(std::string_view entry, bool module, const std::string& line, std::string_view program = {})
      : args(words(line)), command{program, entry, module, LaunchKind::kPython, args} {}
};

std::vector<std::string> names(const std::vector<RoleLaunch>& roles) {
  std::vector<std::string> out;
  for (const auto& r : roles) out.push_back(r.role);
  return out;
}

const Fact* fact(const TrainingArgs& ta, Key key) {
  const Fact* out = nullptr;
  for (const Fact& f : ta.facts)
    if (f.key == key) out = &f;
  return out;
}

const Fact* fact(const RawJob& job, Key key) {
  const Fact* out = nullptr;
  for (const Fact& f : job.facts)
    if (f.key == key) out = &f;
  return out;
}

TEST(VerlAdapter, ClaimsItsModulesOnly) {
  EXPECT_TRUE(verl_adapter().claims(Launch("verl.trainer.main_ppo", true, "").command));
  EXPECT_FALSE(verl_adapter().claims(Launch("verl/trainer/main_ppo.py", false, "").command));
  EXPECT_EQ(framework_adapters().claimant(Launch("verl.trainer.main_ppo", true, "").command),
            &verl_adapter());
}

TEST(VerlAdapter, GaeBuildsTheCriticOnTheActorsSizes) {
  Launch l(
      "verl.trainer.main_ppo", true,
      "--config-name=ppo_megatron_trainer actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4 "
      "critic.megatron.tensor_model_parallel_size=2 "
      "+actor_rollout_ref.actor.megatron.override_transformer_config.num_layers_in_last_pipeline_stage=13");
  auto roles = verl_adapter().roles(l.command);
  ASSERT_EQ(names(roles), (std::vector<std::string>{"actor", "critic"}));  // gae is the config's default
  const RoleLaunch& critic = roles[1];
  const Fact* tp = fact(critic.settings, Key::kTensorModelParallelSize);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value.as_int(), 4);  // the actor's: verl sets the groups up once
  EXPECT_EQ(fact(critic.settings, Key::kNumLayersInLastPipelineStage), nullptr);  // its overrides are its own
  EXPECT_NE(fact(roles[0].settings, Key::kNumLayersInLastPipelineStage), nullptr);
  ASSERT_EQ(critic.ignored.size(), 1u);
  EXPECT_EQ(critic.ignored[0].loser.spelling, "critic.megatron.tensor_model_parallel_size");
}

TEST(VerlAdapter, KlLossBuildsTheReferenceWithTheActorsOverrides) {
  Launch l(
      "verl.trainer.main_ppo", true,
      "--config-name=ppo_megatron_trainer algorithm.adv_estimator=grpo "
      "actor_rollout_ref.actor.use_kl_loss=True "
      "+actor_rollout_ref.actor.megatron.override_transformer_config.num_layers_in_last_pipeline_stage=13");
  auto roles = verl_adapter().roles(l.command);
  ASSERT_EQ(names(roles), (std::vector<std::string>{"actor", "reference"}));
  const Fact* split = fact(roles[1].settings, Key::kNumLayersInLastPipelineStage);
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->value.as_int(), 13);
}

TEST(VerlAdapter, WithoutMegatronOneRayJobOfItsGpus) {
  Launch fsdp("verl.trainer.main_ppo", true,
              "algorithm.adv_estimator=gae actor_rollout_ref.actor.fsdp_config.param_offload=True "
              "trainer.nnodes=2 actor_rollout_ref.model.path=Qwen/Qwen2.5-7B");
  auto roles = verl_adapter().roles(fsdp.command);
  ASSERT_EQ(names(roles), (std::vector<std::string>{""}));
  const Fact* nodes = fact(roles[0].settings, Key::kNodes);
  ASSERT_NE(nodes, nullptr);
  EXPECT_EQ(nodes->value.as_int(), 2);
  ASSERT_TRUE(roles[0].model);
  EXPECT_EQ(roles[0].model->text, "Qwen/Qwen2.5-7B");
  Launch actor_only("verl.trainer.main_ppo", true, "--config-name=ppo_megatron_trainer critic.enable=False");
  EXPECT_EQ(names(verl_adapter().roles(actor_only.command)), (std::vector<std::string>{"actor"}));
}

TEST(VerlAdapter, TheActorsModelAndBatchAreTyped) {
  Launch l("verl.trainer.main_ppo", true,
           "--config-name=ppo_megatron_trainer actor_rollout_ref.model.path=Qwen/Qwen2.5-7B "
           "data.train_batch_size=32 actor_rollout_ref.rollout.n=4 "
           "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 trainer.n_gpus_per_node=8");
  auto roles = verl_adapter().roles(l.command);
  ASSERT_FALSE(roles.empty());
  ASSERT_TRUE(roles[0].model);
  EXPECT_EQ(roles[0].model->text, "Qwen/Qwen2.5-7B");
  const Fact* gbs = fact(roles[0].settings, Key::kGlobalBatchSize);
  ASSERT_NE(gbs, nullptr);
  EXPECT_EQ(gbs->value.as_int(), 128);
  RawJob job;
  verl_adapter().complete(l.command, roles[0], job);
  EXPECT_EQ(job.framework, Framework::kVerl);
  EXPECT_TRUE(job.driver_traits.turns_sp_off_at_tp1);
  EXPECT_FALSE(job.driver_traits.refuses_tp_comm_overlap_without_sp);
  EXPECT_EQ(job.description, "verl actor (verl.trainer.main_ppo, Megatron)");
}

TEST(ChatLearnAdapter, TheTrainersGpusAreItsWorld) {
  Launch l("chatlearn/entrypoint.py", false,
           "grpo --config-file template/grpo.yaml models.policy_trainer.num_gpu=16 "
           "models.policy_trainer.tensor_model_parallel_size=4 runtime_args.train_global_batch_size=512 "
           "models.policy.tensor_model_parallel_size=3");
  ASSERT_EQ(framework_adapters().claimant(l.command), &chatlearn_adapter());
  auto roles = chatlearn_adapter().roles(l.command);
  ASSERT_EQ(roles.size(), 1u);
  const RoleLaunch& r = roles[0];
  ASSERT_EQ(r.settings.config_files.size(), 1u);
  EXPECT_EQ(r.settings.config_files[0].text, "template/grpo.yaml");
  EXPECT_EQ(fact(r.settings, Key::kTensorModelParallelSize)->value.as_int(), 4);
  EXPECT_EQ(fact(r.settings, Key::kGlobalBatchSize)->value.as_int(), 512);
  EXPECT_EQ(fact(r.settings, Key::kRolloutTensorParallelSize)->value.as_int(), 3);
  EXPECT_TRUE(r.settings.unrecognized.empty());  // its GPU count is no setting of Megatron's
  RawJob job;
  chatlearn_adapter().complete(l.command, r, job);
  EXPECT_EQ(job.driver_traits.name, "ChatLearn");
  EXPECT_TRUE(job.driver_traits.rollout);
  const Fact* world = fact(job, Key::kWorldSize);
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->value.as_int(), 16);
  EXPECT_EQ(world->spelling, "models.policy_trainer.num_gpu");
  // Without --config-file it is not ChatLearn's GRPO launch.
  EXPECT_FALSE(chatlearn_adapter().claims(Launch("chatlearn/entrypoint.py", false, "grpo x=1").command));
}

TEST(SlimeAdapter, ItsClusterFlagsGiveTheWorld) {
  Launch l("train.py", false,
           "--actor-num-nodes 2 --actor-num-gpus-per-node 4 --tensor-model-parallel-size 2 "
           "--rollout-batch-size 16 --n-samples-per-prompt 8 --num-steps-per-rollout 2");
  ASSERT_EQ(framework_adapters().claimant(l.command), &slime_adapter());
  auto roles = slime_adapter().roles(l.command);
  ASSERT_EQ(roles.size(), 1u);
  EXPECT_EQ(fact(roles[0].settings, Key::kTensorModelParallelSize)->value.as_int(), 2);
  RawJob job;
  slime_adapter().complete(l.command, roles[0], job);
  EXPECT_EQ(job.launch, LaunchKind::kNone);
  EXPECT_EQ(fact(job, Key::kNodes)->value.as_int(), 2);
  EXPECT_EQ(fact(job, Key::kGpusPerNode)->value.as_int(), 4);
  EXPECT_EQ(fact(job, Key::kGlobalBatchSize)->value.as_int(), 64);  // 16 x 8 // 2
  EXPECT_FALSE(slime_adapter().claims(Launch("train.py", false, "--tensor-model-parallel-size 2").command));
}

TEST(MsSwiftAdapter, ItsMegatronCliIsAJobAndItsOtherTrainersAreNot) {
  Launch cli("sft", false, "--model Qwen/Qwen2.5-7B --vllm_mode colocate --vllm_tensor_parallel_size 4",
             "megatron");
  ASSERT_EQ(framework_adapters().claimant(cli.command), &ms_swift_adapter());
  auto roles = ms_swift_adapter().roles(cli.command);
  ASSERT_EQ(roles.size(), 1u);
  RawJob job;
  ms_swift_adapter().complete(cli.command, roles[0], job);
  EXPECT_EQ(job.driver_traits.name, "ms-swift");
  EXPECT_TRUE(job.driver_traits.rollout);
  EXPECT_EQ(job.model, "Qwen/Qwen2.5-7B");
  EXPECT_EQ(job.description, "ms-swift megatron sft launch");
  EXPECT_EQ(fact(job, Key::kRolloutTensorParallelSize)->value.as_int(), 4);
  // What ms-swift does with the settings, for the rules and the job's defaults.
  EXPECT_EQ(job.driver_traits.name, "ms-swift");
  EXPECT_TRUE(job.driver_traits.turns_sp_off_at_tp1);
  EXPECT_TRUE(job.driver_traits.refuses_tp_comm_overlap_without_sp);
  ASSERT_EQ(job.driver_traits.defaults.size(), 3u);
  EXPECT_EQ(job.driver_traits.defaults[0].key, Key::kExpertTensorParallelSize);

  Launch script("swift/cli/_megatron/rlhf.py", false, "--model x");
  auto script_roles = ms_swift_adapter().roles(script.command);
  ASSERT_EQ(script_roles.size(), 1u);
  EXPECT_EQ(script_roles[0].entry, "rlhf");
  Launch other("swift.cli.sft", true, "--model x");
  EXPECT_TRUE(ms_swift_adapter().claims(other.command));
  EXPECT_TRUE(ms_swift_adapter().roles(other.command).empty());
}

TEST(MsSwiftAdapter, ItsCliIsARankLauncherTheShellAsksFor) {
  const RankLauncher* cli = framework_adapters().rank_launcher("megatron");
  ASSERT_NE(cli, nullptr);
  EXPECT_EQ(cli->nproc_variable, "NPROC_PER_NODE");
  EXPECT_EQ(cli->subcommands, (std::vector<std::string_view>{"sft", "pt", "rlhf"}));
  EXPECT_EQ(framework_adapters().rank_launcher("torchrun"), nullptr);  // the shell's own launcher
}

TEST(HuggingFaceTrainerAdapter, ClaimsTrainerScriptsWithoutMegatronSizes) {
  Launch hf("train.py", false,
            "--model_name_or_path gpt2 --per_device_train_batch_size 4 --tensor_parallel_size 2");
  EXPECT_EQ(framework_adapters().claimant(hf.command), &hugging_face_trainer_adapter());
  EXPECT_TRUE(hugging_face_trainer_adapter().roles(hf.command).empty());
  Launch megatron("train.py", false, "--gradient_accumulation_steps 4 --tensor-model-parallel-size 2");
  EXPECT_FALSE(hugging_face_trainer_adapter().claims(megatron.command));
  EXPECT_EQ(framework_adapters().claimant(megatron.command), nullptr);
}

// The files a launch names, from memory.
struct FilesInMemory final : LaunchFiles {
  std::map<std::string, std::string> files;
  std::optional<std::string> read(const std::string& path, std::string&) const override {
    auto it = files.find(path);
    return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
};

TEST(MegatronDeepSpeedAdapter, ReadsTheDeepSpeedConfigOfAMegatronDeepSpeedLaunch) {
  FilesInMemory files;
  files.files["ds.json"] = R"({"train_batch_size": 256, "zero_optimization": {"stage": 1}})";
  Launch l("pretrain_gpt.py", false, "--deepspeed --deepspeed_config ds.json --tensor-model-parallel-size 2");
  l.command.files = &files;
  ASSERT_EQ(framework_adapters().claimant(l.command), &megatron_deepspeed_adapter());
  auto roles = megatron_deepspeed_adapter().roles(l.command);
  ASSERT_EQ(roles.size(), 1u);
  RawJob job;
  job.framework = Framework::kMegatronDeepSpeed;  // as the launch's --deepspeed makes it
  megatron_deepspeed_adapter().complete(l.command, roles[0], job);
  const Fact* gbs = fact(job, Key::kGlobalBatchSize);
  ASSERT_NE(gbs, nullptr);
  EXPECT_EQ(gbs->value.as_int(), 256);
  // Not Megatron-DeepSpeed's (no --deepspeed): the config is not its to read.
  RawJob other;
  megatron_deepspeed_adapter().complete(l.command, roles[0], other);
  EXPECT_TRUE(other.facts.empty());
  // A config it cannot read: unknown, and plan says so.
  Launch missing("pretrain_gpt.py", false, "--deepspeed --deepspeed_config gone.json");
  missing.command.files = &files;
  RawJob m;
  m.framework = Framework::kMegatronDeepSpeed;
  megatron_deepspeed_adapter().complete(missing.command, roles[0], m);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("was not found"), std::string::npos);
}

}  // namespace
}  // namespace parlint
