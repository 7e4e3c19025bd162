#include "parsers/python/python_module_cache.h"

namespace parlint {

std::optional<PythonModuleCache::Module> PythonModuleCache::find(const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = kept_.find(key);
  if (it == kept_.end()) return std::nullopt;
  return it->second;
}

void PythonModuleCache::keep(const std::string& key, Module module) {
  std::size_t bytes = module.source->text().size();
  std::lock_guard lock(mutex_);
  if (kept_.size() >= kMaxKept || bytes > kMaxBytes - bytes_ || kept_.contains(key)) return;
  bytes_ += bytes;
  kept_.emplace(key, std::move(module));
}

std::size_t PythonModuleCache::size() const {
  std::lock_guard lock(mutex_);
  return kept_.size();
}

}  // namespace parlint
