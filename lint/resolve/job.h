#pragma once
// A job: the resolved settings one training launch (or one config object) would see, after
// precedence, framework defaults, and the cluster profile. Rules read jobs and nothing else.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "lint/knowledge/cluster_profile.h"
#include "lint/knowledge/core_version.h"
#include "lint/knowledge/mesh.h"
#include "lint/knowledge/model_table.h"
#include "lint/model/fact.h"
#include "lint/model/framework.h"
#include "lint/model/parsed_file.h"
#include "lint/resolve/fact_slot.h"

namespace parlint {

// The path of a job given as `parlint plan` options (--tp 16 --gpus-per-node 8): its settings are located
// in the options, written out as one line, so that every rule reads them as written settings.
inline constexpr std::string_view kCommandLinePath = "<command line>";

// What the user chose for this run (command line or configuration).
struct LintOptions {
  std::optional<ClusterProfile> cluster;      // chosen explicitly (--cluster or configuration)
  std::optional<int> gpus_per_node;           // --gpus-per-node
  std::optional<int> nvlink_domain;           // --nvlink-domain
  Framework framework = Framework::kUnknown;  // kUnknown = auto
  std::optional<CoreVersion> megatron_core;   // declared or found; nullopt: the newest semantics
};

// The NVLink domain a job runs in, and why parlint believes so (DESIGN "NVLink domain").
struct NvlinkDomain {
  int size = 8;
  std::string source;          // "the gb200-nvl72 profile", "--nvlink-domain 72", "8 GPUs per node"
  const Fact* from = nullptr;  // the job's GPUs-per-node setting when that decided it
};

class Job {
 public:
  Job(std::string path, const RawJob& raw, const LintOptions& options);
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  const std::string& path() const { return path_; }
  const SourceRange& range() const { return range_; }
  // All of the job's text: a recipe function from `def` to its last line (range() is where it starts).
  // Empty unless the parser knows it (recipe functions).
  const SourceRange& extent() const { return extent_; }
  Framework framework() const { return framework_; }
  // The Megatron-Core version the job runs, when declared or found (rules follow the newest otherwise).
  const std::optional<CoreVersion>& megatron_core() const { return megatron_core_; }
  // The built-in recipe the job starts from (nullptr: none, or one read from the framework source), and
  // whether a Megatron-Bridge launcher runs it (run_recipe.py --recipe, which rebuilds its pipeline
  // layout after -pp/-vp overrides).
  const RecipeInfo* recipe() const { return recipe_; }
  bool recipe_runner() const { return recipe_runner_; }
  // The built-in model the job names (its recipe's model, or a model named on the command line or in the
  // file), nullptr when none.
  const ModelInfo* model() const { return model_; }
  // What the job leaves out is the framework's default: a configuration file or object that builds on no
  // recipe and is not a helper editing a configuration passed in. A launch command never is (a flag may
  // hide in an expansion parlint cannot read).
  bool leaves_defaults() const { return launch_ == LaunchKind::kNone && !recipe_ && !edits_passed_config_; }
  // What the job leaves out is the framework's or its recipe's known value: a config that leaves
  // defaults, or a launch whose every argument parlint read (nothing hidden in $EXTRA_ARGS).
  bool defaults_hold() const {
    return leaves_defaults() || (launch_ != LaunchKind::kNone && arguments_complete_);
  }
  // The fact for `key` when its value can be relied on: written in a file, a recipe's table value, or a
  // default that defaults_hold() says is what runs.
  const Fact* reliable_fact(Key key) const {
    const Fact* f = fact(key);
    if (!f || !f->value.is_known()) return nullptr;
    return f->location.in_file() || f->origin == Origin::kRecipeDefault || defaults_hold() ? f : nullptr;
  }
  const std::string& description() const { return description_; }

  // The value that wins for `key`: written in a file, a framework default, or derived. nullptr when
  // the key is not set and has no known default.
  const Fact* fact(Key key) const;
  std::optional<std::int64_t> get_int(Key key) const;
  std::optional<bool> get_bool(Key key) const;
  bool is_written(Key key) const;  // set in an input file (not a default)
  // The fact when the value is written in one of the job's files (not a default, not a table's value).
  const Fact* fact_in_file(Key key) const {
    const Fact* f = fact(key);
    return f && f->location.in_file() ? f : nullptr;
  }

