#pragma once
// The framework that will run a configuration: defaults and checks differ between them.
#include <optional>
#include <string_view>

namespace parlint {

// kMegatronDeepSpeed: microsoft/Megatron-DeepSpeed, a Megatron-LM fork launched with --deepspeed; its
// argument checks differ (SP turned off silently at TP 1, no CUDA_DEVICE_MAX_CONNECTIONS assert for TP).
// kVerl: volcengine/verl's Megatron workers (actor_rollout_ref.actor.megatron.*), which build
// Megatron-Core's config themselves and turn sequence parallelism off at TP 1.
enum class Framework { kUnknown, kMegatronLM, kMegatronBridge, kNemo1, kNemo2, kMegatronDeepSpeed, kVerl };

// A post-training framework that builds Megatron models itself and checks its own settings first (its
// framework above says whose Megatron semantics apply: NeMo-RL runs Megatron-Bridge, ChatLearn
// Megatron-LM, ROLL Megatron-Core through mcore_adapter). ms-swift's `megatron sft|pt|rlhf` builds
// Megatron-Core itself (framework kUnknown: Megatron-Core's checks), with defaults of its own.
enum class Driver { kNone, kNemoRl, kRoll, kChatLearn, kMsSwift };

// Megatron-LM and its fork Megatron-DeepSpeed: the same flags, defaults and model arguments.
inline bool megatron_lm_family(Framework f) {
  return f == Framework::kMegatronLM || f == Framework::kMegatronDeepSpeed;
}

std::string_view framework_id(Framework f);            // "megatron-lm", ... ("megatron-core" for unknown)
std::string_view framework_display_name(Framework f);  // "Megatron-LM", ... ("Megatron-Core" for unknown)
std::optional<Framework> framework_from_id(std::string_view id);  // accepts the ids; "auto" → kUnknown

}  // namespace parlint
