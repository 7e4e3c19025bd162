#pragma once
// Shared wording for messages: where a value came from, and lists of numbers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/fact.h"
#include "lint/resolve/job.h"
#include "rules/api/diagnostic.h"
#include "rules/api/fix.h"

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
// The GPU a finding is about and where that came from: "H100 GPU (the dgx-h100 profile)", or, when no
// profile was chosen, "H100 GPU (assumed: the default dgx-h100 profile; --cluster names the real one)".
std::string describe_gpu(const Job& job);
// How to change `key` to `value` in the syntax the job writes its settings in, taken from `style` (or
// the key's own fact, or the job's TP/PP/CP/EP setting) when it is written in a file: "add
// --sequence-parallel" / "remove --sequence-parallel" / "pass --context-parallel-size 2" (Megatron-LM
// flags), "set model.sequence_parallel=True" (an override), "set cfg.model.sequence_parallel = True" (a
// Python attribute), "pass sequence_parallel=True" (a keyword argument), "set sequence_parallel: true"
// (YAML). Neutral "set sequence_parallel to true" when no written setting shows the syntax.
std::string setting_phrase(const Job& job, Key key, const Value& value, const Fact* style = nullptr);
// "1, 2, 4 and 8"
std::string join_numbers(const std::vector<std::int64_t>& numbers, const char* last_separator = " and ");

}  // namespace parlint
