#include "lint/model/path_cache.h"

#include <sys/stat.h>

namespace parlint {
namespace {

PathCache::Status stat_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  if (S_ISREG(st.st_mode)) return {PathCache::Kind::kRegular, static_cast<std::uintmax_t>(st.st_size)};
  if (S_ISDIR(st.st_mode)) return {PathCache::Kind::kDirectory, 0};
  return {PathCache::Kind::kOther, 0};
}

}  // namespace

PathCache::Status PathCache::status(const std::string& path) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = known_.find(path); it != known_.end()) return it->second;
  }
  Status s = stat_path(path);  // outside the lock: threads wait on the disk, not on each other
  std::lock_guard lock(mutex_);
  if (known_.size() < kMaxPaths) known_.emplace(path, s);
  return s;
}

std::size_t PathCache::size() const {
  std::lock_guard lock(mutex_);
  return known_.size();
}

PathCache::Status path_status(const std::string& path, PathCache* cache) {
  return cache ? cache->status(path) : stat_path(path);
}

}  // namespace parlint
