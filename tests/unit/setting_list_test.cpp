#include "lint/model/setting_list.h"

#include <gtest/gtest.h>

namespace parlint {
namespace {

using Source = SettingList::Source;

Fact tp(std::int64_t v, int priority = 1, Origin origin = Origin::kYaml) {
  Fact f;
  f.key = Key::kTensorModelParallelSize;
  f.value = Value::integer(v);
  f.priority = priority;
  f.origin = origin;
  return f;
}

TEST(SettingList, TwoWrittenValuesConflictAndTheLaterWins) {
  SettingList s;
  s.add(tp(2), Source::kWritten);
  s.add(tp(4), Source::kWritten);
  ASSERT_EQ(s.conflicts().size(), 1u);
  EXPECT_EQ(s.conflicts()[0].winner.value, Value::integer(4));
  EXPECT_EQ(s.conflicts()[0].loser.value, Value::integer(2));
  EXPECT_EQ(s.last(Key::kTensorModelParallelSize)->value, Value::integer(4));
}

TEST(SettingList, OverridingAnInheritedValueOrADefaultIsNoConflict) {
  SettingList s;
  s.add(tp(2), Source::kInherited);
  s.add(tp(4), Source::kWritten);
  s.add(tp(1, 1, Origin::kRecipeDefault), Source::kWritten);  // a default is there to be replaced
  s.add(tp(8), Source::kInherited);
  EXPECT_TRUE(s.conflicts().empty());
}

TEST(SettingList, TheSameValueTwiceOrAnUnknownOneIsNoConflict) {
  SettingList s;
  s.add(tp(2), Source::kWritten);
  s.add(tp(2), Source::kWritten);
  Fact unknown = tp(0);
  unknown.value = Value::unknown("set at run time");
  s.add(unknown, Source::kWritten);
  EXPECT_TRUE(s.conflicts().empty());
}

TEST(SettingList, OnlyValuesOfOnePriorityConflict) {
  SettingList s;
  s.add(tp(2, 2), Source::kWritten);  // the full name
  s.add(tp(4, 1), Source::kWritten);  // an alias of lower priority: the full name wins, no conflict
  EXPECT_TRUE(s.conflicts().empty());
  s.add(tp(8, 2), Source::kWritten);
  ASSERT_EQ(s.conflicts().size(), 1u);
  EXPECT_EQ(s.conflicts()[0].loser.value, Value::integer(2));
}

TEST(SettingList, EachRepeatIsReportedOnceAgainstTheValueBeforeIt) {
  SettingList s;
  for (std::int64_t v : {1, 1, 2}) s.add(tp(v), Source::kWritten);
  ASSERT_EQ(s.conflicts().size(), 1u);
  EXPECT_EQ(s.conflicts()[0].winner.value, Value::integer(2));
}

TEST(SettingList, InheritAllAndEraseKeepTheIndexRight) {
  SettingList s;
  s.add(tp(2), Source::kWritten);
  s.inherit_all();
  s.add(tp(4), Source::kWritten);
  EXPECT_TRUE(s.conflicts().empty());
  s.erase_if([](const Fact& f) { return f.value == Value::integer(4); });
  ASSERT_EQ(s.size(), 1u);
  s.add(tp(8), Source::kWritten);  // against the inherited 2 that is left: no conflict
  EXPECT_TRUE(s.conflicts().empty());
  EXPECT_EQ(s.take_facts().size(), 2u);
  EXPECT_EQ(s.size(), 0u);
}

}  // namespace
}  // namespace parlint
