#pragma once
// Megatron-Core's pipeline_model_parallel_layout strings ("E|(t|)*3,m|L", "Et*12|t*12|t*11L"): stages
// separated by '|', `x*n` and `(...)*n` repeats, commas ignored; E = embedding, t = decoder layer,
// m = MTP layer, L = loss.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parlint {

struct PipelineLayout {
  std::vector<std::string> stages;  // after unrolling, e.g. {"Ettt", "ttt", "tttL"}
};

// The unrolled layout, or an error message that says what is malformed.
std::optional<PipelineLayout> parse_pipeline_layout(std::string_view text, std::string& error);

}  // namespace parlint
