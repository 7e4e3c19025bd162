#pragma once
// The repository's shell fixtures (fixtures/**/*.sh, *.sbatch, *.slurm) with their text, for the tests
// that replay typing on every one of them (tree cache, uncalled-function memo).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace parlint::testing {

struct FixtureFile {
  std::filesystem::path path;
  std::string text;  // never empty: empty fixtures are left out
};

inline std::vector<FixtureFile> shell_fixtures() {
  std::vector<FixtureFile> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::filesystem::path(PARLINT_SOURCE_DIR) / "fixtures")) {
    auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".sh" && ext != ".sbatch" && ext != ".slurm")) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (!buffer.str().empty()) out.push_back({entry.path(), buffer.str()});
  }
  return out;
}

}  // namespace parlint::testing
