// Each rule of the foundation issue on in-memory YAML: fires where it should, with the numbers the
// message promises, and stays quiet on valid layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "test_support.h"

namespace parlint {
namespace {
using testing::codes;
using testing::default_options;
using testing::lint;

bool has(const std::vector<Diagnostic>& ds, const std::string& code) {
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.code == code; });
}
const Diagnostic* get(const std::vector<Diagnostic>& ds, const std::string& code) {
  for (const auto& d : ds)
    if (d.code == code) return &d;
  return nullptr;
}

EngineOptions with_cluster(const char* name) {
  EngineOptions o = default_options();
  o.lint.cluster = find_cluster_profile(name);
  return o;
}

const char* kTp16 = "trainer:\n  devices: 8\n  num_nodes: 2\nmodel:\n  tensor_model_parallel_size: 16\n";

// A rule file copied with its code or name left unchanged is refused when it registers.
class NamedRule final : public Rule {
 public:
  explicit NamedRule(RuleInfo info) : info_(info) {}
  const RuleInfo& info() const override { return info_; }

 private:
  RuleInfo info_;
};

TEST(RuleRegistry, RefusesADuplicateCodeOrName) {
  RuleRegistry registry;
  registry.add(std::make_unique<NamedRule>(RuleInfo{"PL990", "first-rule", Severity::kError, "", ""}));
  registry.add(std::make_unique<NamedRule>(RuleInfo{"PL991", "second-rule", Severity::kError, "", ""}));
  EXPECT_THROW(
      registry.add(std::make_unique<NamedRule>(RuleInfo{"PL990", "other-name", Severity::kError, "", ""})),
      std::logic_error);
  EXPECT_THROW(
      registry.add(std::make_unique<NamedRule>(RuleInfo{"PL992", "second-rule", Severity::kError, "", ""})),
      std::logic_error);
  ASSERT_EQ(registry.rules().size(), 2u);
  EXPECT_EQ(registry.find("pl991"), registry.rules()[1].get());
  // The built-in rules all have their own code and name.
  const auto& builtin = RuleRegistry::instance().rules();
  for (std::size_t i = 1; i < builtin.size(); ++i)
    EXPECT_NE(builtin[i - 1]->info().code, builtin[i]->info().code);
}

TEST(PL101, TpLargerThanNodeDomainIsAnErrorAtTheTpValue) {
  auto ds = lint(kTp16);
  const Diagnostic* d = get(ds, "PL101");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_EQ(d->location.range.start, (SourcePosition{5, 31}));
  EXPECT_NE(d->message.find("TP=16 spans 2 NVLink domains of 8 GPUs"), std::string::npos);
  EXPECT_NE(d->message.find("trainer.devices=8 at line 2"), std::string::npos);
  ASSERT_FALSE(d->related.empty());
  EXPECT_EQ(d->related[0].location.range.start.line, 2);
}

TEST(PL101, FitsInANvl72Domain) {
  EXPECT_FALSE(has(lint(kTp16, with_cluster("gb200-nvl72")), "PL101"));
  EngineOptions o = default_options();
  o.lint.nvlink_domain = 72;
  EXPECT_FALSE(has(lint(kTp16, o), "PL101"));
}

TEST(PL101, DomainFromJobGpusPerNode) {
  // GH200-style 4-GPU nodes: TP=8 crosses.
  auto ds = lint("trainer:\n  devices: 4\nmodel:\n  tensor_model_parallel_size: 8\n");
  EXPECT_TRUE(has(ds, "PL101"));
  // Without a GPU count the default profile's 8 applies.
  EXPECT_FALSE(has(lint("model:\n  tensor_model_parallel_size: 8\n"), "PL101"));
  EXPECT_TRUE(has(lint("model:\n  tensor_model_parallel_size: 16\n"), "PL101"));
}

