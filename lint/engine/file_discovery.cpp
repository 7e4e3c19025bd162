#include "lint/engine/file_discovery.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "lint/engine/file_kind.h"
#include "lint/engine/gitignore.h"
#include "lint/model/source_files.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

bool is_skipped_folder(const std::string& name) {
  static const std::set<std::string> kSkip = {".git",        ".hg",    ".svn",        "node_modules",
                                              "__pycache__", ".venv",  "venv",        ".tox",
                                              "build",       "_build", ".mypy_cache", ".ruff_cache"};
  return kSkip.count(name) > 0 || name.starts_with("cmake-build-");
}

// First bytes of a file, to recognise shell scripts without an extension.
std::string read_head(const fs::path& p, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string buf(n, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(n));
  buf.resize(static_cast<std::size_t>(in.gcount()));
  return buf;
}

bool excluded(const std::string& path, const EngineOptions& options, ConfigResolver* configs = nullptr) {
  for (const Glob& g : options.exclude)
    if (g.matches(path)) return true;
  if (configs)
    if (const Config* c = configs->for_file(path); c && c->excludes(path)) return true;
  return false;
}

void walk_folder(const fs::path& dir, const EngineOptions& options, GitIgnore& gitignore,
                 ConfigResolver& configs, std::vector<Input>& out, std::vector<InputError>& errors,
                 int depth) {
  if (depth > 256) return;
  std::error_code ec;
  // A folder that cannot be listed is reported (exit 2), not skipped in silence.
  fs::directory_iterator it(dir, ec);
  if (ec) {
    errors.push_back({dir.generic_string(), "cannot list this folder: " + ec.message()});
    return;
  }
  std::vector<fs::directory_entry> entries;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      errors.push_back({dir.generic_string(), "listing stopped: " + ec.message()});
      break;
    }
    entries.push_back(*it);
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path() < b.path(); });
  for (const auto& e : entries) {
    std::string path = e.path().generic_string();
    std::error_code sec;
    bool symlink = e.is_symlink(sec);
    bool is_dir = e.is_directory(sec);
    if (is_dir) {
      // Symlinked folders are not followed: they make loops and lint the same files twice.
      if (symlink || is_skipped_folder(e.path().filename().string())) continue;
      if (excluded(path, options, &configs) || gitignore.ignored(e.path(), true)) continue;
      walk_folder(e.path(), options, gitignore, configs, out, errors, depth + 1);
      continue;
    }
    if (!e.is_regular_file(sec) || e.path().filename() == ".parlint.yaml") continue;  // our own configuration
    if (excluded(path, options, &configs) || gitignore.ignored(e.path(), false)) continue;
    bool wanted = kind_of_extension(e.path().extension().string()) != FileKind::kNone;
    if (!wanted && e.path().extension().empty()) wanted = looks_like_shell(read_head(e.path(), 4096));
    if (wanted) out.push_back({path});
  }
}

std::string size_text(std::size_t bytes) {
  if (bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// Reads a regular file whole; FIFOs, devices and oversized files are refused before opening.
Expected<std::string, std::string> read_input(const std::string& path, std::size_t max_size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Unexpected(std::string(std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return Unexpected(std::string("not a regular file"));
  if (static_cast<std::size_t>(st.st_size) > max_size)
    return Unexpected("file is " + std::to_string(st.st_size) + " bytes, over the " + size_text(max_size) +
                      " limit (--max-file-size); not read");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected(std::string(std::strerror(errno)));
  auto text = read_stream(in, static_cast<std::size_t>(st.st_size), max_size);
  if (!text) return Unexpected(std::string("read error, or the file grew over the limit while being read"));
  return std::move(*text);
}

}  // namespace

std::string shown_path(const std::string& path) {
  std::string normal = fs::path(path).lexically_normal().generic_string();
  return normal.empty() ? path : normal;
}

std::vector<Input> collect_inputs(const std::vector<std::string>& paths, const EngineOptions& options,
                                  ConfigResolver& configs, std::vector<InputError>& errors) {
  std::vector<Input> out;
  GitIgnore gitignore;
  for (const std::string& p : paths) {
    if (p == "-") {
      out.push_back({options.stdin_filename, true});
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      errors.push_back(
          {p, ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "No such file or directory"});
      continue;
    }
    if (fs::is_directory(st)) {
      if (options.force_exclude && excluded(fs::path(p).generic_string(), options, &configs)) continue;
      walk_folder(p, options, gitignore, configs, out, errors, 0);
      continue;
    }
    if (options.force_exclude && excluded(fs::path(p).generic_string(), options, &configs)) continue;
    out.push_back({p});
  }
  // One spelling of each path in a run, as ruff prints them: `./src/a.sh` and `src/./a.sh` are `src/a.sh`,
  // like the paths of the files they refer to (which cross-file resolution builds lexically normal).
  for (Input& in : out)
    if (!in.from_stdin) in.path = shown_path(in.path);
  // Resolve every file's configuration here, before the worker threads start.
  for (Input& in : out) in.config = configs.for_file(in.from_stdin ? "./" + in.path : in.path);
  for (const auto& e : configs.errors())
    errors.push_back({e.substr(0, e.find(':')), e.substr(e.find(':') + 1)});
  return out;
}

Expected<std::string, std::string> read_text(const Input& input, const EngineOptions& options) {
  if (!input.from_stdin) return read_input(input.path, options.max_file_size);
  // Standard input has no size to check first: read at most one buffer past the limit.
  std::string text;
  char buf[65536];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > options.max_file_size)
      return Unexpected("standard input is over the " + size_text(options.max_file_size) +
                        " limit (--max-file-size); not read");
  }
  return text;
}

}  // namespace parlint
