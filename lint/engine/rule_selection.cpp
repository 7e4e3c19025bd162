#include "lint/engine/rule_selection.h"

#include <cctype>

#include "lint/model/closest_name.h"

namespace parlint {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The codes a selector names, or an empty set when it names none.
std::set<std::string> expand(const std::string& selector) {
  std::set<std::string> out;
  std::string up = upper(selector);
  for (const auto& r : RuleRegistry::instance().rules()) {
    std::string code(r->info().code);
    if (up == "ALL" || code.starts_with(up) || r->info().name == selector) out.insert(code);
  }
  return out;
}

}  // namespace

std::string rule_suggestion(std::string_view selector) {
  std::vector<std::string> names;
  for (const auto& r : RuleRegistry::instance().rules()) {
    names.emplace_back(r->info().code);
    names.emplace_back(r->info().name);
  }
  return did_you_mean(selector, names);
}

std::vector<std::string> split_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    std::size_t begin = 0;
    while (begin <= v.size()) {
      std::size_t comma = v.find(',', begin);
      std::string item = v.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.pop_back();
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.erase(0, 1);
      if (!item.empty()) out.push_back(item);
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
  }
  return out;
}

Expected<RuleSelection, std::string> RuleSelection::make(const std::vector<std::string>& select,
                                                         const std::vector<std::string>& ignore) {
  RuleSelection sel;
  if (select.empty()) {
    sel.enabled_ = expand("ALL");
  } else {
    for (const auto& s : select) {
      auto codes = expand(s);
      if (codes.empty())
        return Unexpected("unknown rule selector '" + s + "' in --select" + rule_suggestion(s));
      sel.enabled_.insert(codes.begin(), codes.end());
    }
  }
  for (const auto& s : ignore) {
    auto codes = expand(s);
    if (codes.empty())
      return Unexpected("unknown rule selector '" + s + "' in --ignore" + rule_suggestion(s));
    for (const auto& c : codes) sel.enabled_.erase(c);
  }
  return sel;
}

}  // namespace parlint
