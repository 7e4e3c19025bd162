#pragma once
// What a parser hands to the core: the jobs a file describes (as raw facts) and its syntax errors.
#include <string>
#include <vector>

#include "lint/fact.h"
#include "lint/framework.h"

namespace parlint {

struct RawJob {
  SourceRange range;                          // the launch command or config document this job describes
  Framework framework = Framework::kUnknown;  // what the syntax says (NeMo 1 YAML, Megatron-LM flags...)
  std::string description;                    // "YAML document", "torchrun launch", ...
  // In file order. For each key the fact with the highest priority wins, the last among equals.
  std::vector<Fact> facts;
  std::vector<Conflict> conflicts;
};

struct SyntaxError {
  SourceRange range;
  std::string message;
};

struct ParsedFile {
  std::string path;
  std::vector<RawJob> jobs;
  std::vector<SyntaxError> errors;
};

}  // namespace parlint