TEST(PL101, StraddlingGroupsAreAWarning) {
  auto ds = lint("trainer:\n  devices: 8\n  num_nodes: 3\nmodel:\n  tensor_model_parallel_size: 6\n");
  const Diagnostic* d = get(ds, "PL101");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kWarning);
  // 24 GPUs, groups [0-5] [6-11] [12-17] [18-23]: [6-11] and [12-17] cross node boundaries.
  EXPECT_NE(d->message.find("2 of 4 TP groups"), std::string::npos) << d->message;
  // One node: no group can straddle.
  EXPECT_FALSE(has(lint("trainer:\n  devices: 8\n  num_nodes: 1\nmodel:\n  tensor_model_parallel_size: 6\n"),
                   "PL101"));
}

TEST(PL101, ExpertTensorParallelOnMoeOnly) {
  const char* moe =
      "trainer:\n  devices: 8\nmodel:\n  num_moe_experts: 64\n  expert_model_parallel_size: 8\n"
      "  expert_tensor_parallel_size: 16\n";
  auto ds = lint(moe);
  const Diagnostic* d = get(ds, "PL101");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("ETP=16"), std::string::npos);
  EXPECT_EQ(d->location.range.start.line, 6);
}

TEST(PL102, WorldSizeNotDivisibleGivesMinimumAndNodeCounts) {
  auto ds = lint(
      "trainer:\n  num_nodes: 62\n  devices: 8\nmodel:\n  tensor_model_parallel_size: 4\n"
      "  pipeline_model_parallel_size: 4\n  context_parallel_size: 4\n");
  const Diagnostic* d = get(ds, "PL102");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_EQ(d->location.range.start.line, 2);
  EXPECT_NE(d->message.find("world size 496"), std::string::npos);
  EXPECT_NE(d->message.find("= 64"), std::string::npos);
  EXPECT_NE(d->help.find("56 or 64 nodes of 8 GPUs"), std::string::npos) << d->help;
}

TEST(PL102, ExpertMeshUsesLcmNotMax) {
  // TP4 EP6: W=24 valid (M=12), W=6 invalid.
  auto ok = lint(
      "trainer:\n  num_nodes: 3\n  devices: 8\nmodel:\n  num_moe_experts: 12\n"
      "  tensor_model_parallel_size: 4\n  expert_model_parallel_size: 6\n"
      "  expert_tensor_parallel_size: 1\n");
  EXPECT_FALSE(has(ok, "PL102"));
  auto bad = lint(
      "trainer:\n  num_nodes: 1\n  devices: 6\nmodel:\n  num_moe_experts: 12\n"
      "  tensor_model_parallel_size: 4\n  expert_model_parallel_size: 6\n"
      "  expert_tensor_parallel_size: 1\n");
  const Diagnostic* d = get(bad, "PL102");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("M = PP·lcm(TP·CP, EP·ETP) = 12"), std::string::npos) << d->message;
}

TEST(PL102, EtpDefaultDiffersByFramework) {
  // EP=8 with TP=2 on 8 GPUs: ETP=TP=2 makes PP·EP·ETP=16 (invalid); Bridge's ETP=1 makes 8 (valid).
  std::string yaml =
      "trainer:\n  num_nodes: 1\n  devices: 8\nmodel:\n  num_moe_experts: 8\n"
      "  tensor_model_parallel_size: 2\n  expert_model_parallel_size: 8\n";
  EXPECT_TRUE(has(lint(yaml), "PL102"));
  EngineOptions bridge = default_options();
  bridge.lint.framework = Framework::kMegatronBridge;
  EXPECT_FALSE(has(lint(yaml, bridge), "PL102"));
}

TEST(PL102, DefaultNodeCountIsWeak) {
  auto ds = lint("trainer:\n  devices: 8\nmodel:\n  tensor_model_parallel_size: 16\n");
  const Diagnostic* d = get(ds, "PL102");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_NE(d->message.find("default trainer.num_nodes=1"), std::string::npos);
}

