// verl's roles as Megatron jobs: which ones a launch builds, and what each reads.
#include "parsers/frameworks/verl_roles.h"

#include <gtest/gtest.h>

#include <sstream>

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

std::vector<std::string> names(const std::vector<VerlRole>& roles) {
  std::vector<std::string> out;
  for (const auto& r : roles) out.push_back(r.name);
  return out;
}

TEST(VerlRoles, GaeBuildsTheCriticOnTheActorsSizes) {
  auto roles = verl_roles(words(
      "--config-name=ppo_megatron_trainer actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4 "
      "critic.megatron.tensor_model_parallel_size=2 "
      "+actor_rollout_ref.actor.megatron.override_transformer_config.num_layers_in_last_pipeline_stage=13"));
  ASSERT_EQ(names(roles), (std::vector<std::string>{"actor", "critic"}));  // gae is the config's default
  const VerlRole& critic = roles[1];
  bool actor_tp = false, split = false;
  for (const Word& w : critic.args) {
    actor_tp |= w.text == "tensor_model_parallel_size=4";
    split |= w.text.starts_with("num_layers_in_last_pipeline_stage");
  }
  EXPECT_TRUE(actor_tp);
  EXPECT_FALSE(split);  // the critic's transformer overrides are its own
  ASSERT_EQ(critic.ignored.size(), 1u);
  EXPECT_EQ(critic.ignored[0].loser.spelling, "critic.megatron.tensor_model_parallel_size");
}

TEST(VerlRoles, KlLossBuildsTheReferenceWithTheActorsOverrides) {
  auto roles = verl_roles(words(
      "--config-name=ppo_megatron_trainer algorithm.adv_estimator=grpo "
      "actor_rollout_ref.actor.use_kl_loss=True "
      "+actor_rollout_ref.actor.megatron.override_transformer_config.num_layers_in_last_pipeline_stage=13"));
  ASSERT_EQ(names(roles), (std::vector<std::string>{"actor", "reference"}));
  bool split = false;
  for (const Word& w : roles[1].args) split |= w.text == "num_layers_in_last_pipeline_stage=13";
  EXPECT_TRUE(split);
}

TEST(VerlRoles, NoMegatronNoRoles) {
  EXPECT_TRUE(
      verl_roles(words("algorithm.adv_estimator=gae actor_rollout_ref.actor.fsdp_config.param_offload=True "
                       "trainer.nnodes=2"))
          .empty());
  auto roles = verl_roles(words("--config-name=ppo_megatron_trainer critic.enable=False"));
  EXPECT_EQ(names(roles), (std::vector<std::string>{"actor"}));
}

}  // namespace
}  // namespace parlint
