#include "lint/resolve/cross_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "lint/model/source_files.h"
#include "lint/model/source_text.h"
#include "parsers/args/argparse_flags.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/python/python_parser.h"
#include "parsers/yaml/yaml_parser.h"

namespace parlint {
namespace fs = std::filesystem;
namespace {

bool regular_file(const fs::path& p, const FileReader& reader) {
  return reader.readable(p.string());  // one stat per candidate and run: most of them are missing
}

// The folders a relative reference is looked up in: the launching script's folder and the folders above it
// up to the top of its git checkout, then the working directory.
std::vector<fs::path> search_bases(const std::string& launcher, const FileReader& reader) {
  std::vector<fs::path> bases;
  fs::path dir = fs::path(launcher).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::path abs = fs::absolute(dir, ec).lexically_normal();
  fs::path rel = dir;
  for (int i = 0; i < 16; ++i) {
    bases.push_back(rel);
    if (reader.checkout_root(abs.string()) || !abs.has_parent_path() || abs.parent_path() == abs) break;
    abs = abs.parent_path();
    rel = (rel / "..").lexically_normal();
  }
  bases.push_back(".");
  return bases;
}

std::optional<std::string> locate(const std::string& launcher, const std::vector<std::string>& relative,
                                  const FileReader& reader) {
  for (const auto& base : search_bases(launcher, reader))
    for (const auto& r : relative) {
      fs::path p = fs::path(r).is_absolute() ? fs::path(r) : base / r;
      if (regular_file(p, reader)) return p.lexically_normal().string();
    }
  return std::nullopt;
}

// The framework whose source tree holds `script` (its folder or one of the four above it), if any.
std::optional<std::string> framework_checkout(const std::string& script, const FileReader& reader) {
  struct Marker {
    const char* path;
    const char* framework;
  };
  static constexpr Marker kMarkers[] = {{"megatron/training/arguments.py", "Megatron-LM"},
                                        {"megatron/arguments.py", "Megatron-DeepSpeed"},
                                        {"megatron/core/parallel_state.py", "Megatron-LM"},
                                        {"src/megatron/bridge/__init__.py", "Megatron-Bridge"},
                                        {"nemo/collections/__init__.py", "NeMo"},
                                        {"megatron/neox_arguments/__init__.py", "GPT-NeoX"}};
  std::error_code ec;
  fs::path start = fs::absolute(fs::path(script), ec).parent_path();
  // Once per folder and run: the scripts of one folder share the answer (30 stats each otherwise).
  static std::mutex mutex;
  static std::map<std::string, std::optional<std::string>> known;
  {
    std::lock_guard lock(mutex);
    if (auto it = known.find(start.string()); it != known.end()) return it->second;
  }
  std::optional<std::string> found;
  fs::path dir = start;
  for (int up = 0; up < 5 && !dir.empty() && !found; ++up, dir = dir.parent_path()) {
    for (const auto& m : kMarkers)
      if (reader.exists((dir / m.path).string())) {
        found = m.framework;
        break;
      }
    if (dir == dir.root_path()) break;
  }
  std::lock_guard lock(mutex);
  known.emplace(start.string(), found);
  return found;
}

// Whether a config's text reads the environment variable `name`: ${oc.env:NAME}, ${oc.env:NAME,default}, or
// ${NAME:default} (a variable's name as the resolver).
bool reads_variable(std::string_view text, const std::string& name) {
  return text.find("oc.env:" + name + "}") != std::string_view::npos ||
         text.find("oc.env:" + name + ",") != std::string_view::npos ||
         text.find("${" + name + ":") != std::string_view::npos;
}

class Resolver {
 public:
  static constexpr std::size_t kMaxEnvironmentConfigs = 64;  // configs per folder an environment file may set

  Resolver(ParsedFile& file, const FileReader& reader, WorkBudget* budget, ReferencedFiles* shared,
           PythonModuleCache* modules)
      : file_(file),
        reader_(reader),
        budget_(budget),
        shared_(budget ? shared : nullptr),
        modules_(modules) {}

