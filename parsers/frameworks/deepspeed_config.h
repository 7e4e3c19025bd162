#pragma once
// The DeepSpeed JSON config a Megatron-DeepSpeed launch names (--deepspeed_config FILE): the ZeRO stage
// (zero_optimization.stage) for the memory model, and train_batch_size / train_micro_batch_size_per_gpu
// for the batch rules, each below the Megatron flags that set the same thing.
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/fact.h"

namespace parlint {

// Facts from the config's text, located at `where` (the --deepspeed_config argument) and naming `shown`
// (the file) in their spelling. Values that are not numbers (a placeholder sed fills in) are unknown.
// Text that is not JSON gives no facts.
std::vector<Fact> deepspeed_config_facts(std::string_view text, const Location& where,
                                         const std::string& shown);

}  // namespace parlint
