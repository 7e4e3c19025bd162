#include "parsers/args/deepspeed_resources.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "lint/model/whitespace.h"

namespace parlint {
namespace {

std::optional<int> slot_count(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::vector<DeepspeedHost>> parse_deepspeed_hostfile(std::string_view text) {
  std::vector<DeepspeedHost> hosts;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = trim_whitespace(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (line.empty() || line.starts_with("#")) continue;
    // runner.py matches ^(\S+)\s+slots=(\d+) and ignores what follows the digits.
    auto blank =
        std::find_if(line.begin(), line.end(), [](char c) { return std::isspace((unsigned char)c); });
    std::string_view name = line.substr(0, static_cast<std::size_t>(blank - line.begin()));
    std::string_view rest = trim_whitespace(line.substr(name.size()));
    if (name.empty() || !rest.starts_with("slots=")) return std::nullopt;
    rest.remove_prefix(6);
    auto digits =
        std::find_if(rest.begin(), rest.end(), [](char c) { return !std::isdigit((unsigned char)c); });
    auto slots = slot_count(rest.substr(0, static_cast<std::size_t>(digits - rest.begin())));
    if (!slots) return std::nullopt;
    if (std::any_of(hosts.begin(), hosts.end(), [&](const DeepspeedHost& h) { return h.name == name; }))
      return std::nullopt;
    hosts.push_back({std::string(name), *slots});
  }
  if (hosts.empty()) return std::nullopt;
  return hosts;
}

std::optional<std::vector<DeepspeedHost>> parse_deepspeed_include(std::string_view filter) {
  std::vector<DeepspeedHost> hosts;
  filter = trim_whitespace(filter);
  if (filter.empty()) return std::nullopt;
  while (true) {
    auto at = filter.find('@');
    std::string_view node = filter.substr(0, at);
    auto colon = node.find(':');
    DeepspeedHost h{std::string(node.substr(0, colon)), std::nullopt};
    if (h.name.empty()) return std::nullopt;
    if (colon != std::string_view::npos) {
      std::string_view slots = node.substr(colon + 1);
      int count = 0;
      while (true) {
        auto comma = slots.find(',');
        if (!slot_count(slots.substr(0, comma))) return std::nullopt;
        ++count;
        if (comma == std::string_view::npos) break;
        slots.remove_prefix(comma + 1);
      }
      h.slots = count;
    }
    // The same host twice adds its slots (runner.py's parse_node_config_list).
    auto same =
        std::find_if(hosts.begin(), hosts.end(), [&](const DeepspeedHost& o) { return o.name == h.name; });
    if (same == hosts.end())
      hosts.push_back(std::move(h));
    else if (same->slots && h.slots)
      *same->slots += *h.slots;
    else
      same->slots.reset();
    if (at == std::string_view::npos) break;
    filter.remove_prefix(at + 1);
  }
  return hosts;
}

std::optional<int> uniform_slots(const std::vector<DeepspeedHost>& hosts) {
  if (hosts.empty() || !hosts.front().slots) return std::nullopt;
  for (const auto& h : hosts)
    if (h.slots != hosts.front().slots) return std::nullopt;
  return hosts.front().slots;
}

}  // namespace parlint
