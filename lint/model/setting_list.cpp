#include "lint/model/setting_list.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>

namespace parlint {

void SettingList::add(Fact f, Source source) {
  if (f.origin == Origin::kRecipeDefault) source = Source::kInherited;  // a default is there to be replaced
  auto [it, first] = last_of_.try_emplace({f.key, f.priority}, facts_.size());
  if (!first) {
    const Fact& prev = facts_[it->second];
    if (source == Source::kWritten && sources_[it->second] == Source::kWritten && prev.value.is_known() &&
        f.value.is_known() && !(prev.value == f.value))
      conflicts_.push_back({f, prev});
    it->second = facts_.size();
  }
  facts_.push_back(std::move(f));
  sources_.push_back(source);
}

const Fact* SettingList::last(Key key) const {
  for (auto it = facts_.rbegin(); it != facts_.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

void SettingList::drop_overridden() {
  std::set<std::tuple<Key, int, std::string_view>> later;
  std::vector<bool> keep(facts_.size());
  for (std::size_t i = facts_.size(); i-- > 0;)
    keep[i] = later.insert({facts_[i].key, facts_[i].priority, facts_[i].spelling}).second;
  if (std::all_of(keep.begin(), keep.end(), [](bool k) { return k; })) return;
  std::vector<Fact> facts;
  std::vector<Source> sources;
  for (std::size_t i = 0; i < facts_.size(); ++i)
    if (keep[i]) {
      facts.push_back(std::move(facts_[i]));
      sources.push_back(sources_[i]);
    }
  facts_ = std::move(facts);
  sources_ = std::move(sources);
  reindex();
}

void SettingList::inherit_all() {
  for (auto& s : sources_) s = Source::kInherited;
}

std::vector<Fact> SettingList::take_facts() {
  std::vector<Fact> out = std::move(facts_);
  facts_.clear();
  sources_.clear();
  last_of_.clear();
  return out;
}

void SettingList::reindex() {
  last_of_.clear();
  for (std::size_t i = 0; i < facts_.size(); ++i) last_of_[{facts_[i].key, facts_[i].priority}] = i;
}

}  // namespace parlint
