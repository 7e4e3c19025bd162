#pragma once
// The shell parser's variables: a variable's value (text with byte origins, or array elements) and
// the set of variables in scope, copied at every branch, subshell and function body.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lint/model/source_range.h"
#include "parsers/shell/shell_text.h"

namespace parlint::shell {

struct Var;
struct OptionKeyIndex;  // shell_option_merge.h
// A copy of `index` for a copy of its value whose text is `text_size` bytes long (null when the index no
// longer describes it).
std::shared_ptr<OptionKeyIndex> copy_option_keys(const std::shared_ptr<OptionKeyIndex>& index,
                                                 std::size_t text_size);

// The option keys of a value's words, kept with the one Var they describe: a copy of the Var starts
// without them (a copy may be changed in other ways than by appending), and Env::edit drops them.
class KeptOptionKeys {
 public:
  KeptOptionKeys() = default;
  KeptOptionKeys(const KeptOptionKeys&) noexcept {}
  KeptOptionKeys& operator=(const KeptOptionKeys&) noexcept {
    index.reset();
    return *this;
  }
  KeptOptionKeys(KeptOptionKeys&&) noexcept = default;
  KeptOptionKeys& operator=(KeptOptionKeys&&) noexcept = default;
  mutable std::shared_ptr<OptionKeyIndex> index;  // built and extended when asked (shell_option_merge.cpp)
};

// One value an if/case branch gave a variable whose branches disagree (a launch string chosen by mode):
// the branch, as the findings name it, and the value there.
struct BranchValue {
  std::string branch;  // "the branch at line 5 (if [ \"$MODE\" = pretrain ])"
  std::shared_ptr<const Var> value;
};

// A variable: its value, or its elements when it is an array, and where it was assigned.
struct Var {
  ShellText value;
  std::vector<ShellText> elements;
  bool is_array = false;
  bool exported = false;
  Location assigned_at;
  std::string assigned_text;
  // When branches disagreed: the value is unknown, and each branch's value is kept here so that a
  // command that runs the variable ($APP, eval "$CMD") can be read once per branch. Never nested, and any
  // change to the variable drops them.
  std::shared_ptr<const std::vector<BranchValue>> branch_values;
  // A="$A ..." in a branch, whose A the branch shares with the script: the new value is `appended_to`'s
  // followed by `value` (only the appended text), kept as that pair instead of a copy of the whole value
  // (copying it at every if made n appends in n ifs cost n^2). Env gives it whole to every reader
  // (Env::find); the merge after the branches reads the appended part as it is.
  std::shared_ptr<Var> appended_to;
  // For the merge after branches, which asks whether the value already has an option a branch appended:
  // valid while the value only grows at its end (see KeptOptionKeys).
  KeptOptionKeys option_keys;

  std::size_t size() const { return value.text.size() + (appended_to ? appended_to->size() : 0); }
};

// Makes a pending A="$A ..." (Var::appended_to) a whole value in place: the value it extends, copied,
// with the appended text after it, as the assignment itself would have built it.
inline void make_whole(Var& v) {
  if (!v.appended_to) return;
  std::vector<const Var*> chain;  // the pending values, nearest first
  const Var* base = &v;
  for (; base->appended_to; base = base->appended_to.get()) chain.push_back(base);
  ShellText whole = base->value;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) whole.append((*it)->value);
  v.value = std::move(whole);
  v.appended_to.reset();
  v.option_keys.index.reset();
}

// Two values written alike, both fully known.
inline bool same_text(const Var& a, const Var& b) {
  if (a.value.unknown() || b.value.unknown() || a.is_array != b.is_array) return false;
  if (a.value.text != b.value.text) return false;
  if (a.elements.size() != b.elements.size()) return false;
  for (std::size_t i = 0; i < a.elements.size(); ++i)
    if (a.elements[i].text != b.elements[i].text || a.elements[i].unknown()) return false;
  return true;
}

// The names a walk looked up in the variables it was given (through its copy and every copy made from
// it), or that it read them all: what its outcome may depend on. The language server replays a walk of
// a never-called function only where these read as they did (uncalled_function_memo.h).
struct EnvReads {
  std::vector<std::string> names;  // in lookup order, repeats included
  bool every = false;
};

