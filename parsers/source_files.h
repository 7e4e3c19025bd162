#pragma once
// Reading the other files an input refers to (sourced scripts, imported modules, configs). An editor's
// open buffers replace the disk copies while an overlay is installed on the current thread, and every
// file read through here is recorded, so the language server knows which open documents depend on which.
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace parlint {

// The absolute, lexically normal spelling used as the key for buffers and dependencies.
std::string normalized_path(const std::string& path);

struct SourceOverlay {
  std::map<std::string, std::string> buffers;  // normalized path -> unsaved text
  std::set<std::string> read;                  // normalized paths read while installed
};

// Installs an overlay for the current thread for the guard's lifetime.
class ScopedSourceOverlay {
 public:
  explicit ScopedSourceOverlay(SourceOverlay& overlay);
  ~ScopedSourceOverlay();
  ScopedSourceOverlay(const ScopedSourceOverlay&) = delete;
  ScopedSourceOverlay& operator=(const ScopedSourceOverlay&) = delete;

 private:
  SourceOverlay* previous_;
};

// The text of a file: an open buffer when the overlay has one, else the regular file on disk (nullopt
// when it is missing, not a regular file, or larger than max_size).
std::optional<std::string> read_source_file(const std::string& path, std::size_t max_size = 16u << 20);
// The rest of a stream in one read of `expected` bytes (the size stat gave), then on while it grows;
// nullopt once it passes max_size or on a read error.
std::optional<std::string> read_stream(std::istream& in, std::size_t expected, std::size_t max_size);
// True when read_source_file would find something.
bool source_file_exists(const std::string& path);

}  // namespace parlint