  // The configuration states the whole model (layers, hidden size, heads), so a field it leaves out
  // has the framework's default (DESIGN "Known defaults").
  bool describes_model() const { return describes_model_; }
  // num_moe_experts > 0 or EP > 1 (ETP inherited from TP alone does not make a job MoE).
  bool is_moe() const;
  // The model is known to have no experts (num_moe_experts null or 0 in a described or table model).
  bool known_dense() const;
  // TP, PP, CP, EP and effective ETP when all are known.
  std::optional<MeshSizes> mesh() const;
  // Dense DP = W / (TP·PP·CP) when the world size and the mesh are known and W divides evenly.
  std::optional<std::int64_t> data_parallel() const;
  const NvlinkDomain& nvlink_domain() const { return domain_; }
  const ClusterProfile& cluster() const { return cluster_; }
  // The profile was chosen (--cluster, the configuration, or the GPU a recipe's name targets), not the
  // default one: checks that hold on some GPUs only fire on a chosen profile.
  bool cluster_chosen() const { return chosen_cluster_.has_value(); }
  // The profile the user chose (--cluster or the configuration), nullptr otherwise: what the nodes
  // really hold, not a guess from a recipe's name.
  const ClusterProfile* user_cluster() const { return cluster_from_user_ ? &*chosen_cluster_ : nullptr; }
  const std::vector<Conflict>& conflicts() const { return conflicts_; }
  // How the launch starts its processes (kNone for a config object).
  LaunchKind launch() const { return launch_; }
  bool under_slurm() const { return under_slurm_; }
  // The script's own #SBATCH directives make its allocation (RawJob::allocates).
  bool allocates() const { return allocates_; }
  bool under_srun() const { return under_srun_; }
  bool gpu_entry_point() const { return gpu_entry_point_; }
  // It trains the model (RawJob::trains): training-only checks and advice apply.
  bool trains() const { return trains_; }
  // Where the allocation asks for whole nodes (SLURM --exclusive), if it does.
  const std::optional<Location>& whole_nodes() const { return whole_nodes_; }
  // It trains on its share of a cluster it splits with other roles (RawJob::cluster_split): its world is
  // what the others leave, not nodes x GPUs per node of a cluster of its own.
  bool shares_cluster() const { return shares_cluster_; }
  const std::vector<UnrecognizedSetting>& unrecognized() const { return unrecognized_; }
  // The Python file a launch runs, as written ("pretrain_gpt.py"); empty for config objects.
  const std::string& entry_script() const { return entry_script_; }
  // Whether the options the entry script takes are known (RawJob::EntryFlags).
  RawJob::EntryFlags entry_flags() const { return entry_flags_; }
  const std::vector<std::string>& notes() const { return notes_; }
  const std::string& role() const { return role_; }
  const std::string& branch() const { return branch_; }
  const DriverTraits& driver_traits() const { return driver_traits_; }

  // The keys asked for (fact, get_int, get_bool, is_written and what is derived from them) while `log` is
  // set: what a rule reads, checked against the keys it declares (RuleInfo::reads). Null stops recording.
  using KeyReads = std::array<bool, kKeyCount>;
  void record_reads(KeyReads* log) const { reads_ = log; }
  // The fact for `key` without counting it as read: for wording only (which syntax a help line is
  // written in), never for whether a rule fires.
  const Fact* fact_for_wording(Key key) const {
    const auto& slot = values_[static_cast<std::size_t>(key)];
    return slot && slot->location.in_file() ? &*slot : nullptr;
  }

 private:
  void set(Fact fact) { values_[static_cast<std::size_t>(fact.key)] = std::move(fact); }
  // What a recipe the job names contributes, and why it may not (an argument or a function that may
  // change what the built-in table holds).
  struct RecipeUse {
    const RecipeInfo* found = nullptr;
    bool from_source = false;  // read from the user's framework source: among the job's facts already
    std::string changed_by, changed_arg;
    std::vector<Fact> facts;
  };
  void choose_cluster(const RawJob& raw, const LintOptions& options);
  RecipeUse use_recipe(const RawJob& raw);
  void add_model_facts(const RawJob& raw, std::vector<Fact>& facts);
  void take_strongest(const std::vector<Fact>& facts);
  void leave_unread_values_unknown(const RawJob& raw, const RecipeUse& use);
  void take_checkpoint_args(const RawJob& raw);
  void unknown_defaults_past_unread_arguments(const RawJob& raw);
  void apply_defaults(const LintOptions& options);
  void sync_bridge_distributed_optimizer(const std::vector<Fact>& facts);
  void sync_recipe_runner_stages();
  void derive();
  void derive_world_size();

  std::string path_;
  SourceRange range_;
  SourceRange extent_;
  Framework framework_;
  std::string description_;
  std::array<FactSlot, kKeyCount> values_;
  std::array<bool, kKeyCount> written_{};
  std::vector<Conflict> conflicts_;
  LaunchKind launch_ = LaunchKind::kNone;
  bool under_slurm_ = false, allocates_ = false, trains_ = true, under_srun_ = false,
       gpu_entry_point_ = false, arguments_complete_ = false;
  std::optional<Location> whole_nodes_;
  bool shares_cluster_ = false;
  std::vector<UnrecognizedSetting> unrecognized_;
  std::string entry_script_;
  RawJob::EntryFlags entry_flags_ = RawJob::EntryFlags::kNotRead;
  std::string role_;
  std::string branch_;
  DriverTraits driver_traits_;
  std::vector<std::string> notes_;
  bool describes_model_ = false;
  ClusterProfile cluster_;
  std::optional<CoreVersion> megatron_core_;
  const RecipeInfo* recipe_ = nullptr;
  const ModelInfo* model_ = nullptr;
  bool recipe_runner_ = false;
  bool edits_passed_config_ = false;
  std::optional<ClusterProfile> chosen_cluster_;  // --cluster, or the GPU a recipe's name targets
  bool cluster_from_user_ = false;
  NvlinkDomain domain_;
  mutable KeyReads* reads_ = nullptr;
};

}  // namespace parlint
