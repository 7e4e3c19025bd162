#include "lint/resolve/framework_source.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "lint/model/source_text.h"
#include "lint/model/whitespace.h"
#include "parsers/python/python_parser.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxRecipeFiles = 4000;         // Megatron-Bridge 0.7 has about 700
constexpr std::size_t kMaxRecipeFileSize = 1u << 20;  // the largest recipe module is 114 KiB

// A path under the working directory as a relative one, the way the user named the file.
fs::path shown(const fs::path& p) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec) return p;
  fs::path rel = p.lexically_relative(cwd);
  return rel.empty() || *rel.begin() == ".." ? p : rel;
}

// The folders a project keeps the framework in, looked for in the file's folder and each one above it.
std::vector<fs::path> folders_up(const std::string& file, const FileReader& reader) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(file), ec).parent_path().lexically_normal();
  for (int i = 0; i < 16 && !dir.empty(); ++i) {
    out.push_back(dir);
    if (reader.checkout_root(dir.string()) || dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  return out;
}

bool is_bridge_package(const fs::path& p, const FileReader& reader) {
  return reader.exists((p / "recipes" / "__init__.py").string()) ||
         reader.exists((p / "perf_recipes" / "__init__.py").string());
}

std::optional<fs::path> bridge_package_in(const fs::path& root, const FileReader& reader) {
  for (const fs::path& p : {root, root / "megatron" / "bridge", root / "src" / "megatron" / "bridge"})
    if (is_bridge_package(p, reader)) return p.lexically_normal();
  return std::nullopt;
}

// MAJOR = 0 / MINOR = 7 / PATCH = 0 of a package_info.py, as "0.7.0".
std::string package_version(const fs::path& package_info, const FileReader& reader) {
  auto text = reader.read(package_info.string(), 1u << 16);
  if (!text) return "";
  auto number = [&](std::string_view name) -> std::string {
    std::string_view t = *text;
    for (std::size_t at = t.find(name); at != std::string_view::npos; at = t.find(name, at + 1)) {
      if (at > 0 && t[at - 1] != '\n') continue;
      std::size_t i = at + name.size();
      while (i < t.size() && (t[i] == ' ' || t[i] == '=')) ++i;
      std::size_t j = i;
      while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
      if (j > i) return std::string(t.substr(i, j - i));
    }
    return "";
  };
  std::string major = number("MAJOR"), minor = number("MINOR"), patch = number("PATCH");
  if (major.empty() || minor.empty()) return "";
  return major + "." + minor + (patch.empty() ? "" : "." + patch);
}

// Where a package defines each recipe function, and the legacy names it exports them under
// (`from .h100.x import f as legacy_name`, `legacy_name = f`), read from the text: no Python is run.
struct RecipeIndex {
  struct Definition {
    std::string file, function;
  };
  std::map<std::string, Definition> library, benchmark;  // by every name a launcher may use
};

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool identifier(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), identifier_char);
}

bool recipe_name(std::string_view s) {
  return s.ends_with("_config") || s.find("_config_") != std::string_view::npos;
}

void index_file(const std::string& path, std::string_view text,
                std::map<std::string, RecipeIndex::Definition>& defs,
                std::map<std::string, std::string>& renames) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.starts_with("def ")) {
      std::string_view name =
          line.substr(4, line.find('(') == std::string_view::npos ? 0 : line.find('(') - 4);
      name = trim_whitespace(name);
      if (identifier(name) && recipe_name(name))
        defs.try_emplace(std::string(name), RecipeIndex::Definition{path, std::string(name)});
      continue;
    }
    std::string_view t = trim_whitespace(line);
    if (t.starts_with("from ") && t.find(" import ") != std::string_view::npos)
      t = trim_whitespace(t.substr(t.find(" import ") + 8));
    while (!t.empty() && (t.front() == '(')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == ',' || t.back() == ')')) t.remove_suffix(1);
    t = trim_whitespace(t);
    std::string_view old_name, new_name;
    if (auto as = t.find(" as "); as != std::string_view::npos) {
      old_name = trim_whitespace(t.substr(0, as));
      new_name = trim_whitespace(t.substr(as + 4));
    } else if (auto eq = line.find(" = "); eq != std::string_view::npos && !line.starts_with(" ")) {
      new_name = trim_whitespace(line.substr(0, eq));
      old_name = trim_whitespace(line.substr(eq + 3));
    }
    if (identifier(old_name) && identifier(new_name) && new_name != old_name && recipe_name(new_name) &&
        !new_name.starts_with("_"))
      renames.try_emplace(std::string(new_name), std::string(old_name));
  }
}