  // A YAML config given the launch's `environment` is read with it when it reads one of its variables
  // (${oc.env:TP}, ${TP:8}): the launch's exports win over the config's defaults.
  const ParsedFile* load(const std::string& path, bool python,
                         const std::vector<ExportedVariable>* environment = nullptr) {
    std::string key = path;
    const std::vector<ExportedVariable>* used = nullptr;
    std::optional<std::string> text;  // read once, for the variables it reads and for its parse
    if (!python && environment && !environment->empty()) {
      text = reader_.read(path).value_or("");
      std::string reads;  // the variables it reads, with their values: the cache key's tail
      for (const ExportedVariable& e : *environment)
        if (reads_variable(*text, e.name))
          reads += "\n" + e.name + "=" + (e.unknown_reason.empty() ? e.value : "?") + "@" + e.location.path +
                   ":" + std::to_string(e.location.range.start.line);
      if (!reads.empty()) {
        key += reads;
        used = environment;
      }
    }
    auto it = cache_.find(key);
    if (it != cache_.end()) return &it->second->parsed;
    // Parsed for another file of the run: taken when this file's budget has what parsing it cost left
    // (else it is parsed here, and runs out where it would have).
    // Inputs whose configurations give different size limits may read different files.
    const std::string shared_key = key + "\n<=" + std::to_string(reader_.max_size());
    if (shared_)
      if (auto kept = shared_->find(shared_key); kept && budget_->remaining() >= kept->units) {
        budget_->spend(kept->units);
        return &cache_.emplace(key, std::move(kept)).first->second->parsed;
      }
    auto l = std::make_shared<ReferencedFiles::Parsed>();
    l->source = std::make_unique<SourceText>(text ? std::move(*text) : reader_.read(path).value_or(""));
    // The launching script's work metered so far is charged first: `units` is what parsing this file cost,
    // whichever input parsed it (an input that reuses it was charged the first one's pending work too).
    if (budget_) budget_->spend(0);
    std::uint64_t before = budget_ ? budget_->spent() : 0;
    l->parsed = python ? parse_python(path, *l->source, reader_, budget_, modules_)
                       : parse_yaml(path, *l->source, framework_documents(), budget_, used);
    if (shared_ && !budget_->exhausted()) {
      budget_->spend(0);  // the work metered while parsing it, counted now
      l->units = budget_->spent() - before;
      shared_->keep(shared_key, l);
    }
    return &cache_.emplace(key, std::move(l)).first->second->parsed;
  }

  // NeMo-Framework-Launcher style: a launch that overrides `training.*` without choosing the group takes
  // the choice from the `defaults:` list of the launcher's conf/config.yaml.
  void default_groups(RawJob& job) {
    bool chosen = std::any_of(job.config_files.begin(), job.config_files.end(),
                              [](const Word& w) { return w.text.starts_with("group:"); });
    if (chosen || job.launch == LaunchKind::kNone) return;
    std::set<std::string> packages;
    for (const Fact& f : job.facts)
      if (f.origin == Origin::kOverride && f.spelling.find('.') != std::string::npos)
        packages.insert(f.spelling.substr(0, f.spelling.find('.')));
    if (packages.empty()) return;
    auto config = locate(file_.path, {"conf/config.yaml", "launcher_scripts/conf/config.yaml"}, reader_);
    if (!config) return;
    SourceText text(reader_.read(*config).value_or(""));
    for (const auto& [group, choice] : hydra_defaults(text)) {
      if (!packages.count(group)) continue;
      Word w;
      w.text = "group:" + group + "/" + choice;
      w.location = {*config, {}};
      job.config_files.push_back(std::move(w));
      job.notes.push_back(group + "=" + choice + " from the defaults of " + *config);
    }
  }

  void run() {
    if (file_.jobs.empty() && !file_.exports.empty()) environment_jobs();
    // A Megatron-LM style script inside a Megatron-DeepSpeed checkout runs that fork's pretrain_gpt.py.
    bool in_deepspeed_fork = false;
    if (std::any_of(file_.jobs.begin(), file_.jobs.end(),
                    [](const RawJob& j) { return j.framework == Framework::kMegatronLM; }))
      in_deepspeed_fork =
          framework_checkout(file_.path, reader_) == std::optional<std::string>("Megatron-DeepSpeed");
    for (RawJob& job : file_.jobs) {
      launched_argument_checks(job);
      if (in_deepspeed_fork && job.framework == Framework::kMegatronLM) {
        job.framework = Framework::kMegatronDeepSpeed;
        job.notes.push_back(
            "the script sits in a Megatron-DeepSpeed checkout: its pretrain_*.py is that fork's");
      }
      default_groups(job);
      std::vector<Fact> below;  // facts from referenced files, lowest precedence first
      for (const Word& c : job.config_files) config(job, c, below);
      if (!job.entry_script.empty()) entry_script(job, below);
      if (below.empty()) continue;
      below.insert(below.end(), job.facts.begin(), job.facts.end());
      job.facts = std::move(below);
    }
  }

