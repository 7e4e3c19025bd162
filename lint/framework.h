#pragma once
// The framework that will run a configuration: defaults and checks differ between them.
#include <optional>
#include <string_view>

namespace parlint {

enum class Framework { kUnknown, kMegatronLM, kMegatronBridge, kNemo1, kNemo2 };

std::string_view framework_id(Framework f);            // "megatron-lm", ... ("megatron-core" for unknown)
std::string_view framework_display_name(Framework f);  // "Megatron-LM", ... ("Megatron-Core" for unknown)
std::optional<Framework> framework_from_id(std::string_view id);  // accepts the ids; "auto" → kUnknown

}  // namespace parlint
