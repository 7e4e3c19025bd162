// Plan text broken to the reader's width (lint/reporters/text_wrap).
#include "lint/reporters/text_wrap.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace parlint {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(TextWrap, AShortLineStaysAsItIs) {
  EXPECT_EQ(wrap_line("  derived:", 4, 80), "  derived:\n");
  EXPECT_EQ(wrap_line(std::string(200, 'x'), 4, 0), std::string(200, 'x') + "\n");
}

TEST(TextWrap, BreaksAtSpacesWithTheHangingIndent) {
  std::string text =
      "    error[PL101] TP=16 spans 2 NVLink domains of 8 GPUs; every TP all-reduce leaves NVLink";
  auto lines = lines_of(wrap_line(text, 6, 40));
  ASSERT_GT(lines.size(), 2u);
  EXPECT_EQ(lines[0], "    error[PL101] TP=16 spans 2 NVLink");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind("      ", 0), 0u) << lines[i];
    EXPECT_NE(lines[i][6], ' ') << lines[i];
  }
  for (const auto& l : lines) EXPECT_LE(text_columns(l), 40u) << l;
  // Joined again, the words are the same.
  std::string joined;
  for (const auto& l : lines) joined += (joined.empty() ? "" : " ") + l.substr(l.find_first_not_of(' '));
  EXPECT_EQ("    " + joined, text);
}

TEST(TextWrap, CountsCodePointsNotBytes) {
  EXPECT_EQ(text_columns("PP·lcm(TP·CP, EP·ETP) × 2"), 25u);
  std::string text = "    minimum GPUs M = PP·lcm(TP·CP, EP·ETP) = 2·lcm(16, 16) = 32";
  EXPECT_EQ(wrap_line(text, 6, static_cast<std::size_t>(text_columns(text))), text + "\n");
}

TEST(TextWrap, AWordLongerThanTheLineStaysWholeAndStartsFurtherLeft) {
  std::string path(70, 'p');
  auto lines = lines_of(wrap_line("  key    1       the recipe (" + path + ")", 17, 80));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "      (" + path + ")");
}

TEST(TextWrap, TablePaddingIsKeptWhereItFits) {
  EXPECT_EQ(wrap_line("  nodes       4       #SBATCH --nodes (line 5) <- NODES=4 set here (line 2)", 22, 60),
            "  nodes       4       #SBATCH --nodes (line 5) <- NODES=4\n"
            "                      set here (line 2)\n");
}

TEST(TextWrap, ACommandBreaksOutsideQuotesAndEndsItsLinesInABackslash) {
  std::string command =
      "    torchrun --nproc_per_node=8 run.py --flag \"a quoted value with spaces\" 'another one' x=1";
  auto lines = lines_of(wrap_command(command, 6, 30));
  ASSERT_GT(lines.size(), 2u);
  std::string joined;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    EXPECT_LE(text_columns(l), 30u + 10) << l;  // a quoted argument longer than a line stays whole
    if (i + 1 < lines.size()) {
      ASSERT_GE(l.size(), 2u);
      EXPECT_EQ(l.substr(l.size() - 2), " \\") << l;
      l.resize(l.size() - 2);
    }
    joined += (joined.empty() ? "" : " ") + l.substr(l.find_first_not_of(' '));
  }
  EXPECT_EQ("    " + joined, command);
  // The double-quoted argument is on one line.
  for (const auto& l : lines) EXPECT_EQ(l.find("\"a quoted"), l.find('"')) << l;
}

}  // namespace
}  // namespace parlint
