#include "parsers/shell/shell_option_merge.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace parlint::shell {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n';
}

// string_view::find compares character by character; memmem scans a long value many times faster.
std::size_t find_text(std::string_view text, std::string_view key, std::size_t from) {
  if (from > text.size() || key.empty()) return std::string_view::npos;
  const void* at = memmem(text.data() + from, text.size() - from, key.data(), key.size());
  return at ? static_cast<std::size_t>(static_cast<const char*>(at) - text.data()) : std::string_view::npos;
}

// The option a word starts (--flag, --flag=v, -x, key=value, +key=value), or "" for a value word.
std::string_view option_key_view(std::string_view w) {
  if (w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])) && w[1] != '.')
    return w.substr(0, w.find('='));
  auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0) return {};
  std::string_view key = w.substr(0, eq);
  bool plain = std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '~' ||
           c == '-';
  });
  return plain ? key : std::string_view{};
}

std::string option_key(std::string_view w) {
  return std::string(option_key_view(w));
}

// A value split into its leading words and its options, each option with the words that follow it.
struct OptionList {
  std::vector<const ShellText*> head;
  std::vector<std::string> order;  // option keys in first-seen order
  std::map<std::string, std::vector<std::vector<const ShellText*>>> options;  // every occurrence
};

OptionList split_options(const std::vector<ShellText>& words) {
  OptionList out;
  std::vector<const ShellText*>* current = &out.head;
  for (const ShellText& w : words) {
    std::string key = option_key(w.text);
    if (key.empty()) {
      current->push_back(&w);
      continue;
    }
    auto& occurrences = out.options[key];
    if (occurrences.empty()) out.order.push_back(key);
    occurrences.emplace_back();
    occurrences.back().push_back(&w);
    current = &occurrences.back();
  }
  return out;
}

bool same_words(const std::vector<const ShellText*>& a, const std::vector<const ShellText*>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i]->text != b[i]->text) return false;
  return true;
}

bool same_occurrences(const std::vector<std::vector<const ShellText*>>& a,
                      const std::vector<std::vector<const ShellText*>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_words(a[i], b[i])) return false;
  return true;
}

// The options of each branch's list, counted once: every key in first-seen order, how many branches set
// it (only a key every branch sets can agree) and the first branch that does (where its name was written).
struct KeyCensus {
  std::vector<std::string_view> keys;
  std::set<std::string_view> seen;
  std::map<std::string_view, std::size_t> lists_with, first_in;
  explicit KeyCensus(const std::vector<OptionList>& lists) {
    for (std::size_t i = 0; i < lists.size(); ++i)
      for (const auto& k : lists[i].order) {
        if (seen.insert(k).second) keys.push_back(k);
        first_in.emplace(k, i);
        ++lists_with[k];
      }
  }
};

// `key=<unknown>`: an option the branches set differently (or not at all), written where the first branch
// that sets it wrote its name; the value is what is unknown.
ShellText unknown_option(std::string_view key, const ShellText& written, const std::string& branches) {
  ShellText w;
  for (std::size_t i = 0; i < key.size(); ++i) w.push(key[i], written.origin.at(i));
  w.written_first = written.written_first;
  w.written_last = written.written_last;
  w.push('=', {});
  w.add_unknown(std::string(key) + " is set differently (or not at all) by " + branches);
  return w;
}

std::size_t count_placeholders(std::string_view s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), kUnknownByte));
}