// The shell variables in scope. Every if/case branch, subshell and function body starts from a copy,
// so copies must be cheap: a copy freezes the changes made so far into an immutable layer that both
// share, and each side records its own changes on top. Copying whole maps instead made a script with many
// variables and branches quadratic. Layers deeper than kMaxLayers are flattened into one.
class Env {
 public:
  Env() = default;
  Env(const Env& other) : frozen_(other.freeze()), reads_(other.reads_) {}
  Env& operator=(const Env& other) {
    if (this != &other) {
      frozen_ = other.freeze();
      changes_.clear();
      reads_ = other.reads_;
    }
    return *this;
  }
  Env(Env&&) noexcept = default;
  Env& operator=(Env&&) noexcept = default;

  const Var* find(const std::string& name) const {
    const auto* s = slot(name);
    return s ? s->get() : nullptr;
  }
  // The variable as stored: a pending append (Var::appended_to) is left as it is.
  const Var* find_pending(const std::string& name) const {
    const auto* s = raw_slot(name);
    return s ? s->get() : nullptr;
  }
  // Whether edit() would change `name` in place (not copy a value shared with other copies) and it is
  // whole.
  bool owns_whole(const std::string& name) {
    if (!changes_.contains(name)) thaw();
    auto it = changes_.find(name);
    return it != changes_.end() && it->second && it->second.use_count() == 1 && !it->second->appended_to;
  }
  // Whether `name` is a pending append this copy alone holds (its appended text can grow in place).
  bool owns_pending(const std::string& name) {
    if (!changes_.contains(name)) thaw();
    auto it = changes_.find(name);
    return it != changes_.end() && it->second && it->second.use_count() == 1 && it->second->appended_to;
  }
  void set(const std::string& name, Var v) { changes_[name] = std::make_shared<Var>(std::move(v)); }
  // A variable to change in place (created empty when missing). A value this copy shares with others
  // (a frozen layer, another copy) is copied first.
  // A variable to change in place, as edit(), when the change only appends to its value: what is kept
  // about the value's words stays.
  Var& edit_appending(const std::string& name) {
    const auto* kept = raw_slot(name);
    const Var* was = kept ? kept->get() : nullptr;
    auto index = was ? was->option_keys.index : nullptr;
    Var& v = edit(name);
    // Changed in place, or a copy of a shared value (a frozen layer, as at every `source`): the copy
    // keeps a copy of what was read of the value's words, rather than reading them all again.
    if (&v == was)
      v.option_keys.index = std::move(index);
    else
      v.option_keys.index = copy_option_keys(index, v.value.text.size());
    return v;
  }
  // A variable to append to, as edit_appending, where a pending append (Var::appended_to) stays pending:
  // what is appended goes after its appended text (a copy of that text when another copy shares it).
  Var& edit_tail(const std::string& name) {
    const auto* kept = raw_slot(name);
    if (!kept || !(*kept)->appended_to) return edit_appending(name);
    if (!changes_.contains(name)) thaw();
    auto it = changes_.find(name);
    if (it != changes_.end() && it->second) {
      if (it->second.use_count() > 1) it->second = std::make_shared<Var>(*it->second);
      return *it->second;
    }
    const std::shared_ptr<Var>* frozen = frozen_slot(name);
    auto& p = changes_[name];
    p = std::make_shared<Var>(**frozen);
    return *p;
  }
  Var& edit(const std::string& name) {
    Var& v = edit_any(name);
    v.option_keys.index.reset();
    return v;
  }

 private:
  Var& edit_any(const std::string& name) {
    if (reads_) reads_->names.push_back(name);
    if (!changes_.contains(name)) thaw();
    auto it = changes_.find(name);
    if (it != changes_.end() && it->second) {
      make_whole(*it->second);
      if (it->second.use_count() > 1) it->second = std::make_shared<Var>(*it->second);
      return *it->second;
    }
    const std::shared_ptr<Var>* frozen = it == changes_.end() ? frozen_slot(name) : nullptr;
    if (frozen) make_whole(**frozen);
    auto& p = changes_[name];
    p = frozen ? std::make_shared<Var>(**frozen) : std::make_shared<Var>();
    return *p;
  }

