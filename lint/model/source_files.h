#pragma once
// The one way parsers and the core reach the files an input refers to (sourced scripts, imported
// modules, configs, sibling scripts): a FileReader passed in, which applies the run's size limit, asks the
// disk about a path once per run (PathCache) and, in
// the language server, puts the editor's open buffers in place of the disk copies and records every
// path read (so the server knows which open documents depend on which).
#include <cstddef>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "lint/model/path_cache.h"

namespace parlint {

// The absolute, lexically normal spelling used as the key for buffers and dependencies.
std::string normalized_path(const std::string& path);

struct SourceOverlay {
  std::map<std::string, std::string> buffers;  // normalized path -> unsaved text
  std::set<std::string> read;                  // normalized paths read through a reader using it
};

class FileReader {
 public:
  static constexpr std::size_t kDefaultMaxSize = 16u << 20;
  explicit FileReader(std::size_t max_size = kDefaultMaxSize, SourceOverlay* overlay = nullptr,
                      PathCache* paths = nullptr)
      : max_size_(max_size), overlay_(overlay), paths_(paths) {}
  // Plain disk reads with the default limit, for callers with no run of their own (tests, tools).
  static const FileReader& disk();

  // The text of a file: an open buffer when the overlay has one, else the regular file on disk; nullopt
  // when it is missing, not a regular file, or larger than the smaller of `limit` and the run's limit.
  std::optional<std::string> read(const std::string& path, std::size_t limit = kDefaultMaxSize) const;
  // True when read() would find something (size aside).
  bool exists(const std::string& path) const;
  // A regular file no larger than the run's limit, or an open buffer.
  bool readable(const std::string& path) const;
  // A folder on disk.
  bool is_directory(const std::string& path) const;
  // Whether `dir` is the top of a git checkout (it holds `.git`, a folder or a worktree's file).
  bool checkout_root(const std::string& dir) const;
  // What the disk says of `path`, through the run's cache when it has one.
  PathCache::Status status(const std::string& path) const { return path_status(path, paths_); }
  // True when the overlay holds an open buffer for `path`, whatever the disk has.
  bool buffered(const std::string& path) const;
  std::size_t max_size() const { return max_size_; }

 private:
  std::size_t max_size_;
  SourceOverlay* overlay_;  // not owned; recording a read is the only change made to it
  PathCache* paths_;        // not owned; the run's, or null
};

// The rest of a stream in one read of `expected` bytes (the size stat gave), then on while it grows;
// nullopt once it passes max_size or on a read error.
std::optional<std::string> read_stream(std::istream& in, std::size_t expected, std::size_t max_size);

}  // namespace parlint
