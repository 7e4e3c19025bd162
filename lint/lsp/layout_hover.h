#pragma once
// The hover card for a parallel setting: the job's resolved layout, where each value came from, DP and
// expert DP with their formulas, the minimum GPU count and the memory estimate (Markdown).
#include <optional>
#include <string>

#include "lint/resolve/job.h"

namespace parlint::lsp {

// True for the keys whose hover shows the layout (parallel sizes, SP, world size, nodes, GPUs per node).
bool is_layout_key(Key key);
std::string layout_hover_markdown(const Job& job, Key hovered);

}  // namespace parlint::lsp
