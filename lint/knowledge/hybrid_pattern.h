#pragma once
// Megatron-Core's hybrid layer patterns (`--hybrid-layer-pattern`, a HybridModelProvider's
// hybrid_layer_pattern / hybrid_override_pattern): one symbol per layer (M Mamba, G gated delta net,
// * attention, D DeepSeek sparse attention, + MLA, - MLP, E MoE), `|` between pipeline segments of the
// main pattern, `/` before each MTP depth's pattern ("M*M*|M*M*/MM/MM").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parlint {

struct HybridPattern {
  std::string main;                   // before the first '/', with its '|'
  std::vector<std::string> segments;  // main split at '|' (one segment when it has none)
  std::vector<std::string> mtp;       // one pattern per MTP depth
  long long layers = 0;               // layer symbols in the main pattern
  bool has_pipes() const { return segments.size() > 1; }
  bool has(char symbol) const;  // in the main pattern or an MTP depth
};

// What Megatron-Core's parse_hybrid_pattern refuses, in its words (empty when the pattern is valid):
// a symbol outside the set, '|' in an MTP depth, attention mixed with MLA or DSA in one pattern, MTP
// depths that differ.
struct HybridPatternCheck {
  std::optional<HybridPattern> pattern;  // set even when `error` is (the layer count stays readable)
  std::string error;
};
HybridPatternCheck parse_hybrid_pattern(std::string_view text);

}  // namespace parlint
