#pragma once
// `parlint plan --smoke-test` (DESIGN §5): the short run that proves a job's layout initialises before the
// real job waits in the queue. It runs the smallest Megatron-Bridge recipe of the model's family on the
// fewest GPUs that keep every parallel size, M = PP·lcm(TP·CP, EP·ETP), for three iterations. The command
// is linted by the same pipeline as `check` before it is offered: a recipe whose command any rule objects
// to (32 heads cannot take TP=64) gives way to the next larger one of the family.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lint/resolve/job.h"

namespace parlint {

struct EngineOptions;

struct SmokeTest {
  std::string recipe;  // as the command names it (its legacy alias when it has one)
  std::string model;   // "Llama 3.2 1B"
  std::int64_t gpus = 0, nodes = 0, gpus_per_node = 0;
  std::string command;                   // one line, ready to save as a script
  std::vector<std::string> overrides;    // the key=value overrides of the command, in order
  std::vector<std::string> notes;        // how it differs from the job, and why
  std::vector<std::string> success;      // what success looks like
  std::vector<std::string> passed_over;  // smaller recipes of the family the layout does not fit, and why
  std::vector<std::string> advisories;   // info findings `check` still gives (advice about the layout itself)
};

struct SmokeTestResult {
  std::optional<SmokeTest> test;
  std::string why_not;  // when there is none
};

SmokeTestResult make_smoke_test(const Job& job, const EngineOptions& options);

}  // namespace parlint
