#pragma once
// Megatron-Core's pipeline_model_parallel_layout strings ("E|(t|)*3,m|L", "Et*12|t*12|t*11L"): stages
// separated by '|', `x*n` and `(...)*n` repeats, commas ignored; E = embedding, t = decoder layer,
// m = MTP layer, L = loss.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/value.h"

namespace parlint {

struct PipelineLayout {
  std::vector<std::string> stages;  // after unrolling, e.g. {"Ettt", "ttt", "tttL"}
};

// The unrolled layout, or an error message that says what is malformed.
std::optional<PipelineLayout> parse_pipeline_layout(std::string_view text, std::string& error);

// A layout as a Python or YAML value: the string form, or the list form Megatron-Core also accepts, one
// list of LayerType names per stage ([["embedding", "decoder"], ["decoder", "mtp", "loss"]]; names are
// stripped and lower-cased, as pipeline_parallel_layer_layout.py:62-71 does). nullopt with an empty
// error: not a layout value parlint can read (unknown, or built by code).
std::optional<PipelineLayout> pipeline_layout_from_value(const Value& value, std::string& error);

}  // namespace parlint
