#include "lint/resolve/job.h"

#include <fmt/format.h>

#include <algorithm>

#include "lint/knowledge/hybrid_pattern.h"
#include "lint/knowledge/model_table.h"
#include "lint/knowledge/tokenizer_vocab.h"
#include "lint/resolve/checkpoint_args.h"

namespace parlint {
namespace {

Fact default_fact(Key key, Value value, std::string explanation) {
  Fact f;
  f.key = key;
  f.value = std::move(value);
  f.origin = Origin::kFrameworkDefault;
  f.spelling = std::move(explanation);
  return f;
}

// No real setting comes near 2^24 = 16,777,216 (GPUs, layers, sequence length, vocabulary, batch size).
// A larger number is taken as unknown, which also keeps every product the rules form inside 64 bits
// (a fuzzed context_parallel_size of 7.5e18 overflowed PL202's 2·CP).
constexpr std::int64_t kLargestSetting = std::int64_t{1} << 24;
}  // namespace

Job::Job(std::string path, const RawJob& raw, const LintOptions& options)
    : path_(std::move(path)),
      range_(raw.range),
      extent_(raw.extent),
      framework_(options.framework != Framework::kUnknown ? options.framework : raw.framework),
      description_(raw.description),
      conflicts_(raw.conflicts),
      launch_(raw.launch),
      under_slurm_(raw.under_slurm),
      allocates_(raw.allocates),
      trains_(raw.trains),
      under_srun_(raw.under_srun),
      gpu_entry_point_(raw.gpu_entry_point),
      arguments_complete_(raw.arguments_complete),
      whole_nodes_(raw.whole_nodes),
      shares_cluster_(raw.cluster_split),
      unrecognized_(raw.unrecognized),
      entry_script_(raw.entry_script),
      entry_flags_(raw.entry_flags),
      role_(raw.role),
      branch_(raw.branch),
      driver_traits_(raw.driver_traits),
      notes_(raw.notes),
      cluster_(options.cluster ? *options.cluster : default_cluster_profile()),
      megatron_core_(options.megatron_core),
      edits_passed_config_(raw.edits_passed_config) {
  if (megatron_core_)
    notes_.push_back("Megatron-Core " + megatron_core_->text() + " (" + megatron_core_->source +
                     "): the checks that changed between versions follow it");
  choose_cluster(raw, options);
  RecipeUse recipe = use_recipe(raw);
  std::vector<Fact> facts = recipe.facts;
  add_model_facts(raw, facts);
  facts.insert(facts.end(), raw.facts.begin(), raw.facts.end());
  take_strongest(facts);
  if (framework_ == Framework::kMegatronBridge) sync_bridge_distributed_optimizer(facts);
  sync_recipe_runner_stages();
  leave_unread_values_unknown(raw, recipe);
  take_checkpoint_args(raw);
  describes_model_ =
      get_int(Key::kNumLayers) && get_int(Key::kHiddenSize) && get_int(Key::kNumAttentionHeads);
  apply_defaults(options);
  unknown_defaults_past_unread_arguments(raw);
  derive();
}

// The cluster profile: the user's, else the one a recipe's name targets (..._b200_bf16_config), else the
// default.
void Job::choose_cluster(const RawJob& raw, const LintOptions& options) {
  // A recipe runs on the GPU its name targets unless the user chose a profile: its built-in profile, or
  // one whose memory and NVLink domain are unknown.
  if (!options.cluster && !raw.hardware.empty()) {
    chosen_cluster_ = cluster_for_gpu(raw.hardware);
    if (!chosen_cluster_) {
      chosen_cluster_ = ClusterProfile{
          raw.hardware + " (named by the recipe; no built-in profile)", 0, 0, 0, "unknown", raw.hardware};
    } else {
      chosen_cluster_->name += " (named by the recipe)";
    }
    cluster_ = *chosen_cluster_;
  } else if (options.cluster) {
    chosen_cluster_ = *options.cluster;
    cluster_from_user_ = true;
  }
}

// A named Megatron-Bridge or NeMo 2 recipe contributes its defaults and its model, below everything
// written: unless an argument it was called with, or a function its config was passed to, may have
// changed them.
Job::RecipeUse Job::use_recipe(const RawJob& raw) {
  RecipeUse use;
  // A recipe read from the user's framework source has its settings among the job's facts already.
  use.from_source = !raw.recipe.read_from.empty();
  use.found =
      raw.recipe.empty() || use.from_source ? nullptr : find_recipe(raw.recipe.name, raw.recipe.package);
  // A NeMo 2 recipe row holds the layout at the recipe's defaults: an argument it depends on
  // (peft_scheme=None) may give another one.
  use.changed_by = raw.recipe.changed_by;
  if (use.found && use.changed_by.empty())
    for (const auto& arg : raw.recipe.arguments)
      if (std::find(use.found->varies_with.begin(), use.found->varies_with.end(), arg) !=
          use.found->varies_with.end()) {
        use.changed_arg = arg;
        use.changed_by = arg;
        break;
      }
  if (use.found && use.changed_by.empty()) {
    recipe_ = use.found;
    recipe_runner_ = raw.recipe.by_runner && !use.found->is_nemo2();
    use.facts = recipe_facts(*use.found);
    // Run by a NeMo-Run executor: the recipe's num_nodes is what Lightning is told; its devices give way
    // to the processes the executor starts.
    if (raw.executor_runs_recipe) {
      std::erase_if(use.facts, [](const Fact& f) { return f.key == Key::kGpusPerNode; });
      for (Fact& f : use.facts) f.key = as_launched(f.key);
    }
    if (framework_ == Framework::kUnknown)
      framework_ = use.found->is_nemo2() ? Framework::kNemo2 : Framework::kMegatronBridge;
  }
  return use;
}

// The model's dimensions, from the built-in table when the job names a model it knows (by name, or by a
// checkpoint named like one); else a note that what the job leaves to the model is unknown.
void Job::add_model_facts(const RawJob& raw, std::vector<Fact>& facts) {
  // NeMo 2 recipes name their module after the model (llama3_70b.pretrain_recipe).
  if (recipe_) model_ = find_model(recipe_->is_nemo2() ? recipe_->module : recipe_->model);
  if (!raw.model.empty()) {
    if (const ModelInfo* model = find_model(raw.model)) {
      model_ = model;
      auto mf = model_facts(*model, model->name + " (built-in model table)");
      facts.insert(facts.end(), mf.begin(), mf.end());
    } else if (const ModelInfo* named = find_model_by_checkpoint_name(raw.model)) {
      model_ = named;
      auto mf =
          model_facts(*named, named->name + " (built-in model table, by the name of " + raw.model + ")");
      facts.insert(facts.end(), mf.begin(), mf.end());
      notes_.push_back("the model's dimensions are " + named->name + "'s from the built-in model table: " +
                       raw.model + " is named as that model or a variant of it with the same dimensions");
    } else {
      notes_.push_back(
          "the model's dimensions come from " + raw.model +
          ", which parlint does not read (a checkpoint or a Hugging Face model it does not know): "
          "what the launch leaves to it is unknown");
    }
    return;
  }
  // A checkpoint path or id the job's settings name, when it is named as a model the table knows.
  for (const ModelReference& ref : raw.model_references) {
    const ModelInfo* named = find_model_by_checkpoint_name(ref.text);
    if (!named) named = find_model(ref.text);
    if (!named) continue;
    model_ = named;
    auto mf = model_facts(*named, named->name + " (built-in model table, by the name of " + ref.text + ")");
    facts.insert(facts.end(), mf.begin(), mf.end());
    std::string at = ref.location.in_file() ? fmt::format(" (line {})", ref.location.range.start.line) : "";
    notes_.push_back("the model's dimensions are " + named->name +
                     "'s from the built-in model table: " + ref.spelling + at + " names " + ref.text +
                     ", that model or a variant of it with the " + "same dimensions");
    return;
  }
}

// The strongest spelling of each key wins; among equals, the last one written.
void Job::take_strongest(const std::vector<Fact>& facts) {
  for (const Fact& f : facts) {
    auto& slot = values_[static_cast<std::size_t>(f.key)];
    if (slot && slot->priority > f.priority) continue;
    if (f.value.kind() == Value::Kind::kNull && f.origin != Origin::kRecipeDefault) {
      slot.reset();  // `key: null` asks for the framework default
      written_[static_cast<std::size_t>(f.key)] = false;
      continue;
    }
    slot = f;
    if (auto v = slot->value.as_int(); v && (*v > kLargestSetting || *v < -kLargestSetting))
      slot->value = Value::unknown(fmt::format("{} is larger than any real setting", *v));
    written_[static_cast<std::size_t>(f.key)] = f.origin != Origin::kRecipeDefault || f.location.in_file();
  }
}

// A recipe parlint does not know, or a checkpoint the config restores (NeMo's restore_from_path), sets
// values parlint cannot see: what the file leaves to them is unknown, never the framework default (which
// would give definite, false findings).
void Job::leave_unread_values_unknown(const RawJob& raw, const RecipeUse& use) {
  bool unknown_recipe = !raw.recipe.empty() && ((!use.found && !use.from_source) || !use.changed_by.empty());
  if (raw.settings_from_checkpoint && !unknown_recipe) {
    for (std::size_t k = 0; k < static_cast<std::size_t>(Key::kGlobalBatchSize); ++k)
      if (!values_[k])
        values_[k] = default_fact(
            static_cast<Key>(k),
            Value::unknown(
                "taken from the checkpoint the job loads (restore_from_path, or the model it trains)"),
            "");
    notes_.push_back(
        "the job takes its model config from a checkpoint (restore_from_path, or the model it trains): the "
        "layout and model settings it leaves out come from there and are unknown");
  }
  if (raw.nothing_read) {
    for (std::size_t k = 0; k < static_cast<std::size_t>(Key::kNodes); ++k)
      if (!values_[k])
        values_[k] =
            default_fact(static_cast<Key>(k),
                         Value::unknown("no key of this document is a setting where parlint reads one"), "");
    notes_.push_back(
        "none of this document's keys is a setting at a place parlint reads (a framework's own layout, or no "
        "training configuration at all): its values are unknown, not defaults");
  }
  if (!raw.unread_config.empty() && !unknown_recipe) {
    for (std::size_t k = 0; k < static_cast<std::size_t>(Key::kNodes); ++k)
      if (!values_[k])
        values_[k] = default_fact(static_cast<Key>(k), Value::unknown("set by " + raw.unread_config), "");
  }
  if (unknown_recipe) {
    std::string reason =
        !use.changed_arg.empty()
            ? fmt::format(
                  "set by the recipe {}() called with {}=, which the built-in table read only at "
                  "its default",
                  raw.recipe.name, use.changed_arg)
        : use.changed_by.empty()
            ? fmt::format("set by the recipe {}, which parlint does not know", raw.recipe.name)
            : fmt::format("set by the recipe {}, then possibly changed by {}, which parlint cannot read",
                          raw.recipe.name, use.changed_by);
    for (std::size_t k = 0; k < static_cast<std::size_t>(Key::kNodes); ++k)
      if (!values_[k]) {
        Fact f = default_fact(static_cast<Key>(k), Value::unknown(reason), "");
        f.origin = Origin::kRecipeDefault;
        values_[k] = std::move(f);
      }
    notes_.push_back(
        !use.changed_arg.empty()
            ? fmt::format("recipe {}() is called with {}=, which can change its layout; the built-in table "
                          "holds it at its defaults, so the values the file does not set itself are unknown",
                          raw.recipe.name, use.changed_arg)
        : use.changed_by.empty()
            ? fmt::format("recipe {} was not found among the built-in recipes; the values it sets "
                          "are unknown",
                          raw.recipe.name)
            : fmt::format("the config of recipe {} is passed to {}, which parlint cannot read; the "
                          "values the file does not set itself are unknown",
                          raw.recipe.name, use.changed_by));
  }
}

// --use-checkpoint-args: load_args_from_checkpoint sets model arguments from the checkpoint before
// validate_args (lint/resolve/checkpoint_args.cpp cites which): those it fills or replaces are unknown
// here, never the framework's defaults or the launch's own numbers.
void Job::take_checkpoint_args(const RawJob& raw) {
  if (!raw.checkpoint_args) return;
  auto keys = checkpoint_arg_keys(framework_);
  if (keys.unwritten.empty() && keys.forced.empty()) return;
  const Word& flag = *raw.checkpoint_args;
  std::string at =
      flag.location.range.valid() ? fmt::format(" at line {}", flag.location.range.start.line) : "";
  SizesFromCheckpoint sizes = SizesFromCheckpoint::kForced;
  if (framework_ == Framework::kMegatronLM && !raw.mp_args_from_checkpoint)
    sizes = !megatron_core_                 ? SizesFromCheckpoint::kUnwritten
            : megatron_core_->before(0, 10) ? SizesFromCheckpoint::kForced
                                            : SizesFromCheckpoint::kNo;
  auto fill = [&](Key k) {
    auto& slot = values_[static_cast<std::size_t>(k)];
    if (!slot)
      slot =
          default_fact(k, Value::unknown("taken from the checkpoint (--use-checkpoint-args" + at + ")"), "");
  };
  auto replace = [&](Key k) {
    auto& slot = values_[static_cast<std::size_t>(k)];
    if (!slot)
      fill(k);
    else if (slot->value.is_known())
      slot->value =
          Value::unknown("the checkpoint's, over the one written here (--use-checkpoint-args" + at + ")");
  };
  for (Key k : keys.unwritten) fill(k);
  for (Key k : keys.forced) replace(k);
  for (Key k : keys.sizes) {
    if (sizes == SizesFromCheckpoint::kForced) replace(k);
    if (sizes == SizesFromCheckpoint::kUnwritten) fill(k);
  }
  notes_.push_back(
      fmt::format("--use-checkpoint-args{}: {} takes the model's arguments{} from the checkpoint it loads "
                  "before it checks "
                  "them; those are unknown here",
                  at, framework_display_name(framework_),
                  sizes == SizesFromCheckpoint::kForced ? " and parallel sizes"
                  : sizes == SizesFromCheckpoint::kUnwritten
                      ? " (and, in a Megatron-Core before 0.10, its parallel sizes)"
                      : ""));
}

// A launch passes words parlint cannot read where flags could stand ($EXTRA_ARGS): any default may be
// replaced by them, so none is what surely runs (DESIGN: unknown values never fire).
void Job::unknown_defaults_past_unread_arguments(const RawJob& raw) {
  if (launch_ != LaunchKind::kNone && !arguments_complete_ && !raw.unread_arguments.empty()) {
    for (auto& slot : values_)
      if (slot && slot->origin == Origin::kFrameworkDefault && !slot->location.in_file() &&
          slot->value.is_known()) {
        slot->value = Value::unknown(slot->spelling.empty()
                                         ? "a default, unless " + raw.unread_arguments + " sets it"
                                         : slot->spelling + ", unless " + raw.unread_arguments + " sets it");
      }
    notes_.push_back("the framework defaults of this launch are unknown: " + raw.unread_arguments +
                     " may set any of them");
  }
}

// Megatron-Bridge keeps the switch in both ddp and optimizer and turns both on when either is on
// (training/config.py:2101-2123@067f987df03b): `cfg.ddp.use_distributed_optimizer = False` after
// _sft_common() built an optimizer with use_distributed_optimizer=True leaves the optimizer's in force.
void Job::sync_bridge_distributed_optimizer(const std::vector<Fact>& facts) {
  auto& slot = values_[static_cast<std::size_t>(Key::kUseDistributedOptimizer)];
  if (!slot || slot->value.as_bool() != false) return;
  auto in = [](std::string_view spelling, std::string_view object) {
    return spelling.starts_with(std::string(object) + ".") ||
           spelling.find("." + std::string(object) + ".") != std::string_view::npos;
  };
  const Fact *ddp = nullptr, *optimizer = nullptr, *keyword_on = nullptr;  // the last write of each
  bool keyword = false;
  for (const Fact& f : facts) {
    if (f.key != Key::kUseDistributedOptimizer || f.priority < slot->priority) continue;
    if (in(f.spelling, "ddp")) {
      ddp = &f;
    } else if (in(f.spelling, "optimizer")) {
      optimizer = &f;
    } else {
      keyword = true;  // DistributedDataParallelConfig(use_distributed_optimizer=...), OptimizerConfig(...)
      if (f.value.as_bool() == true) keyword_on = &f;
    }
  }
  const Fact* on = nullptr;
  for (const Fact* f : {ddp, optimizer})
    if (f && f->value.as_bool() == true) on = f;
  // One side written False by name, and the other unknown: a keyword of a constructor (which object's,
  // and whether that object was replaced since, parlint does not follow) or a config built by a function
  // parlint did not read. Megatron-Bridge may well turn the distributed optimizer on.
  if (!on && (!ddp || !optimizer) && (keyword_on || !keyword)) {
    slot->value =
        Value::unknown(std::string(slot->spelling) +
                       "=False, but Megatron-Bridge turns the distributed optimizer on when the other "
                       "of ddp/optimizer has it, and parlint does not know that one");
    return;
  }
  if (!on) return;
  Fact kept = *on;
  kept.written_at.push_back(
      {slot->location, std::string(slot->spelling) +
                           "=False here; Megatron-Bridge turns it on again for both ddp "
                           "and optimizer, since the other one is True"});
  slot = std::move(kept);
}

// Megatron-Bridge's recipe runner, given -pp/-vp overrides (scripts/training/recipe_runner.py:373-427): a
// recipe without a layout builder keeps its first/last-stage layer counts only while they still fit the
// new PP; otherwise it drops them and the layers split evenly.
void Job::sync_recipe_runner_stages() {
  if (!recipe_runner_) return;
  auto slot = [&](Key k) -> FactSlot& { return values_[static_cast<std::size_t>(k)]; };
  auto by_launch = [&](Key k) {
    const auto& s = slot(k);
    return s && s->origin != Origin::kRecipeDefault && s->location.path == path_;
  };
  // A recipe with a layout builder gets a new layout for the PP and VP given on the command line, when
  // the builder has one for that pair (else it raises: PL402). Which layout is the builder's: unknown,
  // but not the even split of the layers over PP that the recipe's defaults would suggest.
  if (!recipe_->layout_builder.empty()) {
    if (!(by_launch(Key::kPipelineModelParallelSize) || by_launch(Key::kVirtualPipelineModelParallelSize)) ||
        by_launch(Key::kPipelineModelParallelLayout))
      return;
    auto pp = slot(Key::kPipelineModelParallelSize) ? slot(Key::kPipelineModelParallelSize)->value.as_int()
                                                    : std::optional<std::int64_t>(1);
    const auto& vp_slot = slot(Key::kVirtualPipelineModelParallelSize);
    auto vp = vp_slot && vp_slot->value.kind() != Value::Kind::kNull ? vp_slot->value.as_int()
                                                                     : std::optional<std::int64_t>(1);
    if (!pp || !vp) return;
    bool known_pair = std::any_of(recipe_->layout_pairs.begin(), recipe_->layout_pairs.end(),
                                  [&](const auto& p) { return p.first == *pp && p.second == *vp; });
    if (!known_pair) return;
    Fact layout =
        default_fact(Key::kPipelineModelParallelLayout,
                     Value::unknown(fmt::format("built by the recipe's {}() for PP={}, VP={} "
                                                "(run_recipe.py rebuilds it, recipe_runner.py:373-427)",
                                                recipe_->layout_builder, *pp, *vp)),
                     "");
    layout.origin = Origin::kRecipeDefault;
    slot(Key::kPipelineModelParallelLayout) = std::move(layout);
    for (Key k : {Key::kNumLayersInFirstPipelineStage, Key::kNumLayersInLastPipelineStage})
      if (slot(k) && !by_launch(k)) slot(k).reset();
    return;
  }
  if (!by_launch(Key::kPipelineModelParallelSize) || slot(Key::kPipelineModelParallelLayout)) return;
  auto& first = slot(Key::kNumLayersInFirstPipelineStage);
  auto& last = slot(Key::kNumLayersInLastPipelineStage);
  if ((!first && !last) ||
      (by_launch(Key::kNumLayersInFirstPipelineStage) && by_launch(Key::kNumLayersInLastPipelineStage)))
    return;
  auto L = get_int(Key::kNumLayers), pp = get_int(Key::kPipelineModelParallelSize);
  auto f = first ? first->value.as_int() : std::optional<std::int64_t>(0);
  auto l = last ? last->value.as_int() : std::optional<std::int64_t>(0);
  std::vector<Key> stale;
  for (Key k : {Key::kNumLayersInFirstPipelineStage, Key::kNumLayersInLastPipelineStage})
    if (slot(k) && !by_launch(k)) stale.push_back(k);
  if (!L || !pp || !f || !l) {
    for (Key k : stale)
      slot(k)->value = Value::unknown(
          "the recipe's, which run_recipe.py drops when it no longer fits the PP given on the command line");
    return;
  }
  std::int64_t middle_stages = *pp - (first ? 1 : 0) - (last ? 1 : 0), middle_layers = *L - *f - *l;
  bool fits = middle_stages >= 0 && middle_layers >= 0 && (middle_stages > 0) == (middle_layers > 0) &&
              (middle_stages == 0 || middle_layers % middle_stages == 0);
  if (fits) return;
  for (Key k : stale) {
    notes_.push_back(
        fmt::format("run_recipe.py drops the recipe's {}={}: with PP={} it no longer fits {} layers "
                    "(recipe_runner.py:396-425), and the layers split evenly",
                    key_name(k), *slot(k)->value.as_int(), *pp, *L));
    slot(k).reset();
    written_[static_cast<std::size_t>(k)] = false;
  }
}

const Fact* Job::fact(Key key) const {
  if (reads_) (*reads_)[static_cast<std::size_t>(key)] = true;
  const auto& slot = values_[static_cast<std::size_t>(key)];
  return slot ? &*slot : nullptr;
}

std::optional<std::int64_t> Job::get_int(Key key) const {
  const Fact* f = fact(key);
  return f ? f->value.as_int() : std::nullopt;
}

std::optional<bool> Job::get_bool(Key key) const {
  const Fact* f = fact(key);
  return f ? f->value.as_bool() : std::nullopt;
}

bool Job::is_written(Key key) const {
  if (reads_) (*reads_)[static_cast<std::size_t>(key)] = true;
  return written_[static_cast<std::size_t>(key)];
}

bool Job::is_moe() const {
  auto experts = get_int(Key::kNumMoeExperts);
  auto ep = get_int(Key::kExpertModelParallelSize);
  return (experts && *experts > 0) || (ep && *ep > 1);
}

std::optional<std::int64_t> Job::data_parallel() const {
  // Dense DP needs TP, PP and CP only; unknown expert sizes do not hide it.
  auto tp = get_int(Key::kTensorModelParallelSize), pp = get_int(Key::kPipelineModelParallelSize),
       cp = get_int(Key::kContextParallelSize);
  auto w = get_int(Key::kWorldSize);
  if (!tp || !pp || !cp || !w || *tp < 1 || *pp < 1 || *cp < 1) return std::nullopt;
  return data_parallel_size(MeshSizes{*tp, *pp, *cp, 1, 1}, *w);
}

bool Job::known_dense() const {
  const Fact* e = fact(Key::kNumMoeExperts);
  return e && (e->value.kind() == Value::Kind::kNull || e->value.as_int() == 0);
}

std::optional<MeshSizes> Job::mesh() const {
  auto tp = get_int(Key::kTensorModelParallelSize), pp = get_int(Key::kPipelineModelParallelSize),
       cp = get_int(Key::kContextParallelSize), ep = get_int(Key::kExpertModelParallelSize),
       etp = get_int(Key::kExpertTensorParallelSize);
  if (!tp || !pp || !cp || !ep || !etp) return std::nullopt;
  if (*tp < 1 || *pp < 1 || *cp < 1 || *ep < 1 || *etp < 1) return std::nullopt;
  return MeshSizes{*tp, *pp, *cp, *ep, *etp};
}

void Job::apply_defaults(const LintOptions& options) {
  std::string fw(framework_display_name(framework_));
  auto default_to = [&](Key key, Value v) {
    if (!fact(key)) set(default_fact(key, std::move(v), fw + " default"));
  };
  // Parallel sizes default to 1 and SP to off in every framework (reference/megatron-rules.md §8).
  default_to(Key::kTensorModelParallelSize, Value::integer(1));
  default_to(Key::kPipelineModelParallelSize, Value::integer(1));
  default_to(Key::kContextParallelSize, Value::integer(1));
  default_to(Key::kExpertModelParallelSize, Value::integer(1));
  // A framework that turns SP on wherever TP > 1 (its adapter says so).
  if (driver_traits_.sp_on_with_tp && !fact(Key::kSequenceParallel)) {
    auto tp = get_int(Key::kTensorModelParallelSize);
    set(default_fact(Key::kSequenceParallel,
                     tp ? Value::boolean(*tp > 1) : Value::unknown("on unless TP is 1"),
                     driver_traits_.name + " default (on, off at TP 1)"));
  }
  // The defaults of a framework that builds Megatron itself, as its adapter gives them.
  for (const DriverDefault& d : driver_traits_.defaults)
    if (!fact(d.key)) set(default_fact(d.key, Value::integer(d.value), d.label));
  default_to(Key::kSequenceParallel, Value::boolean(false));
  default_to(Key::kAccountForEmbeddingInPipelineSplit, Value::boolean(false));
  default_to(Key::kAccountForLossInPipelineSplit, Value::boolean(false));
  default_to(Key::kUseTpPpDpMapping, Value::boolean(false));

  // Megatron-DeepSpeed: --num-experts 1 (its default) is a dense model; DeepSpeed-MoE layers are built only
  // for counts above 1 (megatron/model/transformer.py of Megatron-DeepSpeed).
  if (framework_ == Framework::kMegatronDeepSpeed) {
    if (const Fact* e = fact(Key::kNumMoeExperts); e && e->value.as_int() == 1) {
      Fact dense = *e;
      dense.value = Value::null();
      set(std::move(dense));
    }
  }
  if (describes_model_) {
    // The model is fully described here, so what is left out has Megatron-Core's default.
    if (!fact(Key::kNumMoeExperts))
      set(default_fact(Key::kNumMoeExperts, Value::null(), fw + " default (no experts)"));
    default_to(Key::kAddBiasLinear, Value::boolean(true));
    default_to(Key::kMoeRouterTopk, Value::integer(2));
    default_to(Key::kShareEmbeddingsAndOutputWeights, Value::boolean(true));
    // Megatron-LM's MLP is GeLU unless --swiglu; ffn_hidden_size defaults to 4h, or with SwiGLU to 8h/3
    // rounded down to a multiple of 64 (megatron/training/arguments.py:1320-1329@d98e8a64ddf3).
    if (megatron_lm_family(framework_)) {
      default_to(Key::kSwiglu, Value::boolean(false));
      auto h = get_int(Key::kHiddenSize);
      auto swiglu = get_bool(Key::kSwiglu);
      if (!fact(Key::kFfnHiddenSize) && h && swiglu)
        set(default_fact(Key::kFfnHiddenSize, Value::integer(*swiglu ? (4 * *h * 2 / 3) / 64 * 64 : 4 * *h),
                         fw + (*swiglu ? " default (8/3 x hidden_size, a multiple of 64)"
                                       : " default (4 x hidden_size)")));
    }
    if (!fact(Key::kNumQueryGroups) && !megatron_lm_family(framework_)) {
      if (auto heads = get_int(Key::kNumAttentionHeads))
        set(default_fact(Key::kNumQueryGroups, Value::integer(*heads),
                         fw + " default (= num_attention_heads)"));
    }
  }

  // GPUs per node: the job's own value; else --gpus-per-node; else an explicitly chosen profile.
  if (!fact(Key::kGpusPerNode)) {
    if (options.gpus_per_node) {
      Fact f = default_fact(Key::kGpusPerNode, Value::integer(*options.gpus_per_node), "--gpus-per-node");
      f.origin = Origin::kClusterProfile;
      set(std::move(f));
    } else if (chosen_cluster_ && chosen_cluster_->gpus_per_node > 0) {
      Fact f = default_fact(Key::kGpusPerNode, Value::integer(chosen_cluster_->gpus_per_node),
                            "the " + chosen_cluster_->name + " profile");
      f.origin = Origin::kClusterProfile;
      set(std::move(f));
    }
  }
  // NeMo's trainer.num_nodes defaults to 1 (PyTorch Lightning); launches usually override it, so the
  // default is only a fallback.
  if ((framework_ == Framework::kNemo1 || framework_ == Framework::kNemo2) && launch_ == LaunchKind::kNone &&
      !fact(Key::kNodes) && is_written(Key::kGpusPerNode)) {
    Fact f = default_fact(Key::kNodes, Value::integer(1), "trainer.num_nodes default");
    f.weak = true;
    f.weak_note = "with the default trainer.num_nodes=1";
    set(std::move(f));
  }

  // Domain: an explicit choice wins; else the job's GPUs per node; else the default profile.
  if (options.nvlink_domain) {
    domain_ = {*options.nvlink_domain, fmt::format("--nvlink-domain {}", *options.nvlink_domain), nullptr};
  } else if (chosen_cluster_) {
    // 0 when the profile does not know it: no NVLink finding then.
    domain_ = {chosen_cluster_->nvlink_domain, "the " + chosen_cluster_->name + " profile", nullptr};
  } else if (auto g = get_int(Key::kGpusPerNode); g && *g > 0 && is_written(Key::kGpusPerNode)) {
    domain_ = {static_cast<int>(*g), fmt::format("{} GPUs per node", *g), fact(Key::kGpusPerNode)};
  } else if (auto p = get_int(Key::kNprocPerNode); p && *p > 0 && is_written(Key::kNprocPerNode)) {
    domain_ = {static_cast<int>(*p), fmt::format("{} processes (GPUs) per node", *p),
               fact(Key::kNprocPerNode)};
  } else {
    const ClusterProfile& def = default_cluster_profile();
    domain_ = {def.nvlink_domain, "the default " + def.name + " profile", nullptr};
  }
}

void Job::derive() {
  // Expert TP when unset: Megatron-Bridge uses 1 when EP > 1; Megatron-Core, Megatron-LM and NeMo use TP.
  if (!fact(Key::kExpertTensorParallelSize)) {
    const Fact* tp = fact(Key::kTensorModelParallelSize);
    auto ep = get_int(Key::kExpertModelParallelSize);
    if (framework_ == Framework::kMegatronBridge && ep && *ep > 1) {
      set(default_fact(Key::kExpertTensorParallelSize, Value::integer(1),
                       "Megatron-Bridge default (ETP=1 when EP>1)"));
    } else if (tp) {
      Fact f = default_fact(Key::kExpertTensorParallelSize, tp->value,
                            std::string(framework_display_name(framework_)) + " default (ETP inherits TP)");
      if (tp->location.in_file()) f.written_at.push_back({tp->location, "TP set here"});
      set(std::move(f));
    }
  }
  // A hybrid model's layer count is its pattern's (Megatron-LM arguments.py:787-797, Bridge
  // hybrid_provider.py:236-251): it stands in for a missing num_layers.
  if (const Fact* p = fact(Key::kHybridLayerPattern);
      p && p->value.kind() == Value::Kind::kString && !fact(Key::kNumLayers)) {
    auto parsed = parse_hybrid_pattern(p->value.text());
    if (parsed.pattern && parsed.pattern->layers > 0) {
      Fact f = default_fact(Key::kNumLayers, Value::integer(parsed.pattern->layers),
                            "the layer count of hybrid_layer_pattern");
      f.origin = Origin::kDerived;
      if (p->location.in_file()) f.written_at.push_back({p->location, "pattern set here"});
      set(std::move(f));
    }
  }
  // Megatron-LM builds the vocabulary from its tokenizer arguments: a known tokenizer gives vocab_size.
  if (megatron_lm_family(framework_) && !fact(Key::kVocabSize))
    if (const Fact* type = fact(Key::kTokenizerType); type && type->value.kind() == Value::Kind::kString) {
      auto text = [&](Key k) {
        const Fact* f = fact(k);
        return f && f->value.kind() == Value::Kind::kString ? f->value.text() : std::string();
      };
      if (auto vocab = megatron_tokenizer_vocab(type->value.text(), text(Key::kTokenizerModel),
                                                text(Key::kVocabFile))) {
        Fact f = default_fact(Key::kVocabSize, Value::integer(vocab->size), vocab->why + ", before padding");
        f.origin = Origin::kDerived;
        if (type->location.in_file()) f.written_at.push_back({type->location, "tokenizer set here"});
        set(std::move(f));
      }
    }
  derive_world_size();
}

// World size, counted the way the launch starts its processes (DESIGN "Jobs and world size").
void Job::derive_world_size() {
  if (fact(Key::kWorldSize) && launch_ != LaunchKind::kSrunNative) return;
  // torchrun --nproc_per_node=gpu starts one worker per visible GPU: under an allocation that states its
  // GPUs per node (#SBATCH --gres=gpu:8, --gpus-per-node=8), that many.
  if (launch_ == LaunchKind::kTorchrun)
    if (const Fact* nproc = fact(Key::kNprocPerNode);
        nproc && nproc->value.is_unknown() &&
        nproc->value.unknown_reason().starts_with("one process per visible GPU"))
      if (const Fact* gpus = fact(Key::kGpusPerNode);
          gpus && gpus->value.as_int() && gpus->location.in_file()) {
        Fact n = *nproc;
        n.value = Value::integer(*gpus->value.as_int());
        n.origin = Origin::kDerived;
        n.spelling = nproc->spelling + "=gpu";
        n.written_at.push_back({gpus->location, gpus->spelling + " gives each node's GPUs"});
        set(std::move(n));
      }
  Key count_key = Key::kNodes, per_node_key = Key::kGpusPerNode;
  std::int64_t count_default = 0, per_node_default = 0;  // 0: no default, unknown when missing
  std::string count_default_text, per_node_default_text;
  switch (launch_) {
    case LaunchKind::kNone:
      break;
    case LaunchKind::kTorchrun:
      count_key = Key::kNnodes;
      per_node_key = Key::kNprocPerNode;
      count_default = per_node_default = 1;  // torchrun's own defaults
      count_default_text = "torchrun's default --nnodes=1";
      per_node_default_text = "torchrun's default --nproc_per_node=1";
      break;
    case LaunchKind::kSrunNative:
      if (fact(Key::kWorldSize)) return;  // srun --ntasks gives the total directly
      per_node_key = Key::kNtasksPerNode;
      per_node_default = 1;  // SLURM starts one task per node unless told otherwise
      per_node_default_text = "SLURM's default of one task per node";
      break;
    case LaunchKind::kLightning:
      count_key = fact(Key::kNnodes) || !fact(Key::kNodes) ? Key::kNnodes : Key::kNodes;
      per_node_key =
          fact(Key::kNprocPerNode) || !fact(Key::kGpusPerNode) ? Key::kNprocPerNode : Key::kGpusPerNode;
      count_default = 1;
      count_default_text = "the default trainer.num_nodes=1";
      break;
    case LaunchKind::kPython:
      return;  // one process unless something else starts more: unknown
  }
  auto get_or_default = [&](Key key, std::int64_t def, const std::string& text) -> const Fact* {
    if (const Fact* f = fact(key)) return f;
    if (def == 0) return nullptr;
    Fact d = default_fact(key, Value::integer(def), text);
    if (launch_ == LaunchKind::kLightning && key == Key::kNnodes) {
      d.weak = true;
      d.weak_note = "with the default trainer.num_nodes=1";
    }
    set(std::move(d));
    return fact(key);
  };
  const Fact* count = get_or_default(count_key, count_default, count_default_text);
  const Fact* per_node = get_or_default(per_node_key, per_node_default, per_node_default_text);
  Fact w;
  w.key = Key::kWorldSize;
  w.origin = Origin::kDerived;
  if (!count || !per_node) {
    if (launch_ == LaunchKind::kNone && !count && !per_node) return;
    const char* missing = !count ? (count_key == Key::kNodes ? "the node count" : "the launcher's node count")
                                 : "the processes per node";
    w.value = Value::unknown(std::string(missing) + " is not known");
    if (launch_ != LaunchKind::kNone) set(std::move(w));
    return;
  }
  auto n = count->value.as_int(), g = per_node->value.as_int();
  if (n && g) {
    w.value = Value::integer(*n * *g);
  } else {
    const Fact* u = !n ? count : per_node;
    w.value = Value::unknown(u->value.is_unknown() ? u->spelling + ": " + u->value.unknown_reason()
                                                   : u->spelling + " is not a number");
  }
  w.location = count->location.in_file() ? count->location : per_node->location;
  // A default already spells its value ("torchrun's default --nnodes=1"): not "--nnodes=1=1".
  auto spelled = [](const Fact* f) {
    return f->spelling.find('=') != std::string::npos
               ? f->spelling
               : f->spelling + (f->value_apart ? " " : "=") + f->value.to_string();
  };
  w.spelling = spelled(count) + " × " + spelled(per_node);
  w.weak = count->weak || per_node->weak;
  w.weak_note = count->weak ? count->weak_note : per_node->weak_note;
  if (count->location.in_file()) w.written_at.push_back({count->location, "node count set here"});
  for (const auto& r : count->written_at) w.written_at.push_back(r);
  if (per_node->location.in_file())
    w.written_at.push_back({per_node->location, per_node_key == Key::kGpusPerNode
                                                    ? "GPUs per node set here"
                                                    : "processes per node set here"});
  for (const auto& r : per_node->written_at) w.written_at.push_back(r);
  set(std::move(w));
}

}  // namespace parlint