 private:
  // The job of an inherited config that plays the same role (NeMo-RL's policy, or its PPO value model);
  // null when the config has none.
  static const RawJob* same_role(const ParsedFile& parsed, const RawJob& job) {
    for (const RawJob& candidate : parsed.jobs)
      if (candidate.role == job.role) return &candidate;
    return nullptr;
  }

  // A Megatron-LM launch from inside a Megatron checkout runs that checkout's argument checks: a fork
  // that dropped the CUDA_DEVICE_MAX_CONNECTIONS check does not refuse to start without it (PL703).
  void launched_argument_checks(RawJob& job) {
    if (!megatron_lm_family(job.framework) || job.launch == LaunchKind::kNone || !job.gpu_entry_point) return;
    if (!arguments_read_) {
      arguments_read_ = true;
      auto path = locate(file_.path, {"megatron/training/arguments.py", "megatron/arguments.py"}, reader_);
      if (!path) return;
      auto text = reader_.read(*path);
      if (text && !refuses_without_variable(*text, "CUDA_DEVICE_MAX_CONNECTIONS"))
        unchecked_arguments_ = *path;
    }
    if (unchecked_arguments_.empty()) return;
    Fact unchecked;
    unchecked.key = Key::kChecksCudaDeviceMaxConnections;
    unchecked.value = Value::boolean(false);
    unchecked.location = Location{unchecked_arguments_, {}};
    unchecked.origin = Origin::kFrameworkDefault;
    unchecked.spelling = unchecked_arguments_ + " (the checkout this script runs from)";
    job.facts.push_back(std::move(unchecked));
    job.notes.push_back(unchecked_arguments_ +
                        " (the checkout this script runs from) never checks "
                        "CUDA_DEVICE_MAX_CONNECTIONS");
  }

  // An environment file (a script that exports settings and launches nothing, as a benchmark's
  // config_<system>.sh, sourced before `sbatch run.sub`) configures the program that runs after it: each
  // OmegaConf config in its folder, or in conf/, configs/, config/ or src/conf/ below it, that reads one
  // of its variables as a parallel size or the cluster's size (`${oc.env:TENSOR_MODEL_PARALLEL}`) is a
  // job of this file, read with its exports. The values are located where the file exports them.
  void environment_jobs() {
    fs::path dir = fs::path(file_.path).parent_path();
    if (dir.empty()) dir = ".";
    std::vector<std::string> candidates;
    // Environment files kept in a folder of their own (configs/config_<system>.sh) set the configs of
    // the implementation around it.
    std::vector<fs::path> roots{dir};
    if (const auto name = fs::absolute(dir).lexically_normal().filename();
        name == "configs" || name == "config")
      roots.push_back(dir / "..");
    std::vector<fs::path> folders;
    for (const fs::path& root : roots)
      for (const char* sub : {"", "conf", "configs", "config", "src/conf"})
        folders.push_back((*sub ? root / sub : root).lexically_normal());
    std::sort(folders.begin(), folders.end());
    folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
    for (const fs::path& d : folders) {
      std::error_code ec;
      if (!reader_.is_directory(d.string())) continue;
      std::vector<std::string> here;
      for (fs::directory_iterator it(d, fs::directory_options::skip_permission_denied, ec), end;
           !ec && it != end && here.size() < kMaxEnvironmentConfigs; it.increment(ec)) {
        const auto ext = it->path().extension();
        if ((ext == ".yaml" || ext == ".yml") && regular_file(it->path(), reader_))
          here.push_back(it->path().lexically_normal().string());
      }
      std::sort(here.begin(), here.end());
      candidates.insert(candidates.end(), here.begin(), here.end());
    }
    for (const std::string& path : candidates) {
      auto text = reader_.read(path);
      if (!text || text->find("${") == std::string::npos) continue;
      const bool reads_ours =
          std::any_of(file_.exports.begin(), file_.exports.end(),
                      [&](const ExportedVariable& e) { return reads_variable(*text, e.name); });
      if (!reads_ours) continue;
      SourceText source(std::move(*text));
      ParsedFile parsed = parse_yaml(path, source, framework_documents(), budget_, &file_.exports);
      for (RawJob& job : parsed.jobs) {
        // Only a config whose layout or cluster size this file sets: a config that reads the environment
        // for its logging alone is another program's.
        const Fact* ours = nullptr;  // the first line of this file the config reads
        for (const Fact& f : job.facts)
          if (f.location.path == file_.path && f.location.range.valid() &&
              (is_parallel_layout_key(f.key) || f.key == Key::kNodes || f.key == Key::kGpusPerNode) &&
              (!ours || f.location.range.start < ours->location.range.start))
            ours = &f;
        if (!ours) continue;
        job.range = ours->location.range;
        // Its findings at the config's own lines name this job (they hold for this file's values).
        job.extent = {{1, 1}, {1 << 30, 1}};
        job.notes.push_back("read " + path +
                            " with the variables this file exports (its ${oc.env:...} values)");
        job.description = path + " with the environment of " + fs::path(file_.path).filename().string();
        file_.jobs.push_back(std::move(job));
      }
    }
  }