// Each blank-separated word of t[from, end), with where it starts and whether it runs to the end of t (a
// last word, which may still grow: A="${A}x").
template <class Visit>
void each_word_at(std::string_view t, std::size_t from, Visit&& visit) {
  for (std::size_t i = from; i < t.size();) {
    if (is_blank(t[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < t.size() && !is_blank(t[j])) ++j;
    visit(t.substr(i, j - i), i, j == t.size());
    i = j;
  }
}

// Each word of t[from, end) as an option key: the word up to its first '='.
template <class Visit>
void each_word_key(std::string_view t, std::size_t from, Visit&& visit) {
  each_word_at(t, from,
               [&](std::string_view word, std::size_t, bool) { visit(word.substr(0, word.find('='))); });
}

// Reads what the value `t` gained since the index last read it, from its last word read (which may have
// grown since, A="${A}x": its shorter key then stays among the keys the value may have, a superset).
void extend(OptionKeyIndex& index, std::string_view t) {
  index.placeholders += count_placeholders(t.substr(index.upto));
  index.upto = t.size();
  std::size_t formed = t.size();
  each_word_at(t, index.formed, [&](std::string_view word, std::size_t start, bool last) {
    std::string_view key = word.substr(0, word.find('='));
    if (!index.keys.contains(key)) index.keys.emplace(key);
    if (last) {  // its form is read once it has ended
      formed = start;
      return;
    }
    if (std::string_view option = option_key_view(word); !option.empty()) {
      bool unknown =
          word.size() == option.size() + 2 && word[option.size()] == '=' && word.back() == kUnknownByte;
      if (auto it = index.only_unknown.find(option); it != index.only_unknown.end())
        it->second = it->second && unknown;
      else
        index.only_unknown.emplace(option, unknown);
    }
  });
  index.formed = formed;
}

}  // namespace

std::shared_ptr<OptionKeyIndex> copy_option_keys(const std::shared_ptr<OptionKeyIndex>& index,
                                                 std::size_t text_size) {
  if (!index || index->upto > text_size) return nullptr;
  return std::make_shared<OptionKeyIndex>(*index);
}

namespace {

// The run-time parts of a whole value: counted with its option keys when it keeps them (a value appended
// to in many ifs is asked at each), else in its text.
std::size_t placeholders_in(const Var& v) {
  const auto& index = v.option_keys.index;
  if (!index || index->upto > v.value.text.size()) return count_placeholders(v.value.text);
  extend(*index, v.value.text);
  return index->placeholders;
}

// A value as the merge reads it: whole, or a pending A="$A ..." (Var::appended_to) read part by part, the
// whole value it extends first. Its reasons, fallback and assignments are those the whole value has; its
// whole text is written out only when an option has to be looked for in it.
class ValueView {
 public:
  explicit ValueView(const Var& v) : var_(v) {
    for (const Var* p = &v; p; p = p->appended_to.get()) parts_.push_back(p);
    std::reverse(parts_.begin(), parts_.end());
    if (!pending()) return;
    const ShellText& root = parts_.front()->value;
    meta_.unknown_reasons = root.unknown_reasons;
    meta_.weak = root.weak;
    meta_.weak_note = root.weak_note;
    meta_.via = root.via;
    meta_.empty_when = root.empty_when;
    for (std::size_t i = 1; i < parts_.size(); ++i) meta_.merge_meta(parts_[i]->value);
  }
  const Var& var() const { return var_; }
  bool pending() const { return parts_.size() > 1; }
  // Reasons, fallback and assignments of the whole value (its text is not in it).
  const ShellText& meta() const { return pending() ? meta_ : var_.value; }
  std::size_t size() const { return var_.size(); }
  const std::string& text() const {
    if (!pending()) return var_.value.text;
    if (!whole_) {
      whole_.emplace(parts_.front()->value.text);
      for (std::size_t i = 1; i < parts_.size(); ++i) *whole_ += parts_[i]->value.text;
    }
    return *whole_;
  }
  // Run-time parts (kUnknownByte) in the whole text, counted part by part.
  std::size_t placeholders() const {
    std::size_t n = placeholders_in(*parts_.front());
    for (std::size_t i = 1; i < parts_.size(); ++i) n += count_placeholders(parts_[i]->value.text);
    return n;
  }
  // The whole value it extends, then the appended texts.
  const std::vector<const Var*>& parts() const { return parts_; }

 private:
  const Var& var_;
  std::vector<const Var*> parts_;
  ShellText meta_;
  mutable std::optional<std::string> whole_;
};

// The words `v` adds after `base` when it is `base` extended (text followed by a blank and more words,
// or more elements): what `A="$A --x"` or `A+=(--x)` in one branch leaves.
std::optional<std::vector<ShellText>> appended_words(const ValueView& base_view, const Var& v) {
  const Var& base = base_view.var();
  if (v.is_array) {
    if (v.elements.size() <= base.elements.size()) return std::nullopt;
    for (std::size_t i = 0; i < base.elements.size(); ++i)
      if (v.elements[i].text != base.elements[i].text) return std::nullopt;
    return std::vector<ShellText>(v.elements.begin() + static_cast<std::ptrdiff_t>(base.elements.size()),
                                  v.elements.end());
  }
  Var tail;
  // The whole value's reasons and fallback, as the assignment gave them (the base's, then the tail's).
  ShellText meta;
  if (v.appended_to.get() == &base) {
    // A pending A="$A ..." on this very value (Var::appended_to): its text is the tail already.
    const std::string& t = v.value.text;
    if (base_view.size() == 0 || t.empty() || !is_blank(t.front())) return std::nullopt;
    tail.value.text = t;
    tail.value.origin = v.value.origin;
    meta.unknown_reasons = base_view.meta().unknown_reasons;
    meta.weak = base_view.meta().weak;
    meta.weak_note = base_view.meta().weak_note;
    meta.merge_meta(v.value);
  } else {
    const std::string& b = base_view.text();
    const std::string& t = v.value.text;
    if (b.empty() || t.size() <= b.size() || !is_blank(t[b.size()]) || t.compare(0, b.size(), b) != 0)
      return std::nullopt;
    tail.value.text = t.substr(b.size());
    tail.value.origin = v.value.origin.slice(b.size());
    meta.unknown_reasons = v.value.unknown_reasons;
    meta.weak = v.value.weak;
    meta.weak_note = v.value.weak_note;
  }
  // The tail's run-time parts are the value's last ones when it has one reason per placeholder.
  std::size_t in_tail = count_placeholders(tail.value.text);
  const auto& reasons = meta.unknown_reasons;
  if (in_tail > 0) {
    if (reasons.size() == base_view.placeholders() + in_tail)
      tail.value.unknown_reasons.assign(reasons.end() - static_cast<std::ptrdiff_t>(in_tail), reasons.end());
    else
      tail.value.add_reason(reasons.empty() ? "part of it is known only at run time" : reasons.front());
  }
  tail.value.weak = meta.weak;
  tail.value.weak_note = meta.weak_note;
  return option_words(tail);
}

// The common case, in time proportional to what the branches added: every branch left the value as it
// was before them or appended options to it (`A="$A --x"`, `A+=(--x)`). An appended option keeps its
// words when every branch appended it alike, and is set differently (or not at all) otherwise. Splitting
// the whole value into words at every if made a script that appends in n sequential ifs cost n^2.
// The keys of `keys` that `v`'s value may have as the key of a word (`key` or `key=...`), judged from
// the words kept with the value (Var::option_keys): the index is built the second time a value is asked
// about (a branch's value, asked once and gone, is cheaper to search than to index) and then extended by
// what was appended since.
std::vector<std::string_view> keys_the_value_may_have(const Var& v,
                                                      const std::vector<std::string_view>& keys);

// The same for a pending value: the keys its whole value may have, and those of its appended texts' words.
std::vector<std::string_view> keys_the_value_may_have(const ValueView& view,
                                                      const std::vector<std::string_view>& keys) {
  if (!view.pending()) return keys_the_value_may_have(view.var(), keys);
  std::vector<std::string_view> in_root = keys_the_value_may_have(*view.parts().front(), keys);
  std::set<std::string_view> in_tails;
  for (std::size_t p = 1; p < view.parts().size(); ++p)
    each_word_key(view.parts()[p]->value.text, 0, [&](std::string_view key) { in_tails.insert(key); });
  std::set<std::string_view> rooted(in_root.begin(), in_root.end());
  std::vector<std::string_view> out;
  for (std::string_view key : keys) {
    bool word_key = !key.empty() && key.find('=') == std::string_view::npos &&
                    std::none_of(key.begin(), key.end(), [](char c) { return is_blank(c); });
    if (!word_key || rooted.count(key) || in_tails.count(key)) out.push_back(key);
  }
  return out;
}

std::vector<std::string_view> keys_the_value_may_have(const Var& v,
                                                      const std::vector<std::string_view>& keys) {
  auto& index = v.option_keys.index;
  const std::string& t = v.value.text;
  if (!index || index->upto > t.size()) {
    index = std::make_shared<OptionKeyIndex>();
    return keys;
  }
  extend(*index, t);
  std::vector<std::string_view> out;
  for (std::string_view key : keys) {
    bool word_key = !key.empty() && key.find('=') == std::string_view::npos &&
                    std::none_of(key.begin(), key.end(), [](char c) { return is_blank(c); });
    if (!word_key || index->keys.contains(key)) out.push_back(key);
  }
  return out;
}

std::optional<AppendedOptions> appended_options_of(const std::vector<const Var*>& values, const Var* before,
                                                   const std::string& branches, const Var*& base) {
  base = before;
  if (!base)
    for (const Var* v : values)
      if (!base || (v->is_array ? v->elements.size() < base->elements.size()
                                : v->value.text.size() < base->value.text.size()))
        base = v;
  if (!base) return std::nullopt;
  const ValueView view(*base);
  std::vector<std::vector<ShellText>> tails;  // each branch's appended words (the lists point into them)
  tails.reserve(values.size());
  std::vector<OptionList> lists;
  for (const Var* v : values) {
    if (v->is_array != base->is_array) return std::nullopt;
    bool same = v == base;
    if (!same && !v->appended_to) {
      if (view.pending())  // as same_text on the whole value
        same = !v->is_array && !v->value.unknown() && view.meta().unknown_reasons.empty() &&
               v->value.text.size() == view.size() && v->value.text == view.text();
      else
        same = same_text(*v, *base);
    }
    if (same) {
      tails.emplace_back();
    } else {
      auto words = appended_words(view, *v);
      if (!words) return std::nullopt;
      tails.push_back(std::move(*words));
    }
    lists.push_back(split_options(tails.back()));
    if (!lists.back().head.empty()) return std::nullopt;  // appended a value, not an option
  }
  KeyCensus census(lists);
  const auto& keys = census.keys;
  const auto& seen = census.seen;
  // No bound on the keys: this costs what the branches appended, less than the general merge would.
  if (keys.empty()) return std::nullopt;
  // An option the value already has: when each of its words there is `key=<unknown>` (an earlier merge
  // left it so), the branches that disagree on it leave it as it is; otherwise it needs the general merge.
  // A few keys are looked for in the text; more, against the value's words collected once.
  std::set<std::string, std::less<>> already_unknown;
  auto judge = [&](std::string_view word, bool& general) {
    std::string key = option_key(word);
    if (key.empty() || !seen.count(key)) return;
    if (word.size() == key.size() + 2 && word[key.size()] == '=' && word.back() == kUnknownByte)
      already_unknown.insert(std::move(key));
    else
      general = true;
  };
  bool general = false;
  auto each_word = [&](std::string_view t, auto&& f) {
    for (std::size_t i = 0; i < t.size();) {
      while (i < t.size() && is_blank(t[i])) ++i;
      std::size_t j = i;
      while (j < t.size() && !is_blank(t[j])) ++j;
      if (j > i) f(t.substr(i, j - i));
      i = j;
    }
  };
  // From the words' forms the value keeps (OptionKeyIndex::only_unknown), when its index is current: each
  // key judged at once, then the words after them (its last word, a pending value's appended texts).
  // Searching the text for an option the value had already cost the whole value at every if that
  // appended it again (a helper sourced n times: n^2).
  auto judged_by_index = [&](const std::vector<std::string_view>& present) {
    const Var& root = *view.parts().front();
    const OptionKeyIndex* index = root.option_keys.index.get();
    if (!index || index->upto != root.value.text.size()) return false;
    for (std::size_t p = 1; p < view.parts().size(); ++p) {
      const std::string& tail = view.parts()[p]->value.text;
      if (!tail.empty() && !is_blank(tail.front())) return false;  // continues the word before it
    }
    for (std::string_view key : present)
      if (key.empty() || std::any_of(key.begin(), key.end(), [](char c) { return c == '=' || is_blank(c); }))
        return false;
    for (std::string_view key : present) {
      auto it = index->only_unknown.find(key);
      if (it == index->only_unknown.end() || !seen.count(std::string(key))) continue;
      if (it->second)
        already_unknown.insert(std::string(key));
      else
        general = true;
    }
    each_word(std::string_view(root.value.text).substr(index->formed),
              [&](std::string_view w) { judge(w, general); });
    for (std::size_t p = 1; p < view.parts().size(); ++p)
      each_word(view.parts()[p]->value.text, [&](std::string_view w) { judge(w, general); });
    return true;
  };
  if (base->is_array) {
    for (const ShellText& e : base->elements) judge(e.text, general);
  } else if (std::vector<std::string_view> present = keys_the_value_may_have(view, keys); present.empty()) {
    // None of the appended options is in the value: nothing to judge, and its text is not written out.
  } else if (judged_by_index(present)) {
    // Judged from the forms the value keeps.
  } else if (present.size() <= 4) {
    // The value's words as options are kept with it: only the keys it may have are
    // looked for in its text, so an if that appends new options costs what it appended.
    std::string_view t = view.text();
    for (std::string_view key : present)
      for (auto pos = find_text(t, key, 0); pos != std::string_view::npos; pos = find_text(t, key, pos + 1)) {
        std::size_t after = pos + key.size();
        if ((pos > 0 && !is_blank(t[pos - 1])) ||
            (after < t.size() && !is_blank(t[after]) && t[after] != '='))
          continue;  // part of another word, or a longer key (--x10 for --x1)
        std::size_t end = t.find_first_of(" \t\n", pos);
        judge(t.substr(pos, end == std::string_view::npos ? end : end - pos), general);
      }
  } else {
    each_word(view.text(), [&](std::string_view w) { judge(w, general); });
  }
  if (general) return std::nullopt;
  AppendedOptions out;
  out.exported = std::any_of(values.begin(), values.end(), [](const Var* v) { return v->exported; });
  auto add = [&](ShellText w) { out.words.push_back(std::move(w)); };
  static const std::vector<std::vector<const ShellText*>> kAbsent;
  for (std::string_view key : keys) {
    std::string name(key);
    auto occurrences = [&](const OptionList& l) -> const std::vector<std::vector<const ShellText*>>& {
      auto it = l.options.find(name);
      return it == l.options.end() ? kAbsent : it->second;
    };
    const auto& first = occurrences(lists.front());
    if (census.lists_with.at(key) == lists.size() &&
        std::all_of(lists.begin(), lists.end(),
                    [&](const OptionList& l) { return same_occurrences(first, occurrences(l)); })) {
      for (const auto& occurrence : first)
        for (const ShellText* w : occurrence) add(*w);
      continue;
    }
    if (already_unknown.count(name)) continue;  // it stays unknown where the value has it
    add(unknown_option(key, *lists[census.first_in.at(key)].options.at(name).front().front(), branches));
  }
  // The assignments the branches used that the value does not name yet (as ShellText::add_via keeps them).
  ShellText named;
  named.via = view.meta().via;
  for (const Var* v : values)
    for (const auto& r : v->value.via) {
      std::size_t had = named.via.size();
      named.add_via(r);
      if (named.via.size() > had) out.via.push_back(r);
    }
  return out;
}

}  // namespace

void AppendedOptions::apply_to(Var& v) const {
  for (const ShellText& w : words) {
    if (v.size() > 0) v.value.push(' ', {});  // a pending value's whole text, not only its appended part
    v.value.append(w);
    if (v.is_array) v.elements.push_back(w);
  }
  for (const auto& r : via) v.value.add_via(r);
  v.exported = v.exported || exported;
}

std::optional<AppendedOptions> appended_options(const std::vector<const Var*>& values, const Var& before,
                                                const std::string& branches) {
  const Var* base = nullptr;
  return appended_options_of(values, &before, branches, base);
}

std::vector<ShellText> option_words(const Var& v) {
  if (v.is_array) return v.elements;
  std::vector<ShellText> words;
  ShellText current;
  // Each run-time part's reason goes with the word that holds its placeholder byte when the value has
  // one reason per placeholder; otherwise every unknown word gets the value's first reason. Giving each
  // word all of them made a value rebuilt in n sequential ifs carry a number of reasons that grows
  // faster than 2^n.
  const auto& reasons = v.value.unknown_reasons;
  bool per_byte =
      !reasons.empty() && reasons.size() == static_cast<std::size_t>(std::count(
                                                v.value.text.begin(), v.value.text.end(), kUnknownByte));
  std::size_t next_reason = 0;
  auto finish = [&] {
    if (current.empty()) return;
    if (current.text.find(kUnknownByte) != std::string::npos && current.unknown_reasons.empty())
      current.add_reason(reasons.empty() ? "part of it is known only at run time" : reasons.front());
    current.weak = v.value.weak;  // not tracked per byte: every word rests on the fallback
    current.weak_note = v.value.weak_note;
    words.push_back(std::move(current));
    current = ShellText{};
  };
  for (std::size_t i = 0; i < v.value.text.size(); ++i) {
    if (is_blank(v.value.text[i]))
      finish();
    else {
      if (v.value.text[i] == kUnknownByte && per_byte) current.add_reason(reasons[next_reason++]);
      current.push(v.value.text[i], v.value.origin.at(i));
    }
  }
  finish();
  return words;
}

std::optional<Var> merge_option_lists(const std::vector<const Var*>& values, const Var* before,
                                      const std::string& branches) {
  if (values.empty()) return std::nullopt;
  // With the value before the branches, the caller has tried appended_options() already; without it,
  // the shortest value is the base the others may extend.
  const Var* base = nullptr;
  if (auto appended = before ? std::nullopt : appended_options_of(values, nullptr, branches, base)) {
    Var out = *base;
    out.assigned_at = values.front()->assigned_at;
    out.assigned_text = values.front()->assigned_text;
    appended->apply_to(out);
    return out;
  }
  bool array = values.front()->is_array;
  std::vector<std::vector<ShellText>> words;
  std::vector<OptionList> lists;
  words.reserve(values.size());  // the lists point into these
  for (const Var* v : values) {
    if (v->is_array != array) return std::nullopt;
    words.push_back(option_words(*v));
  }
  for (const auto& w : words) lists.push_back(split_options(w));
  bool any_option = false;
  for (const auto& l : lists) {
    if (!same_words(l.head, lists.front().head)) return std::nullopt;
    any_option = any_option || !l.order.empty();
  }
  if (!any_option) return std::nullopt;

  KeyCensus census(lists);

  std::vector<ShellText> merged;
  for (const ShellText* w : lists.front().head) merged.push_back(*w);
  static const std::vector<std::vector<const ShellText*>> kAbsent;
  for (std::string_view key_view : census.keys) {
    std::string key(key_view);
    const std::vector<std::vector<const ShellText*>>* first = nullptr;
    bool agree = census.lists_with.at(key_view) == lists.size();
    for (std::size_t k = 0; k < lists.size() && agree; ++k) {
      const auto& l = lists[k];
      auto it = l.options.find(key);
      const auto& here = it == l.options.end() ? kAbsent : it->second;
      if (!first)
        first = &here;
      else if (!same_occurrences(*first, here))
        agree = false;
    }
    if (agree) {
      for (const auto& occurrence : *first)
        for (const ShellText* w : occurrence) merged.push_back(*w);
      continue;
    }
    merged.push_back(
        unknown_option(key, *lists[census.first_in.at(key_view)].options.at(key).front().front(), branches));
  }

  Var out;
  out.is_array = array;
  for (const Var* v : values) out.exported = out.exported || v->exported;
  out.assigned_at = values.front()->assigned_at;
  out.assigned_text = values.front()->assigned_text;
  for (std::size_t i = 0; i < merged.size(); ++i) {
    if (i) out.value.push(' ', {});
    out.value.append(merged[i]);
  }
  // The assignments the value used, once each (the branches share most of them; merging nested ifs
  // must not double them each time).
  for (const Var* v : values)
    out.value.via.insert(out.value.via.end(), v->value.via.begin(), v->value.via.end());
  auto& via = out.value.via;
  auto same = [](const RelatedLocation& a, const RelatedLocation& b) {
    return a.location.path == b.location.path && a.location.range.start.line == b.location.range.start.line &&
           a.location.range.start.column == b.location.range.start.column && a.message == b.message;
  };
  std::vector<RelatedLocation> unique;
  for (auto& r : via)
    if (std::none_of(unique.begin(), unique.end(), [&](const RelatedLocation& u) { return same(u, r); }))
      unique.push_back(std::move(r));
  via = std::move(unique);
  if (array) out.elements = std::move(merged);
  return out;
}

}  // namespace parlint::shell
