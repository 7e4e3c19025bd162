#include "lint/knowledge/hybrid_pattern.h"

#include <algorithm>

namespace parlint {
namespace {

constexpr std::string_view kLayerSymbols = "MG*D+-E";

bool is_layer(char c) {
  return kLayerSymbols.find(c) != std::string_view::npos;
}

// megatron/core/models/hybrid/hybrid_layer_allocation.py:277-298@d98e8a64ddf3 (_validate_pattern).
std::string check_part(std::string_view part, std::string_view name, bool allow_pipe) {
  for (char c : part)
    if (!is_layer(c) && !(allow_pipe && c == '|'))
      return "In " + std::string(name) + " pattern, '" + std::string(1, c) + "' is not a valid layer symbol";
  const bool attention = part.find('*') != std::string_view::npos;
  if (attention && (part.find('D') != std::string_view::npos || part.find('+') != std::string_view::npos))
    return "Not supported to have both Attention and MLA/DSA in one model";
  return {};
}

}  // namespace

bool HybridPattern::has(char symbol) const {
  if (main.find(symbol) != std::string::npos) return true;
  return std::any_of(mtp.begin(), mtp.end(),
                     [&](const std::string& p) { return p.find(symbol) != std::string::npos; });
}

HybridPatternCheck parse_hybrid_pattern(std::string_view text) {
  HybridPatternCheck out;
  HybridPattern p;
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    auto slash = text.find('/', begin);
    parts.emplace_back(
        text.substr(begin, slash == std::string_view::npos ? std::string_view::npos : slash - begin));
    if (slash == std::string_view::npos) break;
    begin = slash + 1;
  }
  p.main = parts[0];
  begin = 0;
  while (true) {
    auto bar = p.main.find('|', begin);
    p.segments.push_back(p.main.substr(begin, bar == std::string::npos ? std::string::npos : bar - begin));
    if (bar == std::string::npos) break;
    begin = bar + 1;
  }
  p.layers = std::count_if(p.main.begin(), p.main.end(), is_layer);
  const bool any_mtp =
      std::any_of(parts.begin() + 1, parts.end(), [](const std::string& s) { return !s.empty(); });
  if (any_mtp) p.mtp.assign(parts.begin() + 1, parts.end());
  out.error = check_part(p.main, "main", true);
  for (std::size_t i = 1; out.error.empty() && i < p.mtp.size(); ++i)
    if (p.mtp[i] != p.mtp[0])
      out.error = "All MTP patterns must be identical. Pattern 1 is '" + p.mtp[0] + "', but pattern " +
                  std::to_string(i + 1) + " is '" + p.mtp[i] + "'";
  if (out.error.empty() && !p.mtp.empty()) out.error = check_part(p.mtp[0], "MTP", false);
  out.pattern = std::move(p);
  return out;
}

}  // namespace parlint
