#include "lint/entry_scripts.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "lint/source_text.h"
#include "parsers/python_parser.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

std::optional<std::string> resolve(const std::string& launcher, const std::string& entry) {
  std::vector<fs::path> candidates;
  fs::path p(entry);
  if (p.is_absolute()) {
    candidates.push_back(p);
  } else {
    candidates.push_back(fs::path(launcher).parent_path() / p);
    candidates.push_back(p);
  }
  for (const auto& c : candidates) {
    struct stat st {};
    if (::stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return c.lexically_normal().string();
  }
  return std::nullopt;
}

}  // namespace

void merge_entry_scripts(ParsedFile& file, std::size_t max_file_size) {
  std::map<std::string, ParsedFile> parsed;  // each entry script read once per launching file
  for (RawJob& job : file.jobs) {
    if (job.entry_script.empty()) continue;
    auto path = resolve(file.path, job.entry_script);
    if (!path || *path == file.path) continue;
    auto it = parsed.find(*path);
    if (it == parsed.end()) {
      struct stat st {};
      if (::stat(path->c_str(), &st) != 0 || static_cast<std::size_t>(st.st_size) > max_file_size) continue;
      std::ifstream in(*path, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      SourceText source(std::move(text));
      it = parsed.emplace(*path, parse_python(*path, source)).first;
    }
    const RawJob* base = nullptr;
    for (const RawJob& candidate : it->second.jobs) {
      if (!job.recipe.empty() && candidate.description == job.recipe + "()") base = &candidate;
      if (job.recipe.empty() && candidate.description == "module") base = &candidate;
    }
    if (!base) continue;
    // The script's settings come first: the launch's own arguments override them.
    std::vector<Fact> facts = base->facts;
    for (auto& f : facts) f.priority = std::min(f.priority, 1);
    facts.insert(facts.end(), job.facts.begin(), job.facts.end());
    job.facts = std::move(facts);
    job.unrecognized.insert(job.unrecognized.end(), base->unrecognized.begin(), base->unrecognized.end());
    if (job.framework == Framework::kUnknown) job.framework = base->framework;
  }
}

}  // namespace parlint
