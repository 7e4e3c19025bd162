#pragma once
// What a parser hands to the core: the jobs a file describes (as raw facts) and its syntax errors.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/driver_traits.h"
#include "lint/model/fact.h"
#include "lint/model/framework.h"
#include "lint/model/inherited_state.h"
#include "lint/model/size_expression.h"
#include "lint/model/word.h"

namespace parlint {

// How the processes of a launch are started; it decides how the world size is counted.
enum class LaunchKind {
  kNone,        // a config object (YAML document, Python function): world = nodes x GPUs per node
  kTorchrun,    // torchrun / torch.distributed.run|launch: world = nnodes x nproc_per_node
  kSrunNative,  // srun starts the training script itself: world = nodes x ntasks-per-node (or ntasks)
  kLightning,   // NeMo (PyTorch Lightning) spawns its own ranks: world = trainer.num_nodes x trainer.devices
  kPython,      // a plain `python train.py` outside SLURM and without a launcher
};

// Which of Megatron-Bridge's two recipe packages a name is looked up in. Several names are defined in
// both (qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config): an import names its package; the launchers
// (run_recipe.py --recipe, train.sh, parlint's own --model) take the benchmark definition when
// perf_recipes exports the name (scripts/training/recipe_runner.py:228-253@067f987df03b).
enum class RecipePackage { kLauncher, kLibrary, kBenchmark };

// Which of a name's definitions a lookup takes (nullptr where a package has none): an import its package's,
// else the other's; a launcher the benchmark one when it is defined under that very name (canonical
// benchmark names, scripts/training/recipe_metadata.py:175-180), else the library's.
template <class T>
const T* choose_definition(const T* library, const T* benchmark, bool benchmark_by_own_name,
                           RecipePackage where) {
  switch (where) {
    case RecipePackage::kLibrary:
      return library ? library : benchmark;
    case RecipePackage::kBenchmark:
      return benchmark ? benchmark : library;
    case RecipePackage::kLauncher:
      break;
  }
  return benchmark && benchmark_by_own_name ? benchmark : (library ? library : benchmark);
}

// A variable a script exports and leaves set for what runs after it (a benchmark's config_<system>.sh
// that the user sources before submitting): configs that read the environment (`${oc.env:NAME}`) take it.
struct ExportedVariable {
  std::string name;
  std::string value;           // as the script leaves it; meaningless when unknown
  std::string unknown_reason;  // non-empty: only known at run time
  Location location;           // the assignment
};

// A key whose value may name a model (a role's checkpoint `models.policy.load=/ckpt/Qwen3-235B-A22B`, a
// block's `hf_checkpoint`): the model's dimensions are read from it only when the built-in model table
// knows the name; any other path says nothing.
struct ModelReference {
  std::string spelling;  // "models.policy.load"
  std::string text;      // "/ckpt/Qwen3-235B-A22B"
  Location location;
};

// The library recipe a job starts from (Megatron-Bridge's llama3_8b_pretrain_config, NeMo 2's
// llama3_70b.pretrain_recipe), as the launch or the code calls it.
struct RecipeCall {
  std::string name;                    // "" when the job starts from none
  std::string changed_by;              // a function parlint cannot read that was given the recipe's config
  std::vector<std::string> arguments;  // keywords of the call that are not settings (peft_scheme)
  RecipePackage package = RecipePackage::kLauncher;
  // Megatron-Bridge's own runner (run_recipe.py) starts it, which rebuilds its pipeline layout after
  // -pp/-vp overrides; a project's script that takes --recipe may do anything with the layout.
  bool by_runner = false;
  std::string read_from =
      {};  // the framework source file its settings were read from (not the built-in table)
  bool empty() const { return name.empty(); }
};

struct RawJob {
  SourceRange range;                          // the launch command or config document this job describes
  SourceRange extent;                         // all of its text when longer than `range` (a function's body)
  Framework framework = Framework::kUnknown;  // what the syntax says (NeMo 1 YAML, Megatron-LM flags...)
  std::string description;                    // "YAML document", "torchrun launch", ...
  // In file order. For each key the fact with the highest priority wins, the last among equals.
  std::vector<Fact> facts;
  std::vector<Conflict> conflicts;
  LaunchKind launch = LaunchKind::kNone;
  bool under_slurm = false;  // inside an sbatch script or started by srun
  // The script makes its allocation itself (#SBATCH directives); without them an srun runs inside one
  // made elsewhere (salloc, or sbatch options on the command line), whose resources parlint cannot see.
  bool allocates = false;
  bool under_srun = false;       // started by srun (one copy per task)
  bool gpu_entry_point = false;  // a training entry point (GPU work), not a CPU helper
  // It trains (false: it runs the model to generate, serve, evaluate or convert it, where training-only
  // checks and advice do not apply).
  bool trains = true;
  // A launch whose every argument is known, or is the value of the flag before it: no flag can hide in
  // an expansion parlint cannot read, so what the launch leaves out is the framework's default.
  bool arguments_complete = false;
  // When a run-time word may hold flags: what it is ("an argument known only at run time (line 4: ...)");
  // the framework defaults of such a launch are unknown, since the word may set any of them.
  std::string unread_arguments;
  std::optional<Location> whole_nodes;  // the allocation asks for whole nodes (--exclusive) here
  // A config the job builds on that could not be read ("the config training=gpt3/999b, which was not
  // found"): what the job leaves to it is unknown, never a default.
  std::string unread_config;
  // A document none of whose keys is a setting where parlint reads them: its values are unknown, never
  // defaults.
  bool nothing_read = false;
  bool settings_from_checkpoint = false;  // restores a checkpoint that supplies what is left out
  // Megatron-LM's --use-checkpoint-args (with --load): the model arguments come from the checkpoint, some
  // over what the launch writes; with --use-mp-args-from-checkpoint-args the parallel sizes too.
  std::optional<Word> checkpoint_args;
  bool mp_args_from_checkpoint = false;
  std::vector<UnrecognizedSetting> unrecognized;  // flags and override keys that map onto nothing
  std::string entry_script;  // the Python file a launch runs, as written ("train.py"), if any
  // The options the launch passes its entry script, as written ("--etp"), with the word after each (or
  // after its '='), so that the script's own argparse defaults give way to them.
  struct PassedOption {
    std::string option;
    std::string value;  // empty when none follows
    bool value_known = false;
    Location location;  // the option and its value
  };
  std::vector<PassedOption> passed_options;
  // Whether the options that file takes are known (PL801 says "unknown" only then): set when resolution
  // looks for the file.
  enum class EntryFlags {
    kNotRead,    // not found, or known only at run time
    kFramework,  // a framework's own entry point in its checkout: the framework's catalogue is its set
    kListed,     // read, and its argparse lists every option it takes
    kOpen,       // read, but it takes options it does not list (parse_known_args, sys.argv)
  } entry_flags = EntryFlags::kNotRead;
  RecipeCall recipe;                  // the library recipe the job starts from, if any
  std::string function;               // the Python function it was read from; "<module>" for the top level
  bool executor_runs_recipe = false;  // a NeMo-Run executor starts the processes, not the recipe's trainer
  // A function that edits a configuration its caller passes in (`def _apply_common(cfg)`): what it does
  // not set is whatever the caller set, not a default.
  bool edits_passed_config = false;
  std::string model;  // a model the job names (--hf-model, AutoBridge.from_hf_pretrained("..."))
  // Paths and ids that may name its model, nearest first; read when `model` is empty (ModelReference).
  std::vector<ModelReference> model_references;
  std::string hardware;             // the GPU a recipe's name targets ("b200" in ..._8gpu_b200_bf16_config)
  std::optional<bool> megatron_on;  // a config's own switch of its Megatron backend, when it writes one
  std::vector<Word> config_files;   // config files the launch selects (see TrainingArgs::config_files)
  // What the launch's environment exports, for the configs it selects that read it (${oc.env:TP}); filled
  // only for a launch that selects a config.
  std::vector<ExportedVariable> environment;
  std::vector<std::string> notes;  // what cross-file resolution read or could not find, for `plan`
  // The job trains on its share of a cluster it splits with others (its adapter computed the share): an
  // inherited cluster size is not its GPU count.
  bool cluster_split = false;
  // What its adapter completes once the configs it inherits are read (inherited_state.h).
  std::shared_ptr<const InheritedState> inherited;
  DriverTraits driver_traits;  // what that framework does with the settings (its adapter says)
  // One of several jobs a framework builds from one launch or document ("actor", "critic", "value
  // model"): its findings name it.
  std::string role;
  // The branch that chose the launch string this job runs ("the branch at line 12 (if ...)"): its
  // findings name it.
  std::string branch;
};

// A name assigned a literal string (shell assignment, export, YAML scalar): where secrets hide.
struct LiteralAssignment {
  std::string name;
  std::string value;
  Location location;  // the value
};

struct SyntaxError {
  SourceRange range;
  std::string message;
  std::string help;  // empty: the generic "fix the syntax here"
};

// Lines of a valid file that parlint's grammar could not read (PL903): settings there are not seen.
struct UnreadRegion {
  SourceRange range;
  std::string reason;     // why: "valid bash that parlint's grammar does not read", "a Jinja template"
  std::string help = {};  // what the user can do; empty: write the settings there in a plainer form
  // Nothing of a document was read (it is over a bound of parlint's): a warning, not an info, so that CI
  // does not pass a configuration whose settings were never seen.
  bool nothing_read = false;
};

// A mistake in a script's form that silently changes what runs (PL108, PL109).
struct ScriptFormNote {
  enum class Kind { kLateSbatchDirective, kBrokenContinuation };
  Kind kind;
  SourceRange range;   // the directive, or the backslash and what follows it
  std::string text;    // the directive ("#SBATCH --nodes=4"), or the next line's first words
  int other_line = 0;  // the first command's line, or the line that no longer continues
};

struct ParsedFile {
  std::string path;
  std::vector<RawJob> jobs;
  std::vector<SyntaxError> errors;
  std::vector<UnreadRegion> unread;
  std::vector<ScriptFormNote> script_form;
  std::vector<SizeExpression> size_expressions;
  std::vector<LiteralAssignment> literals;
  // What a shell script without a launch exports (an environment file that configures what runs later).
  std::vector<ExportedVariable> exports;
  // Options the file's own argparse defines (a Python entry point's add_argument("--x") calls).
  std::vector<std::string> defined_flags;
  bool takes_unlisted_arguments = false;  // parse_known_args, REMAINDER, sys.argv: its flag set is open
};

}  // namespace parlint
