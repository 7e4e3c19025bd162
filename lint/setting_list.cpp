#include "lint/setting_list.h"

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
