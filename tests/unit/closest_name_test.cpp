// The "did you mean" of the command line and the configuration: near misspellings get the name meant,
// far words get none.
#include "lint/model/closest_name.h"

#include <gtest/gtest.h>

namespace parlint {
namespace {

TEST(ClosestName, CountsSwapsAsOneEdit) {
  EXPECT_EQ(spelling_distance("ignroe", "ignore"), 1u);
  EXPECT_EQ(spelling_distance("chek", "check"), 1u);
  EXPECT_EQ(spelling_distance("PL1O1", "pl101"), 1u);  // case ignored; the letter O for a zero is one edit
  EXPECT_EQ(spelling_distance("", "abc"), 3u);
  EXPECT_EQ(spelling_distance("kitten", "sitting"), 3u);
}

TEST(ClosestName, SuggestsTheNearestNameOnly) {
  std::vector<std::string> commands = {"check", "plan", "rules", "rule", "clusters", "lsp"};
  EXPECT_EQ(closest_name("chek", commands), "check");
  EXPECT_EQ(closest_name("ruls", commands), "rules");
  EXPECT_EQ(closest_name("deploy", commands), std::nullopt);
  EXPECT_EQ(closest_name("check", commands), std::nullopt);  // the name itself is no mistake
  std::vector<std::string> profiles = {"dgx-h100", "gb200-nvl72", "gb300-nvl72"};
  EXPECT_EQ(closest_name("gb200-nvl7", profiles), "gb200-nvl72");
  EXPECT_EQ(closest_name("dgx-z9000", profiles), std::nullopt);  // three edits from dgx-h100: no guess
  EXPECT_EQ(did_you_mean("--selct", {"--select", "--ignore"}), " (did you mean '--select'?)");
  EXPECT_EQ(did_you_mean("xyz", {"--select"}), "");
}

}  // namespace
}  // namespace parlint
