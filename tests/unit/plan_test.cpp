// `parlint plan` from numbers: options located as settings (so every rule reads them), the smoke test, and
// --suggest against published layouts and the MoE guidance.
#include <gtest/gtest.h>

#include <algorithm>

#include "lint/engine/pipeline.h"
#include "lint/engine/smoke_test.h"
#include "lint/engine/suggest.h"
#include "lint/resolve/layout_job.h"
#include "test_support.h"

namespace parlint {
namespace {

const Fact* fact_of(const RawJob& job, Key key) {
  for (const auto& f : job.facts)
    if (f.key == key) return &f;
  return nullptr;
}

TEST(LayoutJob, EachOptionIsASettingWrittenInTheOptionsLine) {
  LayoutSpec spec;
  spec.tp = 16;
  spec.gpus_per_node = 8;
  spec.gpus = 32;
  LayoutJob j = layout_job(spec);
  EXPECT_EQ(j.options, "--tp 16 --gpus 32 --gpus-per-node 8");
  const Fact* tp = fact_of(j.job, Key::kTensorModelParallelSize);
  ASSERT_TRUE(tp);
  EXPECT_EQ(tp->location.path, kCommandLinePath);
  EXPECT_EQ(tp->location.range.start.column, 1);
  EXPECT_EQ(tp->location.range.end.column, 8);  // "--tp 16"
  const Fact* nodes = fact_of(j.job, Key::kNodes);
  ASSERT_TRUE(nodes);
  EXPECT_EQ(nodes->value.as_int(), 4);  // 32 GPUs of 8 per node
}

TEST(LayoutJob, EveryRuleReadsIt) {
  // TP=16 across two 8-GPU nodes: PL101, as check reports it for a file with the same settings.
  LayoutSpec spec;
  spec.tp = 16;
  spec.gpus_per_node = 8;
  Job job(std::string(kCommandLinePath), layout_job(spec).job, {});
  auto found = check_job(job, testing::default_options());
  auto it = std::find_if(found.begin(), found.end(), [](const Diagnostic& d) { return d.code == "PL101"; });
  ASSERT_NE(it, found.end());
  EXPECT_EQ(it->severity, Severity::kError);
  EXPECT_NE(it->message.find("--gpus-per-node 8 on the command line"), std::string::npos) << it->message;
}

Job planned(const LayoutSpec& spec) {
  return Job(std::string(kCommandLinePath), layout_job(spec).job, {});
}

TEST(SmokeTest, SmallestRecipeOfTheFamilyOnTheMinimumGpus) {
  LayoutSpec spec;
  spec.model = "llama3-70b";
  spec.tp = 4;
  spec.pp = 4;
  spec.gpus = 64;
  spec.seq = 4096;
  SmokeTestResult r = make_smoke_test(planned(spec), testing::default_options());
  ASSERT_TRUE(r.test) << r.why_not;
  const SmokeTest& t = *r.test;
  EXPECT_EQ(t.recipe, "llama32_1b_pretrain_config");
  EXPECT_EQ((t.gpus), 16);  // PP·lcm(TP·CP, EP·ETP) = 4·4
  EXPECT_EQ((t.nodes), 2);
  EXPECT_NE(t.command.find("--nnodes=2 --nproc_per_node=8"), std::string::npos);
  for (const char* o : {"model.tensor_model_parallel_size=4", "model.pipeline_model_parallel_size=4",
                        "model.sequence_parallel=True", "train.train_iters=3"})
    EXPECT_NE(std::find(t.overrides.begin(), t.overrides.end(), o), t.overrides.end()) << o;
  // The command passes every rule of check.
  auto found = testing::lint(t.command + "\n", testing::default_options(), "smoke.sh");
  EXPECT_TRUE(found.empty()) << found.front().code << " " << found.front().message;
  EXPECT_FALSE(t.success.empty());
}

TEST(SmokeTest, ALargerRecipeWhenTheSmallestCannotHoldTheLayout) {
  // PP=32 needs a multiple of 32 layers: Llama 3.2 1B (16) and 3B (28) cannot, Llama 2 7B (32) can.
  LayoutSpec spec;
  spec.model = "llama3-70b";
  spec.tp = 1;
  spec.pp = 32;
  SmokeTestResult r = make_smoke_test(planned(spec), testing::default_options());
  ASSERT_TRUE(r.test) << r.why_not;
  EXPECT_EQ(r.test->recipe, "llama2_7b_pretrain_config");
  ASSERT_EQ(r.test->passed_over.size(), 2u);
  EXPECT_NE(r.test->passed_over[0].find("PL402"), std::string::npos);
}

TEST(SmokeTest, NoneWhenTheLayoutItselfIsRefused) {
  LayoutSpec spec;
  spec.model = "llama3-70b";
  spec.tp = 64;  // wider than any NVLink domain of 8
  SmokeTestResult r = make_smoke_test(planned(spec), testing::default_options());
  EXPECT_FALSE(r.test);
  EXPECT_NE(r.why_not.find("the layout itself must change"), std::string::npos) << r.why_not;
  EXPECT_NE(r.why_not.find("PL101"), std::string::npos);
  LayoutSpec unknown_model;
  unknown_model.tp = 2;
  r = make_smoke_test(planned(unknown_model), testing::default_options());
  EXPECT_FALSE(r.test);
  EXPECT_NE(r.why_not.find("give --model"), std::string::npos);
}

SuggestRequest request(const char* model, std::int64_t gpus, std::int64_t seq = 0) {
  SuggestRequest r;
  r.model = find_model(model);
  r.gpus = gpus;
  r.seq_length = seq;
  r.cluster = default_cluster_profile();
  r.gpus_per_node = r.cluster.gpus_per_node;
  return r;
}

TEST(Suggest, PublishedLayoutFirstForDeepSeekV3) {
  Suggestions s = suggest_layouts(request("deepseek-v3", 1024), testing::default_options());
  ASSERT_FALSE(s.layouts.empty());
  const Suggestion& best = s.layouts.front();
  // Megatron-Bridge's deepseek_v3_pretrain_config: TP 2, PP 16, EP 64, ETP 1.
  EXPECT_EQ((std::array<std::int64_t, 4>{best.mesh.tp, best.mesh.pp, best.mesh.ep, best.mesh.etp}),
            (std::array<std::int64_t, 4>{2, 16, 64, 1}));
  EXPECT_NE(best.published.find("deepseek_v3_pretrain_1024gpu_h100_bf16_config"), std::string::npos);
  // The sequence length was not given: assumed, and said.
  EXPECT_EQ(s.seq_length, 4096);
  EXPECT_NE(s.assumptions.front().find("sequence length 4096: not given"), std::string::npos);
  for (const auto& alt : s.layouts) {
    EXPECT_LE(alt.mesh.tp, 2);  // MoE guidance: TP 1-2
    EXPECT_EQ(alt.mesh.etp, 1);
    EXPECT_GE(alt.mesh.ep, alt.mesh.pp);  // EP is the main axis
    EXPECT_LE(alt.memory_gib, kMemoryBudget * 80);
  }
}

TEST(Suggest, GuidanceWithoutAPublishedLayoutKeepsTheHeadroom) {
  // No published Kimi K2 layout fits 1152 GB200 GPUs: the MoE guidance decides.
  SuggestRequest r = request("kimi-k2", 1152);
  r.cluster = *find_cluster_profile("gb200-nvl72");
  r.gpus_per_node = 4;
  Suggestions s = suggest_layouts(r, testing::default_options());
  ASSERT_FALSE(s.layouts.empty());
  for (const auto& l : s.layouts) {
    EXPECT_TRUE(l.published.empty());
    EXPECT_LE(l.mesh.tp, 2);
    EXPECT_LE(l.memory_gib, kMemoryBudget * r.cluster.gpu_memory_gib);
  }
  EXPECT_LE(s.layouts.front().mesh.ep, 72);  // the EP group's all-to-all stays in the NVLink domain
}

}  // namespace
}  // namespace parlint