  // A config the file inherits (NeMo-RL's `defaults: parent.yaml`), and what that one inherits: its facts
  // keep their keys (it is a config, not a launch) and lie below the file's own, the farthest lowest.
  void base_config(RawJob& job, std::string relative, std::vector<Fact>& below) {
    std::vector<std::string> chain;  // nearest first
    std::string from = file_.path;
    // "tree:" a path in the framework's tree the document belongs to (its configs/models/x.yaml): its
    // folder's or one above it, up to the repository's root.
    bool in_tree = relative.starts_with("tree:");
    if (in_tree) relative = relative.substr(5);
    const bool searched_tree = in_tree;
    for (int depth = 0; depth < 8; ++depth) {
      fs::path p =
          fs::path(relative).is_absolute() ? fs::path(relative) : fs::path(from).parent_path() / relative;
      if (in_tree) {
        auto found = locate(from, {relative}, reader_);
        p = found ? fs::path(*found) : fs::path(relative);
        in_tree = false;
      }
      std::string path = p.lexically_normal().string();
      if (!regular_file(p, reader_) || std::find(chain.begin(), chain.end(), path) != chain.end() ||
          path == file_.path) {
        if (!regular_file(p, reader_)) {
          job.notes.push_back("base config " + relative + " was not found " +
                              (searched_tree && chain.empty() ? "in the folders above " : "next to ") + from +
                              "; its values are unknown");
          if (job.unread_config.empty())
            job.unread_config = "the base config " + relative + ", which was not found";
        }
        break;
      }
      chain.push_back(path);
      const ParsedFile* parsed = load(path, false);
      if (parsed->jobs.empty()) break;
      std::string next;
      for (const Word& w : parsed->jobs.front().config_files)
        if (w.text.starts_with("base:")) next = w.text.substr(5);
      if (next.empty()) break;
      from = path;
      relative = next;
    }
    std::string own_model = job.model;
    std::vector<ModelReference> own_references = job.model_references;
    complete_inherited(job, chain);
    for (const auto& path : chain) {  // the nearest config that writes the Megatron switch decides it
      const ParsedFile* parsed = load(path, false);
      if (const RawJob* same = same_role(*parsed, job); !job.megatron_on && same)
        job.megatron_on = same->megatron_on;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const ParsedFile* parsed = load(*it, false);
      if (parsed->jobs.empty()) continue;
      const RawJob* same = same_role(*parsed, job);
      if (!same) continue;
      const RawJob& base = *same;
      // The common root of a chain (NeMo-RL's examples/configs/<algo>_math_1B.yaml, 1 node of 1 GPU)
      // sizes its own example run; the recipes built on it are launched with cluster.* of their own.
      bool root = it == chain.rbegin();
      const bool sizes_cluster = std::any_of(base.facts.begin(), base.facts.end(), [](const Fact& f) {
        return f.key == Key::kNodes || f.key == Key::kGpusPerNode;
      });
      if (root && sizes_cluster) {
        job.notes.push_back("the cluster size of " + *it +
                            " (the root of the inherited configs) is not taken: the configs built on it are "
                            "launched with their own cluster settings");
      }
      for (Fact f : base.facts) {
        if ((root || job.cluster_split) && (f.key == Key::kNodes || f.key == Key::kGpusPerNode)) continue;
        f.written_at.push_back({f.location, "inherited from " + *it});
        below.push_back(std::move(f));
      }
      if (!base.model.empty()) job.model = base.model;  // the nearest config that names one wins
      if (!base.model_references.empty()) job.model_references = base.model_references;
      if (job.framework == Framework::kUnknown) job.framework = base.framework;
      job.notes.push_back("read " + *it + " (a config it inherits)");
    }
    if (!own_model.empty()) job.model = own_model;
    if (!own_references.empty()) job.model_references = std::move(own_references);
  }

