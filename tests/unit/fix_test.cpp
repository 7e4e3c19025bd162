// Fixes: the text a fix request becomes, the unified diff, and the one function that writes input files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "lint/engine/fix/file_writer.h"
#include "lint/engine/fix/fix_resolution.h"
#include "lint/engine/fix/fixer.h"

namespace parlint {
namespace {

Fact fact_at(const std::string& path, SourceRange range, Value value, Origin origin, std::string spelling) {
  Fact f;
  f.location = {path, range};
  f.value = std::move(value);
  f.origin = origin;
  f.spelling = std::move(spelling);
  return f;
}

std::string fixed(const std::string& text, const FixRequest& request) {
  SourceText source(text);
  auto fix = resolve_fix(request, [&](const std::string&) { return &source; });
  if (!fix) return "<no fix>";
  return apply_edits(source, fix->edits);
}

TEST(FixResolution, SpellsABooleanLikeTheOldOne) {
  std::string yaml = "model:\n  sequence_parallel: True\n";
  Fact sp = fact_at("a.yaml", {{2, 3}, {2, 26}}, Value::boolean(true), Origin::kYaml, "sequence_parallel");
  EXPECT_EQ(fixed(yaml, {FixApplicability::kSafe, "", {set_value(sp, Value::boolean(false))}}),
            "model:\n  sequence_parallel: False\n");
}

TEST(FixResolution, EditsWhereTheValueWasWrittenThroughAVariable) {
  std::string sh = "TP=16\ntorchrun x.py --tensor-model-parallel-size $TP\n";
  Fact tp = fact_at("a.sh", {{2, 15}, {2, 47}}, Value::integer(16), Origin::kMegatronFlag,
                    "--tensor-model-parallel-size");
  tp.written_at.push_back({{"a.sh", {{1, 1}, {1, 6}}}, "TP=16 set here"});
  EXPECT_EQ(fixed(sh, {FixApplicability::kUnsafe, "", {set_value(tp, Value::integer(8))}}),
            "TP=8\ntorchrun x.py --tensor-model-parallel-size $TP\n");
}

TEST(FixResolution, NeverEditsTextThatDoesNotReadTheOldValue) {
  std::string sh = "torchrun x.py --nnodes=$N\n";
  Fact n = fact_at("a.sh", {{1, 15}, {1, 26}}, Value::integer(2), Origin::kLauncherFlag, "--nnodes");
  EXPECT_EQ(fixed(sh, {FixApplicability::kSafe, "", {set_value(n, Value::integer(4))}}), "<no fix>");
  // 2 inside 12 or 2.5 is not the value.
  std::string other = "x: 12 # 2.5\n";
  Fact x = fact_at("a.yaml", {{1, 1}, {1, 12}}, Value::integer(2), Origin::kYaml, "x");
  EXPECT_EQ(fixed(other, {FixApplicability::kSafe, "", {set_value(x, Value::integer(4))}}), "<no fix>");
  // A default has no text to edit.
  Fact d = fact_at("a.yaml", {{1, 1}, {1, 6}}, Value::integer(12), Origin::kFrameworkDefault, "x");
  EXPECT_EQ(fixed(other, {FixApplicability::kSafe, "", {set_value(d, Value::integer(4))}}), "<no fix>");
}

TEST(FixResolution, RemovesAPresenceFlagWithItsLine) {
  std::string sh = "torchrun x.py \\\n    --sequence-parallel \\\n    --num-layers 2\n";
  Fact sp =
      fact_at("a.sh", {{2, 5}, {2, 24}}, Value::boolean(true), Origin::kMegatronFlag, "--sequence-parallel");
  EXPECT_EQ(fixed(sh, {FixApplicability::kSafe, "", {set_value(sp, Value::boolean(false))}}),
            "torchrun x.py \\\n    --num-layers 2\n");
  std::string inline_flag = "torchrun x.py --sequence-parallel --num-layers 2\n";
  Fact sp2 =
      fact_at("a.sh", {{1, 15}, {1, 34}}, Value::boolean(true), Origin::kMegatronFlag, "--sequence-parallel");
  EXPECT_EQ(fixed(inline_flag, {FixApplicability::kSafe, "", {set_value(sp2, Value::boolean(false))}}),
            "torchrun x.py --num-layers 2\n");
}

TEST(FixResolution, InsertsALineOnlyWhereACommandStarts) {
  std::string sh = "if true; then\n  torchrun x.py\nfi\n";
  FixRequest r{FixApplicability::kSafe, "", {insert_line_before({"a.sh", {{2, 3}, {2, 16}}}, "export A=1")}};
  EXPECT_EQ(fixed(sh, r), "if true; then\n  export A=1\n  torchrun x.py\nfi\n");
  std::string continued = "srun \\\n  torchrun x.py\n";
  FixRequest c{FixApplicability::kSafe, "", {insert_line_before({"a.sh", {{2, 3}, {2, 16}}}, "export A=1")}};
  EXPECT_EQ(fixed(continued, c), "<no fix>");
}

TEST(FixResolution, RespellsFlagsAttributesAndYamlKeys) {
  std::string sh = "torchrun x.py --tensor-parallel-size 8\n";
  EXPECT_EQ(fixed(sh, {FixApplicability::kSafe,
                       "",
                       {rename_text({"a.sh", {{1, 15}, {1, 37}}}, "--tensor-parallel-size",
                                    "--tensor-model-parallel-size")}}),
            "torchrun x.py --tensor-model-parallel-size 8\n");
  // The object the setting hangs on stays: only the name after it changes.
  std::string py = "recipe.trainer.strategy.expert_tensor_model_parallel_size = 4\n";
  EXPECT_EQ(fixed(py, {FixApplicability::kSafe,
                       "",
                       {rename_text({"a.py", {{1, 1}, {1, 63}}},
                                    "trainer.strategy.expert_tensor_model_parallel_size",
                                    "trainer.strategy.expert_tensor_parallel_size")}}),
            "recipe.trainer.strategy.expert_tensor_parallel_size = 4\n");
  // A YAML key spelled as its dotted path and located at its value.
  std::string yaml = "model:\n  expert_tensor_model_parallel_size: 1\n";
  EXPECT_EQ(
      fixed(yaml, {FixApplicability::kSafe,
                   "",
                   {rename_text({"a.yaml", {{2, 38}, {2, 39}}}, "model.expert_tensor_model_parallel_size",
                                "model.expert_tensor_parallel_size")}}),
      "model:\n  expert_tensor_parallel_size: 1\n");
  // Part of a longer name is not the name.
  std::string longer = "torchrun x.py --tensor-parallel-size-x 8\n";
  EXPECT_EQ(fixed(longer, {FixApplicability::kSafe,
                           "",
                           {rename_text({"a.sh", {{1, 15}, {1, 39}}}, "--tensor-parallel-size",
                                        "--tensor-model-parallel-size")}}),
            "<no fix>");
}

TEST(FixResolution, LinesAfterEdits) {
  std::vector<TextEdit> edits{{{"a", {{2, 1}, {3, 1}}}, ""}, {{"a", {{5, 1}, {5, 1}}}, "x\ny\n"}};
  EXPECT_EQ(line_after_edits(1, edits), 1);
  EXPECT_EQ(line_after_edits(4, edits), 3);
  EXPECT_EQ(line_after_edits(5, edits), 6);
}

TEST(UnifiedDiff, HunksWithContextAndTheMissingNewline) {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16";
  std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\nsixteen";
  EXPECT_EQ(unified_diff("f", a, b),
            "--- f\n+++ f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
            "@@ -13,4 +13,4 @@\n 13\n 14\n 15\n-16\n\\ No newline at end of file\n+sixteen\n"
            "\\ No newline at end of file\n");
  EXPECT_EQ(unified_diff("f", a, a), "");
  EXPECT_EQ(unified_diff("f", "a\n", "a\nb\n"), "--- f\n+++ f\n@@ -1 +1,2 @@\n a\n+b\n");
}

class FileWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("parlint-writer-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::filesystem::path dir_;
};

TEST_F(FileWriter, ReplacesAtomicallyKeepingModeAndLinks) {
  std::string p = write("a.sh", "old\n");
  ::chmod(p.c_str(), 0750);
  std::string link = (dir_ / "link.sh").string();
  std::filesystem::create_symlink(p, link);
  EXPECT_EQ(replace_file_text(link, "old\n", "new\n"), std::nullopt);
  EXPECT_EQ(read(p), "new\n");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  struct stat st {};
  ::stat(p.c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 2);  // no temporary file left
}

TEST_F(FileWriter, LeavesAFileChangedOnDiskSinceItWasRead) {
  std::string p = write("a.sh", "edited by someone else\n");
  auto why = replace_file_text(p, "what parlint read\n", "fixed\n");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("changed on disk"), std::string::npos);
  EXPECT_EQ(read(p), "edited by someone else\n");
}

TEST_F(FileWriter, RefusesWhatIsNotARegularFile) {
  std::string fifo = (dir_ / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto why = replace_file_text(fifo, "", "x");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("not a regular file"), std::string::npos);
  EXPECT_TRUE(replace_file_text((dir_ / "missing").string(), "", "x"));
}

}  // namespace
}  // namespace parlint
