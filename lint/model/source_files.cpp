#include "lint/model/source_files.h"

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace parlint {

std::string normalized_path(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return (ec ? std::filesystem::path(path) : abs).lexically_normal().string();
}

const FileReader& FileReader::disk() {
  static const FileReader reader;
  return reader;
}

std::optional<std::string> FileReader::read(const std::string& path, std::size_t limit) const {
  std::size_t max_size = std::min(limit, max_size_);
  if (overlay_) {
    std::string key = normalized_path(path);
    overlay_->read.insert(key);
    if (auto it = overlay_->buffers.find(key); it != overlay_->buffers.end()) {
      if (it->second.size() > max_size) return std::nullopt;
      return it->second;
    }
  }
  // Only regular files: a FIFO or a device named by a script is never opened.
  PathCache::Status st = status(path);
  if (st.kind != PathCache::Kind::kRegular || st.size > max_size) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return read_stream(in, static_cast<std::size_t>(st.size), max_size);
}

bool FileReader::buffered(const std::string& path) const {
  return overlay_ && overlay_->buffers.count(normalized_path(path)) > 0;
}

bool FileReader::exists(const std::string& path) const {
  if (buffered(path)) return true;
  return status(path).kind == PathCache::Kind::kRegular;
}

bool FileReader::readable(const std::string& path) const {
  PathCache::Status st = status(path);
  if (st.kind == PathCache::Kind::kMissing) return buffered(path);  // an editor buffer not yet saved
  return st.kind == PathCache::Kind::kRegular && st.size <= max_size_;
}

bool FileReader::is_directory(const std::string& path) const {
  return status(path).kind == PathCache::Kind::kDirectory;
}

bool FileReader::checkout_root(const std::string& dir) const {
  return status(dir + "/.git").kind != PathCache::Kind::kMissing;
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

}  // namespace parlint
