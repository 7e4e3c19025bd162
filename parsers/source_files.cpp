#include "parsers/source_files.h"

#include <algorithm>

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
  return read_stream(in, static_cast<std::size_t>(st.st_size), max_size);
}

// One read of the expected size (byte by byte through istreambuf_iterator was 1% of a run).
std::optional<std::string> read_stream(std::istream& in, std::size_t expected, std::size_t max_size) {
  std::string text(std::min(expected, max_size + 1), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  char chunk[4096];
  while (in && text.size() <= max_size) {
    in.read(chunk, sizeof chunk);
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad() || text.size() > max_size) return std::nullopt;
  return text;
}

bool source_file_exists(const std::string& path) {
  if (current_overlay && current_overlay->buffers.count(normalized_path(path))) return true;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace parlint
