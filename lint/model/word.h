#pragma once
// One command-line word after the shell (or Python) has produced it, with where it was written and
// where the values inside it came from.
#include <string>
#include <vector>

#include "lint/model/fact.h"

namespace parlint {

struct Word {
  std::string text;
  Location location;     // where the word is written (an argument, an array element, a part of a string)
  bool unknown = false;  // part of the text is only known at run time
  std::string unknown_reason;
  bool weak = false;  // the text rests on a fallback such as ${SLURM_NNODES:-1} outside SLURM
  std::string weak_note;
  std::vector<RelatedLocation> written_at;  // assignments whose values the word uses (TP=16)
  // Non-empty when the word is empty (no word at all, unquoted) on one path of the script: when that is.
  std::string empty_when;
};

// A flag or override key that looks like a setting but maps onto no known key (for PL801).
struct UnrecognizedSetting {
  std::string spelling;  // "--tensor-parallel-size", "model.expert_tensor_model_parallel_size"
  Location location;
  bool is_flag = false;  // a --flag (otherwise a key=value override)
};

}  // namespace parlint