TEST(PL102, UnknownWorldSizeDoesNotFire) {
  EXPECT_FALSE(has(lint("model:\n  tensor_model_parallel_size: 3\n"), "PL102"));
  EXPECT_FALSE(has(lint("trainer:\n  num_nodes: ${oc.env:NODES}\n  devices: 8\nmodel:\n"
                        "  tensor_model_parallel_size: 3\n"),
                   "PL102"));
}

const char* kMoe32 =
    "trainer:\n  num_nodes: {N}\n  devices: 8\nmodel:\n  num_moe_experts: 32\n"
    "  tensor_model_parallel_size: 2\n  pipeline_model_parallel_size: 1\n"
    "  context_parallel_size: 1\n  expert_model_parallel_size: 8\n"
    "  expert_tensor_parallel_size: 1\n";

std::string moe_nodes(int n) {
  std::string s = kMoe32;
  s.replace(s.find("{N}"), 3, std::to_string(n));
  return s;
}

TEST(PL103, ProductSizedMoeJobGetsAnInfoNote) {
  auto ds = lint(moe_nodes(2));  // W = 16 = product, M = 8
  const Diagnostic* d = get(ds, "PL103");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kInfo);
  EXPECT_NE(d->message.find("M = PP·lcm(TP·CP, EP·ETP) = 8"), std::string::npos);
  EXPECT_NE(d->message.find("At 16 GPUs DP = 8 and expert DP = 2"), std::string::npos);
  EXPECT_NE(d->message.find("at 8 GPUs DP = 4 and expert DP = 1"), std::string::npos);
  EXPECT_FALSE(has(lint(moe_nodes(4)), "PL103"));  // W = 32: not the product
  EXPECT_FALSE(has(lint(moe_nodes(1)), "PL103"));  // W = M
}

TEST(PL103, PublishedLayouts) {
  // DeepSeek-V3 benchmark: TP2 PP8 EP64 ETP1 on 1024 GPUs = the product (M = 512): info.
  auto dsv3 = lint(
      "trainer:\n  num_nodes: 128\n  devices: 8\nmodel:\n  num_moe_experts: 256\n"
      "  tensor_model_parallel_size: 2\n  pipeline_model_parallel_size: 8\n"
      "  expert_model_parallel_size: 64\n  expert_tensor_parallel_size: 1\n  sequence_parallel: true\n");
  EXPECT_EQ(codes(dsv3), std::vector<std::string>{"PL103"});
  // Qwen3-235B: TP2 PP8 EP32 ETP1 on 256 GPUs (product 512, M 256): nothing.
  auto qwen = lint(
      "trainer:\n  num_nodes: 32\n  devices: 8\nmodel:\n  num_moe_experts: 128\n"
      "  tensor_model_parallel_size: 2\n  pipeline_model_parallel_size: 8\n"
      "  expert_model_parallel_size: 32\n  expert_tensor_parallel_size: 1\n  sequence_parallel: true\n");
  EXPECT_TRUE(qwen.empty()) << qwen.front().message;
}

TEST(PL201, SpWithTp1) {
  auto ds = lint("model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true\n");
  const Diagnostic* d = get(ds, "PL201");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->location.range.start.line, 3);
  EXPECT_NE(d->message.find("Cannot use sequence parallelism without tensor parallelism"), std::string::npos);
  // TP left at its default 1 also counts.
  EXPECT_TRUE(has(lint("model:\n  sequence_parallel: True\n"), "PL201"));
  EXPECT_FALSE(has(lint("model:\n  tensor_model_parallel_size: 2\n  sequence_parallel: true\n"), "PL201"));
  EXPECT_FALSE(has(lint("model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: false\n"), "PL201"));
}

TEST(PL201, MessageSaysWhatTheFrameworkDoes) {
  auto bridge = lint("model:\n  sequence_parallel: true\ndataset:\n  seq_length: 4096\n");
  EXPECT_NE(get(bridge, "PL201")->message.find("Megatron-Bridge silently"), std::string::npos);
  auto mlm = lint("MODEL_ARGS:\n  --sequence-parallel: true\n");
  EXPECT_NE(get(mlm, "PL201")->message.find("Megatron-LM warns"), std::string::npos);
}

