#include "lint/engine/file_kind.h"

#include <array>
#include <filesystem>
#include <string>
#include <utility>

namespace parlint {

FileKind kind_of_extension(std::string_view extension) {
  static constexpr std::array<std::pair<std::string_view, FileKind>, 9> kExtensions{{
      {".yaml", FileKind::kYaml},
      {".yml", FileKind::kYaml},
      {".py", FileKind::kPython},
      {".sh", FileKind::kShell},
      {".bash", FileKind::kShell},
      {".sbatch", FileKind::kShell},
      {".slurm", FileKind::kShell},
      {".slrm", FileKind::kShell},
      {".sub", FileKind::kShell},
  }};
  for (const auto& [ext, kind] : kExtensions)
    if (ext == extension) return kind;
  return FileKind::kNone;
}

bool looks_like_shell(std::string_view head) {
  if (head.starts_with("#!")) {
    std::string_view first = head.substr(0, head.find('\n'));
    return first.find("sh") != std::string_view::npos && first.find("python") == std::string_view::npos;
  }
  return head.find("#SBATCH") != std::string_view::npos;
}

std::optional<FileKind> recognized_kind(std::string_view path, std::string_view head) {
  std::filesystem::path p(path);
  // A template (`slurm.sh.j2`, `ray.sub.jinja`) is the syntax its inner extension names.
  if (p.extension() == ".j2" || p.extension() == ".jinja" || p.extension() == ".jinja2") p = p.stem();
  if (FileKind k = kind_of_extension(p.extension().string()); k != FileKind::kNone) return k;
  if (head.starts_with("#!") && head.substr(0, head.find('\n')).find("python") != std::string_view::npos)
    return FileKind::kPython;
  if (looks_like_shell(head)) return FileKind::kShell;
  if (path == "-") return FileKind::kYaml;  // what is piped in is linted as what it is meant to be
  return std::nullopt;
}

FileKind file_kind(std::string_view path, std::string_view head) {
  return recognized_kind(path, head).value_or(FileKind::kYaml);
}

}  // namespace parlint
