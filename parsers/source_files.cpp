#include "parsers/source_files.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace parlint {
namespace {

thread_local SourceOverlay* current_overlay = nullptr;

}  // namespace

std::string normalized_path(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return (ec ? std::filesystem::path(path) : abs).lexically_normal().string();
}

ScopedSourceOverlay::ScopedSourceOverlay(SourceOverlay& overlay) : previous_(current_overlay) {
  current_overlay = &overlay;
}
ScopedSourceOverlay::~ScopedSourceOverlay() {
  current_overlay = previous_;
}

std::optional<std::string> read_source_file(const std::string& path, std::size_t max_size) {
  if (current_overlay) {
    std::string key = normalized_path(path);
    current_overlay->read.insert(key);
    if (auto it = current_overlay->buffers.find(key); it != current_overlay->buffers.end()) {
      if (it->second.size() > max_size) return std::nullopt;
      return it->second;
    }
  }
  // Only regular files: a FIFO or a device named by a script is never opened.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::size_t>(st.st_size) > max_size)
    return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool source_file_exists(const std::string& path) {
  if (current_overlay && current_overlay->buffers.count(normalized_path(path))) return true;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace parlint
