// Where --add-noqa (and the language server's quick fix) put a suppression comment: the end of the line,
// alone above a statement, or a disable/enable pair around a construct a trailing `#` would change; and
// the codes of one place grouped, or merged into the comment that already covers the line.
#include "lint/engine/fix/suppression_edit.h"

#include <gtest/gtest.h>

#include "lint/engine/suppressions.h"

namespace parlint {
namespace {

using How = SuppressionGroup::How;

std::string add(const std::string& text, FileKind kind, const std::vector<SuppressionTarget>& targets) {
  std::vector<LineEdit> edits;
  for (const auto& g : plan_suppressions(text, kind, targets, "why"))
    edits.insert(edits.end(), g.edits.begin(), g.edits.end());
  return apply_line_edits(text, edits);
}

TEST(SuppressionEdit, CodesOfOneLineGoTogetherAtItsEnd) {
  EXPECT_EQ(add("a: 1\nb: 2   \n", FileKind::kYaml, {{1, "PL305"}, {1, "PL101"}, {1, "PL305"}}),
            "a: 1\nb: 2  # parlint: ignore[PL101, PL305] -- why   \n");
}

TEST(SuppressionEdit, KeepsTheFilesLineEndings) {
  EXPECT_EQ(
      add("x \\\r\n  --tp 16 \\\r\n  --pp 2\r\n", FileKind::kShell, {{1, "PL101"}}),
      "# parlint: disable[PL101] -- why\r\nx \\\r\n  --tp 16 \\\r\n  --pp 2\r\n# parlint: enable[PL101]\r\n");
  EXPECT_EQ(add("a: 1\r\n", FileKind::kYaml, {{0, "PL101"}}), "a: 1  # parlint: ignore[PL101] -- why\r\n");
}

TEST(SuppressionEdit, ContinuedShellCommand) {
  const std::string text = "A=1\ntorchrun x.py \\\n  --tp 16 \\\n  --pp 2\necho done\n";
  // The first line of the statement: alone above it, where it covers that line.
  EXPECT_EQ(add(text, FileKind::kShell, {{1, "PL101"}}),
            "A=1\n# parlint: ignore[PL101] -- why\ntorchrun x.py \\\n  --tp 16 \\\n  --pp 2\necho done\n");
  // A middle line: a range around the whole command.
  EXPECT_EQ(add(text, FileKind::kShell, {{2, "PL101"}}),
            "A=1\n# parlint: disable[PL101] -- why\ntorchrun x.py \\\n  --tp 16 \\\n  --pp 2\n"
            "# parlint: enable[PL101]\necho done\n");
  // The last line ends the command: its end takes a comment.
  EXPECT_EQ(add(text, FileKind::kShell, {{3, "PL402"}}),
            "A=1\ntorchrun x.py \\\n  --tp 16 \\\n  --pp 2  # parlint: ignore[PL402] -- why\necho done\n");
}

TEST(SuppressionEdit, MultiLineShellStringAndHeredoc) {
  const std::string text = "bash -c \"torchrun x.py\n  --tp 16\n  --pp 2\"\n";
  auto groups = plan_suppressions(text, FileKind::kShell, {{1, "PL101"}}, "");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].how, How::kRange);
  EXPECT_EQ(groups[0].where, "lines 1-3");
  // Quotes inside a heredoc body are text: the lines after it are not inside a string.
  const std::string heredoc = "cat <<EOF\nit's\nEOF\ntorchrun x.py --tp 16\n";
  EXPECT_EQ(add(heredoc, FileKind::kShell, {{3, "PL101"}}),
            "cat <<EOF\nit's\nEOF\ntorchrun x.py --tp 16  # parlint: ignore[PL101] -- why\n");
}

