#pragma once
// Scripts submitted by another script with their own sizes: submit.sh runs
// `sbatch --nodes="${NODES}" "${SCRIPT_DIR}/train.sbatch" ...`, and sbatch's options win over the
// #SBATCH lines of train.sbatch, so its `#SBATCH --nodes=1` is not what runs.
#include <optional>
#include <string>

#include "lint/model/source_files.h"

namespace parlint {

struct Submission {
  std::string path;    // the submitting script
  int line = 0;        // 1-based line of its sbatch command
  std::string option;  // the size option it passes ("--nodes", "-N")
};

// A script in the same folder (or the folder above) whose sbatch command names `script` (by file
// name) and passes --nodes / -N. Bounded: at most 256 files of at most 1 MiB are read.
std::optional<Submission> find_submission_with_nodes(const std::string& script, const FileReader& reader);

}  // namespace parlint
