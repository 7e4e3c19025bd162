#pragma once
// check --add-noqa: a suppression comment for every finding of a run, so that a project can adopt
// parlint (or a new rule) with a clean baseline and fix the findings one by one, as ruff's --add-noqa.
// Comments go where lint/engine/fix/suppression_edit.cpp says they change nothing; each file's comments are
// checked before it is written (the file still parses as before, every comment covers its findings,
// and linting again finds nothing new) and the file is written atomically, or left as it was.
#include <string>
#include <string_view>
#include <vector>

#include "lint/engine/engine.h"

namespace parlint {

struct AddedSuppressions {
  int comments = 0;  // comments written or extended
  int findings = 0;  // findings they suppress
  int files = 0;     // files written
  // Findings left as they were, one line each: "path:line: PL901 not suppressed: why" (findings that
  // read alike once), and how many findings `check` reports once the files are written.
  std::vector<std::string> not_suppressed;
  int left = 0;
  std::vector<InputError> errors;  // inputs that could not be read, files that could not be written
};

// `reason` follows ` -- ` in each new comment ("TODO: reason").
AddedSuppressions add_suppressions(const std::vector<std::string>& paths, const EngineOptions& options,
                                   std::string_view reason);

}  // namespace parlint
