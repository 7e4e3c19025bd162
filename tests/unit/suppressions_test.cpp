// Suppression comments: scopes, spellings, multi-line shell arrays, and the PL901/PL902 reports.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.h"

namespace parlint {
namespace {
using testing::codes;
using testing::lint;

bool has(const std::vector<Diagnostic>& ds, const std::string& code) {
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.code == code; });
}

const char* kSpTp1 = "model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true{C}\n";

std::string with(const std::string& comment) {
  std::string s = kSpTp1;
  s.replace(s.find("{C}"), 3, comment);
  return s;
}

TEST(Suppressions, EndOfLineByCodeOrName) {
  EXPECT_TRUE(has(lint(with("")), "PL201"));
  EXPECT_EQ(codes(lint(with("  # parlint: ignore[PL201]"))), std::vector<std::string>{});
  EXPECT_EQ(codes(lint(with("  # parlint: ignore[sp-without-tp] -- kept for the TP=2 variant"))),
            std::vector<std::string>{});
  // Several codes: PL201 is used, PL101 is not and is reported as unused.
  EXPECT_EQ(codes(lint(with("  #parlint: ignore[PL101, PL201]"))), std::vector<std::string>{"PL901"});
}

TEST(Suppressions, OwnLineCoversTheNextCodeLine) {
  auto ds = lint(
      "model:\n  tensor_model_parallel_size: 1\n  # parlint: ignore[PL201]\n  # a note\n\n"
      "  sequence_parallel: true\n");
  EXPECT_TRUE(ds.empty()) << ds.front().code;
}

TEST(Suppressions, RangesAndFileIgnore) {
  auto ranged = lint(
      "# parlint: disable=PL201\nmodel:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true\n"
      "# parlint: enable=PL201\n");
  EXPECT_TRUE(ranged.empty());
  auto bracket = lint("# parlint: disable[PL201]\nmodel:\n  sequence_parallel: true\n");
  EXPECT_TRUE(bracket.empty());
  auto file = lint(
      "model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true\n# parlint: file-ignore[PL201]\n");
  EXPECT_TRUE(file.empty());
}

TEST(Suppressions, InsideAMultiLineShellArray) {
  std::string script =
      "#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\nARGS=(\n  --num-layers 24\n"
      "  --tensor-model-parallel-size 1\n"
      "  --sequence-parallel   # parlint: ignore[PL201] -- harmless: Megatron-LM turns it off\n)\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py \"${ARGS[@]}\"\n";
  auto ds = lint(script, testing::default_options(), "t.sh");
  EXPECT_FALSE(has(ds, "PL201"));
  EXPECT_FALSE(has(ds, "PL901"));
  // The same finding without the comment is reported at the array element.
  std::string bare = script;
  bare.erase(bare.find("   # parlint"), bare.find("\n)") - bare.find("   # parlint"));
  EXPECT_TRUE(has(lint(bare, testing::default_options(), "t.sh"), "PL201"));
}

TEST(Suppressions, UnusedAndInvalidAreReported) {
  auto unused = lint("model:\n  tensor_model_parallel_size: 2  # parlint: ignore[PL201]\n");
  EXPECT_EQ(codes(unused), std::vector<std::string>{"PL901"});
  auto invalid = lint(with("  # parlint: ignore[PL2O1]"));
  EXPECT_TRUE(has(invalid, "PL902"));
  EXPECT_TRUE(has(invalid, "PL201"));   // the typo suppressed nothing
  EXPECT_FALSE(has(invalid, "PL901"));  // and is not also "unused"
  // A suppression for a rule the run does not select is not reported as unused.
  EngineOptions o = testing::default_options();
  o.rules = *RuleSelection::make({}, {"PL201"});
  EXPECT_TRUE(lint(with("  # parlint: ignore[PL201]"), o).empty());
}

TEST(Suppressions, NoSuppressShowsEverything) {
  EngineOptions o = testing::default_options();
  o.apply_suppressions = false;
  auto ds = lint(with("  # parlint: ignore[PL201]"), o);
  EXPECT_TRUE(has(ds, "PL201"));
  EXPECT_FALSE(has(ds, "PL901"));
}

}  // namespace
}  // namespace parlint
