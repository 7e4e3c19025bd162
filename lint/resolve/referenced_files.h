#pragma once
// The files launches refer to (the configs they select, the recipes and entry scripts they run), parsed
// once per run instead of once per file that refers to them: in a checkout, every launch script names the
// same few configs and the same run_recipe.py, and parsing them again for each was a third of a run over
// real scripts. Shared by the threads of one `check`; never by the language server, whose buffers change.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "lint/model/parsed_file.h"
#include "lint/model/source_text.h"

namespace parlint {

class ReferencedFiles {
 public:
  struct Parsed {
    std::unique_ptr<SourceText> source;
    ParsedFile parsed;
    // What parsing it charged the referring file's budget: a file that finds it here is charged the
    // same, so whether it was parsed before changes nothing a finding or a PL903 says.
    std::uint64_t units = 0;
  };

  // The file parsed under `key` (its path, and the launch variables it reads), or null.
  std::shared_ptr<const Parsed> find(const std::string& key) const;
  // Keeps `parsed` for the rest of the run (the first one kept for a key wins; they are alike).
  void keep(const std::string& key, std::shared_ptr<const Parsed> parsed);

 private:
  static constexpr std::size_t kMaxKept = 1024;  // distinct referenced files kept per run
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Parsed>> kept_;
};

}  // namespace parlint