  // What the config's adapter left to complete once the configs it inherits are read (a framework's split
  // of the cluster between its roles, say): the same role's state of each, nearest first.
  void complete_inherited(RawJob& job, const std::vector<std::string>& chain) {
    if (!job.inherited) return;
    std::vector<const InheritedState*> states;
    for (const auto& path : chain) {
      const RawJob* same = same_role(*load(path, false), job);
      states.push_back(same ? same->inherited.get() : nullptr);
    }
    std::shared_ptr<const InheritedState> state = job.inherited;  // the job changes under it
    state->complete(job, states, file_.path);
  }

  // A path inside a framework's own tree, as its containers install it (/opt/NeMo/..., /workspace/
  // Megatron-LM/...): what such a config holds is the framework's default configuration.
  static bool shipped_with_framework(std::string_view path) {
    for (std::string_view root : {"/NeMo/", "/nemo/", "/Megatron-LM/", "/megatron-lm/",
                                  "/NeMo-Framework-Launcher/", "/Megatron-Bridge/", "/site-packages/"})
      if (path.find(root) != std::string_view::npos) return true;
    return false;
  }

  void config(RawJob& job, const Word& ref, std::vector<Fact>& below) {
    if (ref.text.starts_with("base:")) return base_config(job, ref.text.substr(5), below);
    std::vector<std::string> candidates;
    std::string shown = ref.text;
    if (ref.text.starts_with("group:")) {
      std::string group = ref.text.substr(6);  // training/gpt3/5b
      shown = group.substr(0, group.find('/')) + "=" + group.substr(group.find('/') + 1);
      for (const char* root : {"conf/", "launcher_scripts/conf/", ""}) {
        candidates.push_back(root + group + ".yaml");
        candidates.push_back(root + group + ".yml");
      }
    } else {
      candidates.push_back(ref.text);
      if (fs::path(ref.text).extension().empty()) candidates.push_back(ref.text + ".yaml");
    }
    auto path = locate(file_.path, candidates, reader_);
    if (!path) {
      job.notes.push_back("config " + shown + " was not found next to " + file_.path +
                          ", in its checkout or the working directory; its values are unknown");
      // A config the framework ships (/opt/NeMo/examples/.../conf/megatron_gpt_config.yaml in its
      // container) holds the framework's defaults, which resolution applies; any other is unknown.
      if (job.unread_config.empty() && !shipped_with_framework(ref.text))
        job.unread_config = "the config " + shown + ", which was not found";
      return;
    }
    const ParsedFile* parsed = load(*path, false, &job.environment);
    if (parsed->jobs.empty()) return;
    const RawJob& base = parsed->jobs.front();
    for (Fact f : base.facts) {
      f.key = as_launched(f.key);  // the config a launch selects
      f.written_at.push_back({ref.location, "configuration selected here (" + shown + ")"});
      below.push_back(std::move(f));
    }
    if (job.framework == Framework::kUnknown) job.framework = base.framework;
    if (base.settings_from_checkpoint) job.settings_from_checkpoint = true;
    if (job.launch == LaunchKind::kPython && base.framework == Framework::kNemo1)
      job.launch = LaunchKind::kLightning;
    job.notes.push_back("read " + *path + " (" + shown + ")");
  }