 public:
  // The pending append this copy alone holds (owns_pending), as it is.
  Var& edit_pending(const std::string& name) { return *changes_.at(name); }
  // The shared value itself, to tell whether two copies still hold the same variable. A pending append is
  // made whole first (in place: every copy that holds it sees the same value, now written out).
  const std::shared_ptr<Var>* slot(const std::string& name) const {
    const auto* s = raw_slot(name);
    if (s) make_whole(**s);
    return s;
  }
  const std::shared_ptr<Var>* raw_slot(const std::string& name) const {
    if (reads_) reads_->names.push_back(name);
    if (auto it = changes_.find(name); it != changes_.end()) return it->second ? &it->second : nullptr;
    return frozen_slot(name);
  }
  void share(const std::string& name, const std::shared_ptr<Var>& v) { changes_[name] = v; }
  void erase(const std::string& name) { changes_[name] = nullptr; }  // hides the frozen value

  // Records in `reads` every lookup made through this copy and the copies made from it (null: none).
  void record_reads(EnvReads* reads) { reads_ = reads; }
  // How many frozen layers this copy stands on: where its copies flatten them (kMaxLayers).
  int layers() const { return frozen_ ? frozen_->depth : 0; }

  // Every variable this copy holds, by name, in name order (newest value of each).
  template <class Visit>
  void for_each(Visit&& visit) const {
    if (reads_) reads_->every = true;
    std::map<std::string, Var*> seen;
    for (const auto& [k, v] : changes_) seen.emplace(k, v.get());
    for (const Layer* l = frozen_.get(); l; l = l->parent.get())
      for (const auto& [k, v] : l->vars) seen.emplace(k, v.get());
    for (const auto& [k, v] : seen)
      if (v) {
        make_whole(*v);
        visit(k, *v);
      }
  }

  // The names this copy set or erased since it was copied from `base`.
  void changed_since(const Env& base, std::set<std::string>& out) const {
    for (const auto& [k, v] : changes_) out.insert(k);
    const Layer* stop = base.frozen_.get();
    const Layer* l = frozen_.get();
    for (; l && l != stop; l = l->parent.get())
      for (const auto& [k, v] : l->vars) out.insert(k);
    if (l == stop) return;
    // The base's layer was flattened away: every name may have changed.
    if (reads_) reads_->every = true;
    for (l = frozen_.get(); l; l = l->parent.get())
      for (const auto& [k, v] : l->vars) out.insert(k);
  }

 private:
  using Vars = std::map<std::string, std::shared_ptr<Var>>;
  struct Layer {
    std::shared_ptr<const Layer> parent;
    Vars vars;  // a null value erases the name
    int depth = 1;
  };
  static constexpr int kMaxLayers = 16;

  const std::shared_ptr<Var>* frozen_slot(const std::string& name) const {
    for (const Layer* l = frozen_.get(); l; l = l->parent.get())
      if (auto it = l->vars.find(name); it != l->vars.end()) return it->second ? &it->second : nullptr;
    return nullptr;
  }

  // Takes back the layers no other copy shares any more: once an if's branches are merged and gone, the
  // variables frozen for them belong to this copy alone and can change in place again (an array appended
  // to after every if would otherwise be copied, and its old versions kept, each time).
  void thaw() {
    while (frozen_ && frozen_.use_count() == 1) {
      auto top = std::const_pointer_cast<Layer>(std::move(frozen_));
      frozen_ = top->parent;
      Vars older = std::move(top->vars);
      if (older.size() > changes_.size()) {
        std::swap(older, changes_);  // now `older` holds the newer values, which win
        for (auto& [k, v] : older) changes_[k] = std::move(v);
      } else {
        changes_.merge(older);  // keeps the newer value of a name in both
      }
    }
  }

  std::shared_ptr<const Layer> freeze() const {
    if (changes_.empty()) return frozen_;
    auto layer = std::make_shared<Layer>();
    layer->parent = frozen_;
    layer->vars = std::move(changes_);
    changes_.clear();
    layer->depth = frozen_ ? frozen_->depth + 1 : 1;
    if (layer->depth > kMaxLayers) {
      auto flat = std::make_shared<Layer>();
      for (const Layer* l = layer.get(); l; l = l->parent.get())
        for (const auto& [k, v] : l->vars) flat->vars.emplace(k, v);  // the nearest layer wins
      std::erase_if(flat->vars, [](const auto& kv) { return !kv.second; });
      frozen_ = flat;
    } else {
      frozen_ = layer;
    }
    return frozen_;
  }

  mutable std::shared_ptr<const Layer> frozen_;  // freezing changes the representation, not the value
  mutable Vars changes_;
  EnvReads* reads_ = nullptr;  // not owned
};

}  // namespace parlint::shell
