#pragma once
// Shared wording for messages: where a value came from, and lists of numbers.
#include <cstdint>
#include <string>
#include <vector>

#include "lint/diagnostic.h"
#include "lint/fact.h"

namespace parlint {

// "trainer.devices=8 at line 4", "... at base.py:12" (when written in a file other than `job_path`),
// "--gpus-per-node", "Megatron-Core default".
std::string describe_source(const Fact& fact, std::string_view job_path = {});
// The fact's own location (when written in a file) followed by where its value was written.
std::vector<RelatedLocation> related_locations(const Fact& fact, const std::string& message);
// A finding at where `at` is written, pointing also at `other` (when it is written elsewhere) with `note`.
Finding finding_at(const Fact& at, std::string message, std::string help, const Fact* other = nullptr,
                   const std::string& note = "set here");
// "1, 2, 4 and 8"
std::string join_numbers(const std::vector<std::int64_t>& numbers, const char* last_separator = " and ");

}  // namespace parlint
