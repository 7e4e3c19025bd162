#include "parsers/shell/sbatch_submissions.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <string_view>
#include <vector>

#include "lint/model/source_files.h"

namespace parlint {
namespace {

constexpr std::size_t kMaxFiles = 256;
constexpr std::size_t kMaxFileSize = 1u << 20;

bool shell_name(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  return ext == ".sh" || ext == ".bash" || ext == ".slurm" || ext == ".sbatch" || ext == ".sub";
}

bool word_boundary(std::string_view text, std::size_t at, std::size_t length) {
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  };
  bool before = at == 0 || !is_name(text[at - 1]);
  bool after = at + length >= text.size() || !is_name(text[at + length]);
  return before && after;
}

// The logical lines of a shell text (backslash-newline joined), each with its first line number.
std::vector<std::pair<int, std::string>> logical_lines(std::string_view text) {
  std::vector<std::pair<int, std::string>> out;
  std::string current;
  int line = 1, start = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      ++line;
      current.push_back(' ');
      continue;
    }
    if (c == '\n') {
      out.emplace_back(start, std::move(current));
      current.clear();
      start = ++line;
      continue;
    }
    current.push_back(c);
  }
  if (!current.empty()) out.emplace_back(start, std::move(current));
  return out;
}

// An sbatch command that passes a node count: its line, the option, and the words after it.
struct SizedSbatch {
  int line;
  std::string option;
  std::string rest;  // the text after "sbatch": options, then the script
};

std::vector<SizedSbatch> sized_sbatch_commands(std::string_view text) {
  std::vector<SizedSbatch> out;
  if (text.find("sbatch") == std::string_view::npos) return out;
  for (const auto& [line, l] : logical_lines(text)) {
    std::string_view v = l;
    auto first = v.find_first_not_of(" \t");
    if (first != std::string_view::npos && v[first] == '#') continue;  // comments and #SBATCH lines
    auto sb = v.find("sbatch");
    if (sb == std::string_view::npos || !word_boundary(v, sb, 6)) continue;
    std::string_view rest = v.substr(sb + 6);
    for (std::string_view opt : {"--nodes", "-N"}) {
      bool found = false;
      for (auto p = rest.find(opt); p != std::string_view::npos && !found; p = rest.find(opt, p + 1)) {
        bool starts = p == 0 || rest[p - 1] == ' ' || rest[p - 1] == '\t' || rest[p - 1] == '"';
        char next = p + opt.size() < rest.size() ? rest[p + opt.size()] : ' ';
        bool ends = next == '=' || next == ' ' || next == '\t' ||
                    std::isdigit(static_cast<unsigned char>(next)) || next == '$' || next == '"';
        if (starts && ends) {
          out.push_back({line, std::string(opt), std::string(rest)});
          found = true;
        }
      }
      if (found) break;
    }
  }
  return out;
}

// The sized sbatch commands of a folder's shell scripts, read once per version of the folder (its
// mtime): a folder of many job scripts would otherwise read, or at least stat, every sibling once per
// script. Editing a sibling in place keeps the folder's mtime, so a long-lived process (the language
// server) sees such an edit when the folder next changes.
struct FolderCommand {
  std::filesystem::path file;
  SizedSbatch command;
};

std::vector<FolderCommand> folder_commands(const std::filesystem::path& folder, const FileReader& reader) {
  namespace fs = std::filesystem;
  struct Entry {
    fs::file_time_type mtime;
    std::vector<FolderCommand> commands;
  };
  static std::mutex mutex;
  static std::map<std::string, Entry> cache;
  std::error_code ec;
  auto mtime = fs::last_write_time(folder, ec);
  if (ec) return {};
  std::string key = folder.string();
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end() && it->second.mtime == mtime) return it->second.commands;
  }
  Entry e{mtime, {}};
  std::size_t files = 0;
  fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code fe;
    if (!shell_name(p) || !it->is_regular_file(fe)) continue;
    if (++files > kMaxFiles) break;
    auto text = reader.read(p.lexically_normal().string(), kMaxFileSize);
    if (!text) continue;
    for (auto& c : sized_sbatch_commands(*text)) e.commands.push_back({p.lexically_normal(), std::move(c)});
  }
  std::vector<FolderCommand> commands = e.commands;
  std::lock_guard lock(mutex);
  cache[key] = std::move(e);
  return commands;
}

}  // namespace

std::optional<Submission> find_submission_with_nodes(const std::string& script, const FileReader& reader) {
  namespace fs = std::filesystem;
  fs::path self = fs::path(script).lexically_normal();
  std::string name = self.filename().string();
  if (name.empty()) return std::nullopt;
  fs::path dir = self.parent_path();
  for (const fs::path& folder : {dir, dir.parent_path()}) {
    for (const auto& [file, c] : folder_commands(folder.empty() ? fs::path(".") : folder, reader)) {
      if (file == self) continue;
      auto at = c.rest.find(name);
      if (at == std::string::npos || !word_boundary(c.rest, at, name.size())) continue;
      // The node count must be sbatch's own option, before the script's name.
      if (c.rest.find(c.option) < at) return Submission{file.string(), c.line, c.option};
    }
    if (dir.empty()) break;
  }
  return std::nullopt;
}

}  // namespace parlint