std::map<std::string, RecipeIndex::Definition> index_package(const fs::path& dir, const FileReader& reader) {
  std::map<std::string, RecipeIndex::Definition> defs;
  std::map<std::string, std::string> renames;
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       it != end && files.size() < kMaxRecipeFiles; it.increment(ec)) {
    if (ec) break;
    if (it->path().extension() == ".py" && it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());  // the first definition of a name wins, in a stable order
  for (const auto& f : files)
    if (auto text = reader.read(f, kMaxRecipeFileSize)) index_file(f, *text, defs, renames);
  for (const auto& [alias, target] : renames) {
    std::string old = target;
    for (int hops = 0; hops < 8 && !defs.count(old) && renames.count(old); ++hops) old = renames.at(old);
    if (auto d = defs.find(old); d != defs.end() && !defs.count(alias)) defs.emplace(alias, d->second);
  }
  return defs;
}

const RecipeIndex& recipe_index(const fs::path& package, const FileReader& reader) {
  // Once per package and run: every launch in every file of a project shares it.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<RecipeIndex>> known;
  std::lock_guard lock(mutex);
  auto& slot = known[package.string()];
  if (!slot) {
    slot = std::make_unique<RecipeIndex>();
    slot->library = index_package(package / "recipes", reader);
    slot->benchmark = index_package(package / "perf_recipes", reader);
  }
  return *slot;
}

// As find_recipe() decides between the packages (recipe_runner.py:228-253@067f987df03b).
const RecipeIndex::Definition* find_definition(const RecipeIndex& index, const std::string& name,
                                               RecipePackage where) {
  auto lib = index.library.find(name), bench = index.benchmark.find(name);
  const RecipeIndex::Definition* l = lib == index.library.end() ? nullptr : &lib->second;
  const RecipeIndex::Definition* b = bench == index.benchmark.end() ? nullptr : &bench->second;
  return choose_definition(l, b, b && b->function == name, where);
}

}  // namespace

std::optional<FrameworkSource> bridge_source_for(const std::string& file,
                                                 const std::optional<std::string>& configured,
                                                 const FileReader& reader) {
  std::optional<fs::path> package;
  std::string how;
  if (configured) {
    package = bridge_package_in(*configured, reader);
    how = "framework-source: " + shown(*configured).string();
    if (!package) return std::nullopt;
  } else {
    // Once per folder and run: the files of one folder share the answer.
    static std::mutex mutex;
    static std::map<std::string, std::optional<fs::path>> known;
    std::error_code ec;
    std::string start = fs::absolute(fs::path(file), ec).parent_path().lexically_normal().string();
    std::unique_lock lock(mutex);
    if (auto it = known.find(start); it != known.end()) {
      package = it->second;
    } else {
      lock.unlock();
      for (const fs::path& dir : folders_up(file, reader)) {
        for (const fs::path& root : {dir / "3rdparty" / "Megatron-Bridge", dir})
          if ((package = bridge_package_in(root, reader))) break;
        if (package) break;
      }
      lock.lock();
      known.emplace(start, package);
    }
    if (!package) return std::nullopt;
    how = "found above " + file;
  }
  package = shown(*package);
  return FrameworkSource{package->string(), package_version(*package / "package_info.py", reader), how};
}

