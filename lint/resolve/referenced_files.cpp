#include "lint/resolve/referenced_files.h"

namespace parlint {

std::shared_ptr<const ReferencedFiles::Parsed> ReferencedFiles::find(const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = kept_.find(key);
  return it == kept_.end() ? nullptr : it->second;
}

void ReferencedFiles::keep(const std::string& key, std::shared_ptr<const Parsed> parsed) {
  std::lock_guard lock(mutex_);
  if (kept_.size() < kMaxKept) kept_.emplace(key, std::move(parsed));
}

}  // namespace parlint