TEST(SuppressionEdit, PythonTripleQuotedString) {
  const std::string text = "CMD = \"\"\"torchrun x.py\n  --tp 16\n\"\"\"  # launch\nTP = 16\n";
  EXPECT_EQ(add(text, FileKind::kPython, {{1, "PL101"}, {3, "PL102"}}),
            "# parlint: disable[PL101] -- why\nCMD = \"\"\"torchrun x.py\n  --tp 16\n\"\"\"  # launch\n"
            "# parlint: enable[PL101]\nTP = 16  # parlint: ignore[PL102] -- why\n");
}

TEST(SuppressionEdit, YamlBlockScalar) {
  const std::string text = "job:\n  script: |\n    torchrun x.py\n    --tp 16\n  nodes: 2\n";
  EXPECT_EQ(add(text, FileKind::kYaml, {{3, "PL101"}}),
            "job:\n  # parlint: disable[PL101] -- why\n  script: |\n    torchrun x.py\n    --tp 16\n"
            "  # parlint: enable[PL101]\n  nodes: 2\n");
}

TEST(SuppressionEdit, MergesIntoTheCommentThatCoversTheLine) {
  EXPECT_EQ(add("a: 1  # parlint: ignore[PL101] -- known\n", FileKind::kYaml, {{0, "PL305"}}),
            "a: 1  # parlint: ignore[PL101, PL305] -- known\n");
  EXPECT_EQ(add("a: 1  # parlint: ignore=PL101\n", FileKind::kYaml, {{0, "PL305"}}),
            "a: 1  # parlint: ignore=PL101,PL305\n");
  EXPECT_EQ(add("# parlint: ignore[ PL101 ]\n# note\na: 1\n", FileKind::kYaml, {{2, "PL305"}}),
            "# parlint: ignore[ PL101, PL305 ]\n# note\na: 1\n");
  // Another kind of comment on the line: one parlint comment per line, so this one goes above.
  EXPECT_EQ(add("a: 1  # parlint: disable=PL101\n", FileKind::kYaml, {{0, "PL305"}}),
            "# parlint: ignore[PL305] -- why\na: 1  # parlint: disable=PL101\n");
}

TEST(SuppressionEdit, AboveFirstAndLinesPastTheEnd) {
  auto groups = plan_suppressions("x = [\n  1,\n]\n", FileKind::kPython, {{0, "PL405"}}, "", true);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].how, How::kAbove);
  EXPECT_TRUE(plan_suppressions("a: {b: 1\n", FileKind::kYaml, {{1, "PL900"}}, "").empty());
}

TEST(SuppressionEdit, LineNumbersAfterInsertions) {
  std::vector<LineEdit> edits = {{2, 0, "# a\n"}, {2, 5, "  # b"}, {4, 0, "# c\n# d\n"}};
  EXPECT_EQ(line_after_insertions(1, edits), 1);
  EXPECT_EQ(line_after_insertions(2, edits), 3);
  EXPECT_EQ(line_after_insertions(4, edits), 7);
}

TEST(SuppressionComment, OneGrammar) {
  auto c = find_suppression_comment("  x: 1  # parlint: ignore[PL101, sp-without-tp ] -- a reason");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, "ignore");
  EXPECT_EQ(c->list, "PL101, sp-without-tp ");
  EXPECT_EQ(c->reason, "a reason");
  EXPECT_TRUE(c->bracket);
  EXPECT_FALSE(c->own_line);
  EXPECT_EQ(c->hash, 8u);
  EXPECT_EQ(c->list_end, std::string("  x: 1  # parlint: ignore[PL101, sp-without-tp").size());
  c = find_suppression_comment("# parlint: disable=PL201,PL202 -- why");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, "disable");
  EXPECT_FALSE(c->bracket);
  EXPECT_TRUE(c->own_line);
  EXPECT_EQ(c->list, "PL201,PL202");
  EXPECT_EQ(c->list_end, std::string("# parlint: disable=PL201,PL202").size());
  EXPECT_FALSE(find_suppression_comment("# parlint is a linter"));
}

}  // namespace
}  // namespace parlint