TEST(PL202, CpSeqDivisibility) {
  auto ds = lint("model:\n  encoder_seq_length: 4096\n  context_parallel_size: 3\n");
  const Diagnostic* d = get(ds, "PL202");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->location.range.start.line, 3);
  EXPECT_NE(d->message.find("2·CP = 6"), std::string::npos);
  EXPECT_NE(d->help.find("4092 or 4098"), std::string::npos);
  EXPECT_FALSE(has(lint("model:\n  encoder_seq_length: 4096\n  context_parallel_size: 4\n"), "PL202"));
  EXPECT_FALSE(has(lint("model:\n  context_parallel_size: 3\n"), "PL202"));  // sequence length unknown
  // Bridge: dataset.seq_length is the one that counts.
  EXPECT_TRUE(
      has(lint("model:\n  seq_length: 4096\n  context_parallel_size: 2\ndataset:\n  seq_length: 4098\n"),
          "PL202"));
}

TEST(PL301, EpOnDenseModel) {
  const char* dense =
      "trainer:\n  devices: 8\nmodel:\n  num_layers: 32\n  hidden_size: 4096\n"
      "  num_attention_heads: 32\n  expert_model_parallel_size: 8\n";
  auto ds = lint(dense);
  const Diagnostic* d = get(ds, "PL301");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_EQ(d->location.range.start.line, 7);
  EXPECT_NE(d->message.find("num_moe_experts must be non None"), std::string::npos);
  // An override file that does not describe the model: experts unknown, no finding.
  EXPECT_FALSE(has(lint("model:\n  expert_model_parallel_size: 8\n"), "PL301"));
  // Experts present: fine.
  EXPECT_FALSE(has(lint("model:\n  num_layers: 32\n  hidden_size: 4096\n  num_attention_heads: 32\n"
                        "  num_moe_experts: 8\n  expert_model_parallel_size: 8\n"),
                   "PL301"));
}

TEST(PL301, EtpAloneIsAWarning) {
  auto ds = lint(
      "model:\n  num_layers: 32\n  hidden_size: 4096\n  num_attention_heads: 32\n"
      "  tensor_model_parallel_size: 2\n  expert_tensor_parallel_size: 2\n");
  const Diagnostic* d = get(ds, "PL301");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kWarning);
}

TEST(PL900, SyntaxErrorIsAFinding) {
  auto ds = lint("model:\n  tensor_model_parallel_size: [2\n");
  const Diagnostic* d = get(ds, "PL900");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
}

TEST(Selection, SelectIgnoreByCodeNameAndPrefix) {
  auto sel = RuleSelection::make({"PL1"}, {"product-gpu-count"});
  ASSERT_TRUE(sel.has_value());
  EXPECT_TRUE(sel->enabled("PL101"));
  EXPECT_TRUE(sel->enabled("PL102"));
  EXPECT_FALSE(sel->enabled("PL103"));
  EXPECT_FALSE(sel->enabled("PL201"));
  EXPECT_FALSE(RuleSelection::make({"PL7777"}, {}).has_value());
  EXPECT_FALSE(RuleSelection::make({}, {"no-such-rule"}).has_value());
  EXPECT_EQ(split_list({"PL1, PL2", "PL301"}), (std::vector<std::string>{"PL1", "PL2", "PL301"}));
}

TEST(Registry, EveryRuleIsDocumented) {
  for (const auto& r : RuleRegistry::instance().rules()) {
    const RuleInfo& i = r->info();
    std::string docs(i.docs);
    for (const char* section :
         {"## What it does", "## Why", "## Example", "## Fix", "## Framework behaviour", "## References"})
      EXPECT_NE(docs.find(section), std::string::npos) << i.code << " lacks " << section;
    EXPECT_EQ(RuleRegistry::instance().find(i.name), r.get());
    EXPECT_EQ(RuleRegistry::instance().find(i.code), r.get());
  }
}

}  // namespace
}  // namespace parlint
