#pragma once
// What the file system said about each path during one run. Files do not change under a `check`, and the
// walks up the folders (configurations, checkouts, framework packages, the folders a reference is looked
// up in) ask the same questions for every input of a folder and for every folder of a checkout: a run
// over a repository stat'ed the same missing paths thousands of times. Owned by the run, shared by its
// threads; the language server lints without one, since its files change between lints.
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace parlint {

class PathCache {
 public:
  enum class Kind : std::uint8_t { kMissing, kRegular, kDirectory, kOther };
  struct Status {
    Kind kind = Kind::kMissing;
    std::uintmax_t size = 0;  // of a regular file
  };
  // stat(2) of `path` (symbolic links followed), asked of the disk once per spelling.
  Status status(const std::string& path);
  std::size_t size() const;

 private:
  static constexpr std::size_t kMaxPaths = 1u << 18;  // past it, asked afresh (memory stays bounded)
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Status> known_;
};

// stat(2) of `path` through `cache` when there is one.
PathCache::Status path_status(const std::string& path, PathCache* cache);

}  // namespace parlint
