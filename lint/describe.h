#pragma once
// Shared wording for messages: where a value came from, and lists of numbers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/diagnostic.h"
#include "lint/fact.h"
#include "lint/fix.h"
#include "lint/job.h"

namespace parlint {

// "trainer.devices=8 at line 4", "... at base.py:12" (when written in a file other than `job_path`),
// "--gpus-per-node", "Megatron-Core default".
std::string describe_source(const Fact& fact, std::string_view job_path = {});
// The fact's own location (when written in a file) followed by where its value was written.
std::vector<RelatedLocation> related_locations(const Fact& fact, const std::string& message);
// A finding at where `at` is written, pointing also at `other` (when it is written elsewhere) with `note`.
Finding finding_at(const Fact& at, std::string message, std::string help, const Fact* other = nullptr,
                   const std::string& note = "set here");
// An environment variable set to `value` for a launch: where it is written, or an `export NAME=VALUE` line
// before the launch command (nullopt when neither can be done: a config object has no launch line).
std::optional<FixChange> environment_change(const Job& job, const Fact* existing, std::string_view name,
                                            const Value& value);
// "1, 2, 4 and 8"
std::string join_numbers(const std::vector<std::int64_t>& numbers, const char* last_separator = " and ");

}  // namespace parlint
