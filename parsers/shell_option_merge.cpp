#include "parsers/shell_option_merge.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

namespace parlint::shell {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n';
}

// The option a word starts (--flag, --flag=v, -x, key=value, +key=value), or "" for a value word.
std::string option_key(std::string_view w) {
  if (w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])) && w[1] != '.')
    return std::string(w.substr(0, w.find('=')));
  auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0) return "";
  std::string_view key = w.substr(0, eq);
  bool plain = std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '~' ||
           c == '-';
  });
  return plain ? std::string(key) : "";
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

}  // namespace

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

std::optional<Var> merge_option_lists(const std::vector<const Var*>& values, const std::string& branches) {
  if (values.empty()) return std::nullopt;
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

  std::vector<std::string> keys;  // every branch's options, in first-seen order
  for (const auto& l : lists)
    for (const auto& k : l.order)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);

  std::vector<ShellText> merged;
  for (const ShellText* w : lists.front().head) merged.push_back(*w);
  static const std::vector<std::vector<const ShellText*>> kAbsent;
  for (const auto& key : keys) {
    const std::vector<std::vector<const ShellText*>>* first = nullptr;
    bool agree = true;
    for (const auto& l : lists) {
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
    // Written as the first branch that sets it wrote its name; the value is what is unknown.
    const ShellText* written = nullptr;
    for (const auto& l : lists)
      if (auto it = l.options.find(key); it != l.options.end()) {
        written = it->second.front().front();
        break;
      }
    ShellText w;
    for (std::size_t i = 0; i < key.size(); ++i) w.push(key[i], written->origin.at(i));
    w.written_first = written->written_first;
    w.written_last = written->written_last;
    w.push('=', {});
    w.add_unknown(key + " is set differently (or not at all) by " + branches);
    merged.push_back(std::move(w));
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
