#include "lint/model/framework.h"

namespace parlint {

std::string_view framework_id(Framework f) {
  switch (f) {
    case Framework::kMegatronLM:
      return "megatron-lm";
    case Framework::kMegatronBridge:
      return "megatron-bridge";
    case Framework::kNemo1:
      return "nemo1";
    case Framework::kNemo2:
      return "nemo2";
    case Framework::kMegatronDeepSpeed:
      return "megatron-deepspeed";
    case Framework::kVerl:
      return "verl";
    case Framework::kUnknown:
      break;
  }
  return "megatron-core";
}

std::string_view framework_display_name(Framework f) {
  switch (f) {
    case Framework::kMegatronLM:
      return "Megatron-LM";
    case Framework::kMegatronBridge:
      return "Megatron-Bridge";
    case Framework::kNemo1:
      return "NeMo 1";
    case Framework::kNemo2:
      return "NeMo 2";
    case Framework::kMegatronDeepSpeed:
      return "Megatron-DeepSpeed";
    case Framework::kVerl:
      return "verl";
    case Framework::kUnknown:
      break;
  }
  return "Megatron-Core";
}

std::optional<Framework> framework_from_id(std::string_view id) {
  if (id == "auto") return Framework::kUnknown;
  if (id == "megatron-lm") return Framework::kMegatronLM;
  if (id == "megatron-bridge") return Framework::kMegatronBridge;
  if (id == "nemo1") return Framework::kNemo1;
  if (id == "nemo2") return Framework::kNemo2;
  if (id == "megatron-deepspeed") return Framework::kMegatronDeepSpeed;
  if (id == "verl") return Framework::kVerl;
  return std::nullopt;
}

}  // namespace parlint
