#pragma once
// The interface between a syntax parser and the frameworks that drive Megatron-Core their own way. A
// parser that finds a launch (the shell's python/torchrun/srun commands) asks the registry which framework
// claims it; the adapter (parsers/frameworks/, one file per framework) answers with the jobs the framework
// builds from it, as typed settings, and completes each job with what the framework does: how its
// processes start, its world, its batch terms, its name. The parser knows syntax; the adapter knows the
// framework; neither parses text the other wrote.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/parsed_file.h"
#include "lint/model/word.h"
#include "parsers/args/training_args.h"

namespace parlint {

// The files a launch names (a DeepSpeed config), as the parser that read the launch can reach them: a
// file the script itself wrote (a here-document), else beside the script, else as written.
class LaunchFiles {
 public:
  virtual ~LaunchFiles() = default;
  // The file's text, or nullopt when it cannot be read; `shown` is how findings and plan name it.
  virtual std::optional<std::string> read(const std::string& path, std::string& shown) const = 0;
};

// The file name of an entry point: its last path component (chatlearn/entrypoint.py -> entrypoint.py).
inline std::string_view entry_file_name(std::string_view entry) {
  auto slash = entry.rfind('/');
  return slash == std::string_view::npos ? entry : entry.substr(slash + 1);
}

// A launch as the parser read it.
struct LaunchCommand {
  std::string_view program;  // the command that starts it when that command is a framework's own CLI
  std::string_view entry;    // the script, module or subcommand it runs, as written
  bool module = false;       // python -m ENTRY
  LaunchKind kind = LaunchKind::kPython;  // how the parser saw its processes start
  std::span<const Word> args;             // the words after the entry point
  const LaunchFiles* files = nullptr;     // null: the files it names cannot be read
};

// One job a framework builds from a launch.
struct RoleLaunch {
  std::string role;       // "actor", "critic", ...; empty when the launch is one job
  TrainingArgs settings;  // what the job sets, as the argument reader read it
  // Settings of the role that the framework does not apply: each against the value that runs (PL802).
  std::vector<Conflict> ignored;
  // How each setting was written, by where it was written, where the job names it otherwise.
  std::vector<std::pair<SourceRange, std::string>> spelled;
  std::optional<Word> model;  // the model the job loads (a Hugging Face id or checkpoint path)
  std::vector<ModelReference> model_references;  // keys that may name it (ModelReference)
  std::string entry;  // the entry point as the framework runs it, when not as written ("sft")
};

// A framework's own command that starts the ranks the way torchrun does (ms-swift's `megatron sft`): the
// shell reads it as a launcher whose process counts come from two environment variables.
struct RankLauncher {
  std::string_view program;                   // "megatron"
  std::vector<std::string_view> subcommands;  // the ones that train ("sft", "pt", "rlhf")
  std::string_view nproc_variable;            // "NPROC_PER_NODE": processes per node
  std::string_view nnodes_variable;           // "NNODES": nodes
  std::string_view without_nproc;             // what runs when only the node count is set here
  std::string_view without_either;            // what runs when neither is set here
};

class LaunchAdapter {
 public:
  virtual ~LaunchAdapter() = default;
  virtual std::string_view name() const = 0;  // "verl", "ChatLearn", ...
  // Whether the launch is this framework's.
  virtual bool claims(const LaunchCommand& launch) const = 0;
  // The jobs the framework builds from a launch it claims; none when it runs no Megatron (a Hugging Face
  // trainer, ms-swift's own trainers).
  virtual std::vector<RoleLaunch> roles(const LaunchCommand& launch) const = 0;
  // True when the framework places its workers itself (Ray): the launcher's and the allocation's process
  // counts are not the job's, and trainer.num_nodes stays what it says rather than the launcher's count.
  virtual bool places_its_workers() const { return false; }
  // The framework's part of a job the parser has assembled from a role: framework, launch kind, world,
  // defaults, description, notes.
  virtual void complete(const LaunchCommand& launch, const RoleLaunch& role, RawJob& job) const = 0;
  // The framework's own command that starts ranks, if it has one.
  virtual const RankLauncher* rank_launcher() const { return nullptr; }
};

// The adapters a parser asks, in the order they are asked: the first that claims a launch has it.
class LaunchAdapters {
 public:
  LaunchAdapters() = default;
  explicit LaunchAdapters(std::vector<const LaunchAdapter*> adapters) : adapters_(std::move(adapters)) {}
  const LaunchAdapter* claimant(const LaunchCommand& launch) const {
    for (const LaunchAdapter* a : adapters_)
      if (a->claims(launch)) return a;
    return nullptr;
  }
  std::span<const LaunchAdapter* const> all() const { return adapters_; }
  // The framework command named `program` that starts ranks; null when no adapter has one.
  const RankLauncher* rank_launcher(std::string_view program) const {
    for (const LaunchAdapter* a : adapters_)
      if (const RankLauncher* r = a->rank_launcher(); r && r->program == program) return r;
    return nullptr;
  }

 private:
  std::vector<const LaunchAdapter*> adapters_;
};

}  // namespace parlint
