#pragma once
// The settings one job collects, in the order they are written, and what PL802 reports about them: the
// one definition of a conflict, used by every parser (YAML documents, command lines, Python functions).
//
// A later setting overrides an earlier one. Two different known values written for one key at the same
// priority are a conflict: only one takes effect, and the other is dead text. A value that is only
// inherited (from a base object, a called recipe, a YAML merge key, a branch that may run) or a default
// is overridden without one.
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "lint/model/fact.h"

namespace parlint {

class SettingList {
 public:
  enum class Source { kWritten, kInherited };

  // Appends `f`; records a conflict with the last setting of its key and priority when both were written
  // here with different known values.
  void add(Fact f, Source source);

  // The last fact for `key` at any priority, or null.
  const Fact* last(Key key) const;

  const std::vector<Fact>& facts() const { return facts_; }
  std::vector<Fact>& facts() { return facts_; }
  const std::vector<Conflict>& conflicts() const { return conflicts_; }
  void add_conflict(Conflict c) { conflicts_.push_back(std::move(c)); }
  std::size_t size() const { return facts_.size(); }

  // Everything so far becomes inherited: a branch that may run overrides what came before on purpose.
  void inherit_all();
  // Drops the facts a later one of the same key, priority and spelling overrides: they decide nothing
  // more (conflicts are already recorded), and a function of n sequential ifs would copy all of them
  // into each branch. Indices into the list change.
  void drop_overridden();
  // Removes the facts `drop` selects (the caller's argument replaces a callee's default).
  template <typename Pred>
  void erase_if(Pred drop) {
    std::vector<Fact> kept;
    std::vector<Source> sources;
    for (std::size_t i = 0; i < facts_.size(); ++i)
      if (!drop(facts_[i])) {
        kept.push_back(std::move(facts_[i]));
        sources.push_back(sources_[i]);
      }
    facts_ = std::move(kept);
    sources_ = std::move(sources);
    reindex();
  }

  // Takes the facts out (the list is left empty).
  std::vector<Fact> take_facts();
  std::vector<Conflict> take_conflicts() { return std::move(conflicts_); }

 private:
  void reindex();

  std::vector<Fact> facts_;
  std::vector<Source> sources_;
  std::vector<Conflict> conflicts_;
  std::map<std::pair<Key, int>, std::size_t> last_of_;  // (key, priority) -> index of its last fact
};

}  // namespace parlint
