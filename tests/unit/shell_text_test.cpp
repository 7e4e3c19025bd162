// ByteOrigins: the origin of every byte of an expanded shell text, stored as runs.
#include <gtest/gtest.h>

#include "parsers/shell/shell_text.h"

namespace parlint {
namespace {

bool same(ByteOrigin a, ByteOrigin b) {
  return a.file == b.file && a.offset == b.offset;
}

int runs(const ByteOrigins& o) {
  int n = 0;
  o.for_each_run([&](ByteOrigin, std::uint32_t) { ++n; });
  return n;
}

TEST(ByteOrigins, ConsecutiveBytesOfOneFileAreOneRun) {
  ByteOrigins o;
  for (std::uint32_t i = 0; i < 5; ++i) o.push({0, 100 + i});
  EXPECT_EQ(o.size(), 5u);
  EXPECT_EQ(runs(o), 1);
  EXPECT_TRUE(same(o.at(0), {0, 100}));
  EXPECT_TRUE(same(o.at(4), {0, 104}));
  EXPECT_TRUE(same(o.back(), {0, 104}));
}

TEST(ByteOrigins, AJumpAnotherFileOrProducedBytesStartANewRun) {
  ByteOrigins o;
  o.push({0, 10});
  o.push({0, 11});
  o.push({0, 20});  // a jump: the next line of a continued command
  o.push({1, 20});  // another file (a sourced script)
  o.push({});       // produced: a space between array elements
  o.push({});
  EXPECT_EQ(runs(o), 4);
  EXPECT_TRUE(same(o.at(1), {0, 11}));
  EXPECT_TRUE(same(o.at(2), {0, 20}));
  EXPECT_TRUE(same(o.at(3), {1, 20}));
  EXPECT_LT(o.at(4).file, 0);
  EXPECT_LT(o.at(5).file, 0);
  EXPECT_LT(o.at(6).file, 0);  // past the end
}

TEST(ByteOrigins, AppendJoinsARunThatContinues) {
  ByteOrigins a, b;
  a.push({0, 1});
  a.push({0, 2});
  b.push({0, 3});  // continues a's run
  b.push({0, 4});
  b.push({2, 0});
  a.append(b);
  EXPECT_EQ(a.size(), 5u);
  EXPECT_EQ(runs(a), 2);
  EXPECT_TRUE(same(a.at(3), {0, 4}));
  EXPECT_TRUE(same(a.at(4), {2, 0}));
}

TEST(ByteOrigins, SliceKeepsTheOriginsOfTheRest) {
  ByteOrigins o;
  for (std::uint32_t i = 0; i < 8; ++i) o.push({0, 50 + i});  // NAME=value
  o.push({});
  o.push({3, 7});
  ByteOrigins value = o.slice(5);
  EXPECT_EQ(value.size(), 5u);
  EXPECT_TRUE(same(value.at(0), {0, 55}));
  EXPECT_TRUE(same(value.at(2), {0, 57}));
  EXPECT_LT(value.at(3).file, 0);
  EXPECT_TRUE(same(value.at(4), {3, 7}));
  EXPECT_TRUE(o.slice(10).empty());
  EXPECT_TRUE(o.slice(99).empty());
}

TEST(ByteOrigins, ShellTextKeepsOneOriginPerByte) {
  ShellText t;
  for (char c : std::string("TP=8")) t.push(c, {0, static_cast<std::uint32_t>(t.text.size())});
  ShellText more;
  more.add_unknown("read at run time");
  t.append(more);
  EXPECT_EQ(t.text.size(), t.origin.size());
  EXPECT_TRUE(same(t.origin.at(3), {0, 3}));
  EXPECT_LT(t.origin.at(4).file, 0);
}

}  // namespace
}  // namespace parlint
