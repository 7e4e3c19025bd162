#include "parsers/args/script_purpose.h"

namespace parlint {

bool runs_without_training(std::string_view script) {
  if (auto slash = script.find_last_of('/'); slash != std::string_view::npos) script.remove_prefix(slash + 1);
  for (std::string_view word : {"generate", "generation", "inference", "infer_", "roundtrip", "_server",
                                "serve", "evaluate", "eval_", "compare"})
    if (script.find(word) != std::string_view::npos) return true;
  return false;
}

}  // namespace parlint
