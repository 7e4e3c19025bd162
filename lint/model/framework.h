#pragma once
// The framework that will run a configuration: defaults and checks differ between them.
#include <optional>
#include <string_view>

namespace parlint {

// kMegatronDeepSpeed: microsoft/Megatron-DeepSpeed, a Megatron-LM fork launched with --deepspeed; its
// argument checks differ (SP turned off silently at TP 1, no CUDA_DEVICE_MAX_CONNECTIONS assert for TP).
// kVerl: the name verl's Megatron workers go by (plan's "framework", the messages, `--framework verl`);
// what verl does with the settings is its adapter's DriverTraits, never a case on this name.
enum class Framework { kUnknown, kMegatronLM, kMegatronBridge, kNemo1, kNemo2, kMegatronDeepSpeed, kVerl };

// Megatron-LM and its fork Megatron-DeepSpeed: the same flags, defaults and model arguments.
inline bool megatron_lm_family(Framework f) {
  return f == Framework::kMegatronLM || f == Framework::kMegatronDeepSpeed;
}

std::string_view framework_id(Framework f);            // "megatron-lm", ... ("megatron-core" for unknown)
std::string_view framework_display_name(Framework f);  // "Megatron-LM", ... ("Megatron-Core" for unknown)
std::optional<Framework> framework_from_id(std::string_view id);  // accepts the ids; "auto" → kUnknown

}  // namespace parlint