std::optional<CoreVersion> core_version_for(const std::string& file,
                                            const std::optional<CoreVersion>& configured,
                                            const FileReader& reader) {
  if (configured) return configured;
  static std::mutex mutex;
  static std::map<std::string, std::optional<CoreVersion>> known;
  std::error_code ec;
  std::string start = fs::absolute(fs::path(file), ec).parent_path().lexically_normal().string();
  {
    std::lock_guard lock(mutex);
    if (auto it = known.find(start); it != known.end()) return it->second;
  }
  std::optional<CoreVersion> found;
  for (const fs::path& dir : folders_up(file, reader)) {
    for (const fs::path& root : {dir / "3rdparty" / "Megatron-LM", dir}) {
      fs::path info = root / "megatron" / "core" / "package_info.py";
      if (!reader.exists(info.string())) continue;
      found = parse_core_version(package_version(info, reader));
      if (found) found->source = shown(info.lexically_normal()).string();
      break;
    }
    if (found) break;
  }
  std::lock_guard lock(mutex);
  known.emplace(start, found);
  return found;
}

void read_recipes_from_source(ParsedFile& file, const FrameworkSource& source, const FileReader& reader,
                              PythonModuleCache* modules) {
  const RecipeIndex& index = recipe_index(source.package, reader);
  std::map<std::string, std::pair<std::unique_ptr<SourceText>, ParsedFile>> parsed;  // by recipe file
  auto load = [&](const std::string& path) -> const ParsedFile& {
    auto it = parsed.find(path);
    if (it == parsed.end()) {
      auto text = std::make_unique<SourceText>(reader.read(path).value_or(""));
      ParsedFile p = parse_python(path, *text, reader, nullptr, modules);
      it = parsed.emplace(path, std::make_pair(std::move(text), std::move(p))).first;
    }
    return it->second.second;
  };
  std::string framework = "Megatron-Bridge" + (source.version.empty() ? "" : " " + source.version);
  std::error_code ec;
  bool own_file = fs::absolute(file.path, ec)
                      .lexically_normal()
                      .string()
                      .starts_with(fs::absolute(source.package, ec).lexically_normal().string() + "/");
  for (RawJob& job : file.jobs) {
    // A recipe built on another (cfg = base_recipe()) is read down the chain; the nearer one's values win.
    std::vector<std::vector<Fact>> levels;
    for (int depth = 0; depth < 6 && !job.recipe.empty() && job.recipe.read_from.empty(); ++depth) {
      if (job.recipe.name.find('.') != std::string::npos) break;  // a NeMo 2 module.function
      if (own_file) break;  // the framework's own file: its imports are read as they are
      const RecipeIndex::Definition* def = find_definition(index, job.recipe.name, job.recipe.package);
      if (!def) {
        job.notes.push_back("recipe " + job.recipe.name + " is not defined in " + framework + " at " +
                            source.package + "; parlint's built-in table is used for it");
        break;
      }
      const ParsedFile& recipe_file = load(def->file);
      auto base = std::find_if(recipe_file.jobs.begin(), recipe_file.jobs.end(),
                               [&](const RawJob& j) { return j.function == def->function; });
      if (base == recipe_file.jobs.end()) break;
      std::vector<Fact> facts;
      for (Fact f : base->facts) {
        if (f.origin == Origin::kRecipeName) continue;  // the GPUs its name targets: the launch says its own
        f.priority = std::min(f.priority, 1);
        facts.push_back(std::move(f));
      }
      levels.push_back(std::move(facts));
      job.notes.push_back("recipe " + job.recipe.name + " read from " + framework + " at " + def->file +
                          " (" + source.how + ")");
      if (job.framework == Framework::kUnknown) job.framework = Framework::kMegatronBridge;
      if (job.model.empty()) job.model = base->model;  // the Hugging Face id the recipe loads
      RecipeCall inner = base->recipe;
      if (inner.empty() || !inner.changed_by.empty()) {
        job.recipe.read_from = def->file;
        if (!inner.changed_by.empty()) job.recipe.changed_by = inner.changed_by;
      } else {
        bool by_runner = job.recipe.by_runner;
        job.recipe = inner;  // read on: the recipe it starts from, run the way the outer one is
        job.recipe.by_runner = by_runner;
      }
    }
    if (levels.empty()) continue;
    std::vector<Fact> below;
    for (auto it = levels.rbegin(); it != levels.rend(); ++it)
      below.insert(below.end(), it->begin(), it->end());
    below.insert(below.end(), job.facts.begin(), job.facts.end());
    job.facts = std::move(below);
  }
}

}  // namespace parlint
