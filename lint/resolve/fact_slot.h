#pragma once
// One key's winning fact in a job, stored only when the key is set. A job sets a few dozen of the keys
// parlint knows; a std::optional<Fact> for every key held about 35 KB per job whatever it set, which was
// most of the memory a script of many launches took (issue 44). It reads like a std::optional<Fact>: a
// pointer to its fact stays valid while the slot is set, assignments included.
#include <memory>
#include <utility>

#include "lint/model/fact.h"

namespace parlint {

class FactSlot {
 public:
  FactSlot() = default;
  FactSlot(const FactSlot&) = delete;
  FactSlot& operator=(const FactSlot&) = delete;

  FactSlot& operator=(const Fact& fact) { return assign(Fact(fact)); }
  FactSlot& operator=(Fact&& fact) { return assign(std::move(fact)); }
  void reset() { fact_.reset(); }

  explicit operator bool() const { return fact_ != nullptr; }
  Fact& operator*() { return *fact_; }
  const Fact& operator*() const { return *fact_; }
  Fact* operator->() { return fact_.get(); }
  const Fact* operator->() const { return fact_.get(); }

 private:
  // Into the fact already there, so that what points at it still does (as with std::optional).
  FactSlot& assign(Fact&& fact) {
    if (fact_)
      *fact_ = std::move(fact);
    else
      fact_ = std::make_unique<Fact>(std::move(fact));
    return *this;
  }

  std::unique_ptr<Fact> fact_;
};

}  // namespace parlint