  // The value a launch passes for the script's own option in place of its default: of the default's kind
  // (a switch that defaults to False is True when passed), where the launch writes it.
  static Fact passed_value(Fact f, const RawJob::PassedOption& o, const std::string& script) {
    const Value& d = f.value;
    Value v = Value::unknown("the launch passes " + o.option + " to " + script +
                             " (a value known only at run time)");
    if (auto b = d.as_bool(); b && d.kind() == Value::Kind::kBool) {
      v = Value::boolean(!*b);
    } else if (o.value_known && d.kind() == Value::Kind::kInt) {
      std::int64_t n = 0;
      auto [end, ec] = std::from_chars(o.value.data(), o.value.data() + o.value.size(), n);
      if (ec == std::errc() && end == o.value.data() + o.value.size()) v = Value::integer(n);
    } else if (o.value_known && d.kind() == Value::Kind::kString) {
      v = Value::string(o.value);
    }
    f.value = std::move(v);
    f.location = o.location;
    f.origin = Origin::kLauncherFlag;
    f.spelling = o.option;
    f.weak = false;
    f.weak_note.clear();
    f.written_at.clear();
    f.default_of.clear();
    return f;
  }

  void entry_script(RawJob& job, std::vector<Fact>& below) {
    auto path = locate(file_.path, {job.entry_script}, reader_);
    if (!path || *path == file_.path) return;
    // A framework's own entry point (Megatron-LM's pretrain_gpt.py inside a Megatron-LM checkout, Bridge's
    // run_recipe.py) is knowledge, not the user's configuration: its code and defaults are never read as
    // settings, so results do not depend on where parlint runs.
    // An example script a framework ships (Megatron-Bridge's examples/conversion/hf_to_megatron_generate_
    // vlm.py) is a program with an argparse of its own, read as any script is, inside the checkout or not:
    // its defaults (--etp 1) are what the launch runs with.
    const bool shipped_example =
        path->find("/examples/") != std::string::npos || path->starts_with("examples/");
    if (auto framework = framework_checkout(*path, reader_); framework && !shipped_example) {
      job.notes.push_back(*path + " is " + *framework +
                          "'s own entry point; its source is not read as settings");
      job.entry_flags = RawJob::EntryFlags::kFramework;
      return;
    }
    const ParsedFile* parsed = load(*path, true);
    job.entry_flags =
        parsed->takes_unlisted_arguments ? RawJob::EntryFlags::kOpen : RawJob::EntryFlags::kListed;
    // The script's own options (a converter's --target-tensor-model-parallel-size, flags an
    // extra_args_provider adds) are real for this launch, whatever Megatron calls its settings.
    const auto& own = parsed->defined_flags;
    std::erase_if(job.unrecognized, [&](const UnrecognizedSetting& u) {
      return u.is_flag && std::find(own.begin(), own.end(), u.spelling) != own.end();
    });
    const RawJob* base = nullptr;
    for (const RawJob& candidate : parsed->jobs) {
      if (candidate.function == (job.recipe.empty() ? "<module>" : job.recipe.name)) base = &candidate;
    }
    if (!base) return;
    for (Fact f : base->facts) {
      f.priority = std::min(f.priority, 1);
      // A value from the script's own argparse default: what this launch runs with unless it passes the
      // option, and then the launch's value (which parlint may not map onto the setting) decides.
      if (!f.default_of.empty()) {
        const RawJob::PassedOption* passed = nullptr;
        for (const auto& o : job.passed_options)
          if (o.option == f.default_of) passed = &o;  // the last one wins, as in argparse
        if (passed) {
          f = passed_value(std::move(f), *passed, job.entry_script);
        } else if (job.unread_arguments.empty()) {
          f.weak = false;  // the launch's options are all known and leave it out: the default runs
          f.weak_note.clear();
        }
      }
      below.push_back(std::move(f));
    }
    job.unrecognized.insert(job.unrecognized.end(), base->unrecognized.begin(), base->unrecognized.end());
    if (job.framework == Framework::kUnknown) job.framework = base->framework;
    job.notes.push_back("read " + *path);
  }

  ParsedFile& file_;
  const FileReader& reader_;
  WorkBudget* budget_;          // the referring file's: what it refers to is part of its cost
  ReferencedFiles* shared_;     // what the run parsed already (null: parsed here)
  PythonModuleCache* modules_;  // the Python modules the run parsed already (null: parsed here)
  std::map<std::string, std::shared_ptr<const ReferencedFiles::Parsed>> cache_;
  bool arguments_read_ = false;
  std::string unchecked_arguments_;  // the checkout's arguments.py, when it never checks the variable
};

}  // namespace

void resolve_referenced_files(ParsedFile& file, const FileReader& reader, WorkBudget* budget,
                              ReferencedFiles* shared, PythonModuleCache* modules) {
  Resolver(file, reader, budget, shared, modules).run();
}

}  // namespace parlint
