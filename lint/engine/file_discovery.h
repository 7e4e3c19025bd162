#pragma once
// The inputs of a run: the paths named on the command line, folders walked (ignored folders, .gitignore,
// exclude globs, the files whose extension or first line says what they are), each with the
// configuration that applies to it; and their text, read within the size limit.
#include <string>
#include <vector>

#include "lint/engine/config.h"
#include "lint/engine/engine.h"
#include "lint/model/expected.h"

namespace parlint {

struct Input {
  std::string path;
  bool from_stdin = false;
  const Config* config = nullptr;  // the configuration that applies to this file
};

// How a run prints a path: lexically normal, relative paths without `./` (`./src/./a.sh` -> `src/a.sh`).
std::string shown_path(const std::string& path);

// The files to lint, in a stable order; what cannot be listed or found goes to `errors`.
std::vector<Input> collect_inputs(const std::vector<std::string>& paths, const EngineOptions& options,
                                  ConfigResolver& configs, std::vector<InputError>& errors);

// The text of an input: standard input, or a regular file within options.max_file_size.
Expected<std::string, std::string> read_text(const Input& input, const EngineOptions& options);

}  // namespace parlint
