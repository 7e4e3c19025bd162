#include "parsers/yaml/yaml_parser.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>

#include "lint/model/setting_list.h"
#include "parsers/adapter/document_adapter.h"
#include "parsers/yaml/omegaconf.h"

namespace parlint {

// A key that makes the model config come from a .nemo checkpoint, with the file's `model` section
// merged on top: NeMo-Aligner's pretrained_checkpoint.restore_from_path (and a reward model's
// rm_model_file), which every one of its trainers loads through load_and_override_model_config
// (nemo_aligner/utils/utils.py:134-152, examples/nlp/gpt/train_gpt_dpo.py:51@af2b3bd96ad7) even when
// the file leaves it null for the launch to fill in; a restore_from_path the launch must give (`???`,
// NeMo 1's fine-tuning configs, merged by merge_cfg_with); and any restore_from_path set to a path.
// Not an adapter's (peft.restore_from_path) or a dataset's.
bool restores_checkpoint_config(const std::vector<std::string>& path, std::string_view value) {
  if (path.empty()) return false;
  const std::string& leaf = path.back();
  if (leaf != "restore_from_path" && leaf != "rm_model_file") return false;
  for (const auto& part : path)
    if (part == "peft" || part == "data" || part.ends_with("_ds")) return false;
  if (path.size() == 2 && path[0] == "pretrained_checkpoint") return true;
  if (leaf == "rm_model_file" && path.size() == 1) return true;
  if (leaf != "restore_from_path") return false;
  return value != "null" && !value.empty() && value != "~";
}

namespace {

// Bound on nodes visited per document, counting every alias expansion (real configs have a few thousand): an
// alias bomb ("billion laughs") stops here instead of exhausting memory.
constexpr std::size_t kMaxNodeVisits = 200'000;

// Whether the text defines a YAML anchor (`&name` where a value or an item starts), without which no alias
// can expand a document: an `&` inside a word (`R&D`) is not one.
bool has_anchor(std::string_view text) {
  for (std::size_t i = text.find('&'); i != std::string_view::npos; i = text.find('&', i + 1)) {
    char before = i == 0 ? '\n' : text[i - 1];
    bool starts =
        before == ' ' || before == '\t' || before == '\n' || before == '[' || before == '{' || before == ',';
    if (starts && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\n') return true;
  }
  return false;
}
// What a node visit charges the file's work budget,
constexpr std::uint64_t kVisitUnits = 250;
constexpr std::uint64_t kByteUnits = 16;  // and per byte of text parsed

struct Entry {
  std::vector<std::string> path;  // components, dotted keys already split
  YAML::Node node;                // a scalar or a sequence
  Location location;              // the value
  bool from_merge = false;        // came in through `<<: *anchor`
  std::size_t mapping_id = 0;     // which mapping wrote it, for duplicate-key detection
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

void split_dotted(std::string_view key, std::vector<std::string>& out) {
  // A key starting with "--" is a Megatron flag and may not be split; neither may a quoted URL-like key.
  if (key.starts_with("--")) {
    out.emplace_back(key);
    return;
  }
  std::size_t begin = 0;
  while (true) {
    std::size_t dot = key.find('.', begin);
    out.emplace_back(key.substr(begin, dot == std::string_view::npos ? dot : dot - begin));
    if (dot == std::string_view::npos) break;
    begin = dot + 1;
  }
}

class YamlWalker {
 public:
  YamlWalker(std::string_view path, const SourceText& source, int first_line, WorkBudget& budget)
      : path_(path), source_(source), first_line_(first_line), budget_(budget) {}

  bool walk_document(const YAML::Node& root) {
    std::vector<std::string> prefix;
    walk(root, prefix, false);
    return !exhausted_;
  }
  std::vector<Entry>& entries() { return entries_; }
  // Why walk_document stopped early.
  enum class Stop { kNone, kValues, kDepth, kBudget };
  Stop stop() const { return stop_; }

  // Names given literal strings, where secrets hide (the same observation the shell and Python parsers
  // make): `env_vars: {HF_TOKEN: ...}`, and `NAME=value` items of lists such as ENV_VARS.
  void add_literals(std::vector<LiteralAssignment>& out) const {
    for (const Entry& e : entries_) {
      if (e.from_merge || e.path.empty()) continue;
      if (e.node.IsScalar()) {
        out.push_back({e.path.back(), e.node.Scalar(), e.location});
        continue;
      }
      if (!e.node.IsSequence()) continue;
      for (const auto& item : e.node) {
        if (!item.IsScalar()) continue;
        const std::string& text = item.Scalar();
        auto eq = text.find('=');
        if (eq == std::string::npos || eq == 0 || text.find(' ') < eq) continue;
        out.push_back({text.substr(0, eq), text.substr(eq + 1), value_location(item.Mark())});
      }
    }
  }

 private:
  // The extent of the scalar starting at `mark`: quoted strings to their closing quote, plain scalars
  // to a comment or the end of the line (or a flow indicator inside [] / {}).
  Location value_location(const YAML::Mark& mark) const {
    if (mark.line < 0) return {std::string(path_), {}};
    int line = mark.line + first_line_ + 1;
    std::string_view text = source_.line(line);
    std::size_t b = std::min<std::size_t>(static_cast<std::size_t>(mark.column), text.size());
    std::size_t e = b;
    if (e < text.size() && (text[e] == '"' || text[e] == '\'')) {
      char q = text[e++];
      while (e < text.size() && text[e] != q) e += (q == '"' && text[e] == '\\') ? 2 : 1;
      e = std::min(e + 1, text.size());
    } else if (e < text.size() && (text[e] == '[' || text[e] == '{')) {
      int depth = 0;
      for (; e < text.size(); ++e) {
        if (text[e] == '[' || text[e] == '{') ++depth;
        if (text[e] == ']' || text[e] == '}') {
          if (--depth == 0) {
            ++e;
            break;
          }
        }
      }
    } else {
      bool in_flow = false;
      for (std::size_t i = 0; i < b; ++i) in_flow |= text[i] == '[' || text[i] == '{';
      while (e < text.size()) {
        if (text[e] == '#' && e > b && (text[e - 1] == ' ' || text[e - 1] == '\t')) break;
        if (in_flow && (text[e] == ',' || text[e] == ']' || text[e] == '}')) break;
        ++e;
      }
      while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
    }
    if (e == b) e = std::min(b + 1, text.size());
    return {std::string(path_), {source_.position(line, b), source_.position(line, e)}};
  }

  bool budget() {
    if (exhausted_) return false;
    if (++visits_ > kMaxNodeVisits)
      stop_ = Stop::kValues;
    else if (!budget_.spend(kVisitUnits))
      stop_ = Stop::kBudget;
    exhausted_ = stop_ != Stop::kNone;
    return !exhausted_;
  }

  void walk(const YAML::Node& node, std::vector<std::string>& prefix, bool from_merge) {
    if (!budget()) return;
    switch (node.Type()) {
      case YAML::NodeType::Map:
        walk_map(node, prefix, from_merge);
        break;
      case YAML::NodeType::Sequence:
      case YAML::NodeType::Scalar:
      case YAML::NodeType::Null:
        if (!prefix.empty())
          entries_.push_back({prefix, node, value_location(node.Mark()), from_merge, current_mapping_});
        break;
      case YAML::NodeType::Undefined:
        break;
    }
  }

  void walk_map(const YAML::Node& map, std::vector<std::string>& prefix, bool from_merge) {
    // A mapping that merges itself (`base: &b {<<: *b}`) is a cycle: it recursed until the stack
    // overflowed (found by fuzz_yaml). Skip a mapping already being walked; bound the depth too.
    for (const auto& a : active_)
      if (a.is(map)) return;
    if (active_.size() >= kMaxMapDepth) {
      exhausted_ = true;
      stop_ = Stop::kDepth;
      return;
    }
    active_.push_back(map);
    walk_map_entries(map, prefix, from_merge);
    active_.pop_back();
  }

  void walk_map_entries(const YAML::Node& map, std::vector<std::string>& prefix, bool from_merge) {
    // Copy the pairs out first: iterating yaml-cpp maps through `it->` proxies trips GCC 12's
    // dangling-pointer analysis, and the copies are cheap handles.
    std::vector<std::pair<YAML::Node, YAML::Node>> pairs;
    for (const auto& kv : map) pairs.emplace_back(kv.first, kv.second);
    // Merge keys first, so that the mapping's own keys override what they bring in.
    for (const auto& [key, value] : pairs) {
      if (exhausted_) return;
      if (!key.IsScalar() || key.Scalar() != "<<") continue;
      if (value.IsSequence()) {
        for (const auto& m : value) walk(m, prefix, true);
      } else {
        walk(value, prefix, true);
      }
    }
    std::size_t id = ++mapping_counter_;
    for (const auto& [key, value] : pairs) {
      if (exhausted_) return;
      if (!key.IsScalar() || key.Scalar() == "<<") continue;
      std::size_t depth = prefix.size();
      split_dotted(key.Scalar(), prefix);
      std::size_t saved = current_mapping_;
      current_mapping_ = id;
      if (value.IsNull() && value.Mark().line < 0) {
        // `key:` with nothing after it: point at the key.
        Location loc = value_location(key.Mark());
        entries_.push_back({prefix, value, loc, from_merge, id});
      } else {
        walk(value, prefix, from_merge);
      }
      current_mapping_ = saved;
      prefix.resize(depth);
    }
  }

  std::string_view path_;
  const SourceText& source_;
  int first_line_;  // of the document's part, added to its marks
  WorkBudget& budget_;
  std::vector<Entry> entries_;
  std::size_t visits_ = 0;
  bool exhausted_ = false;
  Stop stop_ = Stop::kNone;
  std::vector<YAML::Node> active_;  // mappings being walked, outermost first
  static constexpr std::size_t kMaxMapDepth = 512;
  std::size_t mapping_counter_ = 0;
  std::size_t current_mapping_ = 0;
};

Framework detect_framework(const std::vector<Entry>& entries) {
  bool trainer = false, model = false, strategy = false, bridge = false, flags = false;
  for (const auto& e : entries) {
    std::size_t i = (e.path.size() > 1 && (e.path[0] == "training" || e.path[0] == "fine_tuning")) ? 1 : 0;
    const std::string& top = e.path[i];
    if (e.path.back().starts_with("--")) flags = true;
    if (top == "trainer") {
      trainer = true;
      if (e.path.size() > i + 1 && e.path[i + 1] == "strategy") strategy = true;
    }
    if (top == "model") model = true;
    if (top == "dataset" || top == "train" || top == "ddp" || top == "dist" || top == "comm_overlap")
      bridge = true;
  }
  if (flags) return Framework::kMegatronLM;
  if (strategy) return Framework::kNemo2;
  if (bridge && model) return Framework::kMegatronBridge;
  if (trainer && model) return Framework::kNemo1;
  return Framework::kUnknown;
}

Value typed_value(const Value& v, KeyType type, bool inverted) {
  Value out = v;
  if (type == KeyType::kBool && v.kind() == Value::Kind::kString) {
    const std::string& s = v.text();
    if (s == "yes" || s == "on") out = Value::boolean(true);
    if (s == "no" || s == "off") out = Value::boolean(false);
  }
  if (inverted && out.as_bool()) out = Value::boolean(!*out.as_bool());
  return out;
}

// A document's keys as the framework adapters are shown them.
std::vector<DriverKey> driver_keys(std::vector<Entry>& entries) {
  std::vector<DriverKey> keys;
  keys.reserve(entries.size());
  for (Entry& e : entries) {
    keys.push_back({&e.path, e.node.IsScalar() ? e.node.Scalar() : "", e.location});
    if (e.node.IsSequence())
      for (const auto& item : e.node)
        if (item.IsScalar()) keys.back().items.push_back(item.Scalar());
  }
  return keys;
}

// Sections that repeat a layout for bookkeeping, not to set it (NeMo's exp_manager.checkpoint_callback_params
// names .nemo files after the TP it is told; loggers record the run's settings).
bool in_bookkeeping_section(const std::vector<std::string>& path) {
  for (const std::string& part : path)
    if (part == "exp_manager" || part == "checkpoint_callback_params" || part == "logger" ||
        part == "loggers" || part == "callbacks" || part == "wandb" || part == "tensorboard")
      return true;
  return false;
}

class DocumentExtractor {
 public:
  DocumentExtractor(std::vector<Entry>& entries, const DocumentAdapters& adapters,
                    const std::vector<ExportedVariable>* environment = nullptr)
      : entries_(entries), adapters_(adapters), environment_(environment) {
    for (std::size_t i = 0; i < entries_.size(); ++i) by_path_[join(entries_[i].path)] = i;
    for (const Entry& e : entries_) read_paths_.push_back(&e.path);
  }

  // nullopt: the document configures another backend (a driver framework with Megatron off).
  // `built`: the document's keys as the adapters are shown them, when the caller built them for these
  // very entries (and no adapter has marked them yet).
  std::optional<RawJob> extract(SourceRange range, std::vector<DriverKey>* built = nullptr) {
    RawJob job;
    job.range = range;
    job.framework = detect_framework(entries_);
    job.description = "YAML document";
    // A framework that drives Megatron-Core under keys of its own (parsers/frameworks) says what each
    // key is: the setting it is read as, a key of its own, a key not in effect.
    std::vector<DriverKey> own;
    if (!built) own = driver_keys(entries_);
    std::vector<DriverKey>& keys = built ? *built : own;
    std::vector<bool> skip(entries_.size(), false), quiet(entries_.size(), false);
    std::vector<Fact> computed;                           // what the framework computes from several keys
    std::map<std::size_t, const DriverKey*> not_applied;  // entries the framework never applies
    bool claimed = false;                                 // a framework's adapter reads the document
    if (auto driver = adapters_.read(keys)) {
      claimed = true;
      if (driver->not_megatron) return std::nullopt;
      job.framework = driver->framework;
      job.description = driver->name;
      job.megatron_on = driver->megatron_on;
      job.model = driver->model;
      job.model_references = driver->model_references;
      for (const std::string& preset : driver->presets) {
        Word base;
        base.text = "base:" + preset;
        base.location = entries_.front().location;
        job.config_files.push_back(std::move(base));
      }
      if (!driver->unread_presets.empty() && job.unread_config.empty())
        job.unread_config = "the " + driver->unread_presets.front() + ", which parlint cannot read";
      if (!driver->base.empty()) {
        Word base;
        base.text = "base:" + driver->base;
        base.location = entries_.front().location;
        job.config_files.push_back(std::move(base));
      }
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!keys[i].not_applied.empty()) not_applied.emplace(i, &keys[i]);
        skip[i] = keys[i].own_key || keys[i].dropped;
        quiet[i] = keys[i].quiet;
        if (!keys[i].read_as.empty()) read_paths_[i] = &keys[i].read_as;
      }
      job.cluster_split = driver->world_unknown;
      job.driver_traits = driver->traits;
      if (driver->from_checkpoint) job.settings_from_checkpoint = true;
      job.inherited = driver->inherited;
      computed = std::move(driver->facts);
      job.notes.insert(job.notes.end(), driver->notes.begin(), driver->notes.end());
    }
    // NeMo 1 / NeMo-Aligner configs that restore a .nemo checkpoint take what they leave out from it.
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const Entry& e = entries_[i];
      if ((e.node.IsScalar() || e.node.IsNull()) &&
          restores_checkpoint_config(*read_paths_[i],
                                     e.node.IsNull() ? std::string("null") : e.node.Scalar()))
        job.settings_from_checkpoint = true;
    }
    OmegaConfResolver resolver([this](std::string_view p) { return lookup(p); }, environment_);
    // A key twice in one document: the later one wins (PyYAML; OmegaConf refuses the file). A value
    // brought in by a merge key is overridden, not in conflict.
    SettingList settings;
    std::vector<Conflict> ignored_settings;
    std::vector<std::size_t> unplaced;  // a setting's own name at a path no reader places
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const Entry& e = entries_[i];
      if (skip[i]) continue;
      const std::vector<std::string>& path = *read_paths_[i];  // as the framework reads it
      auto match = match_config_path(path);
      if (!match && quiet[i]) continue;
      if (!match && path.size() > 1 && match_setting_name(path.back()) && !in_bookkeeping_section(path))
        unplaced.push_back(i);
      if (!match) {
        // Lookalikes of settings (PL801 decides which): Megatron flags as keys, and keys in sections.
        const std::string& leaf = path.back();
        job.unrecognized.push_back(
            {leaf.starts_with("--") ? leaf : join(path), e.location, leaf.starts_with("--")});
        continue;
      }
      Fact fact;
      fact.key = match->key;
      fact.location = e.location;
      fact.origin = path.back().starts_with("--") ? Origin::kMegatronFlag : Origin::kYaml;
      fact.spelling = join(path);
      fact.priority = match->priority;
      fact.value = typed_value(node_value(e, resolver, fact), key_type(match->key), match->inverted);
      if (auto ignored = not_applied.find(i); ignored != not_applied.end()) {
        // Written, never applied: PL802 says so where it is written; the job runs without it.
        Conflict c;
        c.winner.key = fact.key;
        c.winner.value = Value::null();
        c.winner.spelling = ignored->second->runs;
        c.loser = std::move(fact);
        c.not_applied = ignored->second->not_applied;
        c.fix = ignored->second->fix;
        ignored_settings.push_back(std::move(c));
        continue;
      }
      settings.add(std::move(fact),
                   e.from_merge ? SettingList::Source::kInherited : SettingList::Source::kWritten);
    }
    job.conflicts = settings.take_conflicts();
    job.conflicts.insert(job.conflicts.end(), ignored_settings.begin(), ignored_settings.end());
    job.facts = settings.take_facts();
    job.facts.insert(job.facts.end(), computed.begin(), computed.end());
    // Nothing here is a setting where a framework parlint reads it: the document is no configuration
    // parlint understands, so none of its values is a default (DESIGN: what was not read is unknown).
    if (job.facts.empty() && !claimed) job.nothing_read = true;
    // A setting's name under a prefix no reader knows (modules.pre_trainer.overrides.
    // tensor_model_parallel_size, actor.model.sequence_parallel): its value is whatever the program that
    // reads it makes of it, not the default.
    read_layout_blocks(unplaced, resolver, claimed, job);
    const bool placed_nothing = job.facts.empty();
    for (std::size_t i : unplaced) {
      Key key = match_setting_name(read_paths_[i]->back())->key;
      bool have =
          std::any_of(job.facts.begin(), job.facts.end(), [&](const Fact& f) { return f.key == key; });
      if (have) continue;
      Fact f;
      f.key = key;
      f.location = entries_[i].location;
      f.origin = Origin::kYaml;
      f.spelling = join(*read_paths_[i]);
      f.priority = 0;
      f.value = Value::unknown("written where parlint does not read it as a setting");
      job.facts.push_back(std::move(f));
    }
    // Everything the document sets is in its layout blocks: the blocks are its jobs.
    if (!blocks_.empty() && placed_nothing && !claimed) drop_document_job_ = true;
    return job;
  }

  // The layout blocks found by extract(): mappings at a path no reader places that hold a layout.
  std::vector<RawJob>& layout_blocks() { return blocks_; }
  // Whether the document's own job adds nothing to its layout blocks.
  bool only_blocks() const { return drop_document_job_; }

 private:
  std::optional<OmegaConfResolver::Target> lookup(std::string_view dotted) const {
    auto it = by_path_.find(std::string(dotted));
    if (it == by_path_.end()) {
      // NeMo-Framework-Launcher configs refer to their own keys through the package (`training.`).
      auto dot = dotted.find('.');
      if (dot != std::string_view::npos) it = by_path_.find(std::string(dotted.substr(dot + 1)));
    }
    if (it == by_path_.end() || !entries_[it->second].node.IsScalar()) return std::nullopt;
    const Entry& e = entries_[it->second];
    return OmegaConfResolver::Target{e.node.Scalar(), e.node.Tag() == "!", e.location,
                                     join(*read_paths_[it->second])};
  }

  Value node_value(const Entry& e, OmegaConfResolver& resolver, Fact& fact) {
    if (e.node.IsNull()) return Value::null();
    if (e.node.IsSequence()) {
      std::vector<Value> items;
      for (const auto& item : e.node) {
        if (!item.IsScalar()) return Value::unknown("a list of non-scalar values");
        items.push_back(scalar_value(item.Scalar(), item.Tag() == "!"));
      }
      return Value::list(std::move(items));
    }
    const std::string& raw = e.node.Scalar();
    bool quoted = e.node.Tag() == "!";
    if (!OmegaConfResolver::has_interpolation(raw)) return scalar_value(raw, quoted);
    InterpolationResult r = resolver.resolve(raw, fact.spelling);
    if (!r.environment.empty()) {
      // Read from the launch's environment: the value is written where the variable is exported, and
      // this key only reads it.
      fact.written_at.push_back({e.location, "read as " + fact.spelling + " by " + e.location.path +
                                                 ", line " + std::to_string(e.location.range.start.line)});
      fact.location = r.environment.front();
      std::erase_if(r.via, [&](const Location& l) {
        return l.path == fact.location.path && l.range == fact.location.range;
      });
    }
    for (const Location& via : r.via) fact.written_at.push_back({via, "value written here"});
    if (!r.weak_note.empty()) {
      fact.weak = true;
      fact.weak_note = std::move(r.weak_note);
    }
    return r.value;
  }

  // Keys in a layout block, beside it or above it that may name the model it trains (`actor.model.path`,
  // `hf_checkpoint`, `load`), nearest first: the model table reads them only when it knows the name.
  std::vector<ModelReference> model_references_near(const std::vector<std::string>& block,
                                                    OmegaConfResolver& resolver) const {
    static constexpr std::string_view kNames[] = {"hf_checkpoint",
                                                  "pretrained_checkpoint",
                                                  "hf_model_path",
                                                  "pretrained_model_name_or_path",
                                                  "model_name_or_path",
                                                  "model_path",
                                                  "model_name",
                                                  "pretrained",
                                                  "load",
                                                  "path"};
    std::vector<ModelReference> out;
    for (std::size_t depth = block.size() + 1; depth-- > 0 && out.size() < 8;) {
      std::string base = join(std::vector<std::string>(block.begin(), block.begin() + depth));
      for (std::string_view sub : {"", "model"}) {
        std::string prefix = base;
        if (!sub.empty()) prefix += (prefix.empty() ? "" : ".") + std::string(sub);
        for (std::string_view name : kNames) {
          std::string dotted = prefix + (prefix.empty() ? "" : ".") + std::string(name);
          auto it = by_path_.find(dotted);
          if (it == by_path_.end()) continue;
          const Entry& e = entries_[it->second];
          if (!e.node.IsScalar() || e.node.Scalar().empty()) continue;
          std::string text = e.node.Scalar();
          if (OmegaConfResolver::has_interpolation(text)) {
            InterpolationResult r = resolver.resolve(text, dotted);
            if (r.value.kind() != Value::Kind::kString) continue;
            text = r.value.text();
          }
          out.push_back(ModelReference{dotted, std::move(text), e.location});
        }
      }
    }
    return out;
  }

  // A mapping at a path no reader places (modules.pre_trainer.overrides, actor.model,
  // strategy_args.strategy_config) that holds two or more of Megatron-Core's layout settings is a layout
  // of its own, named by its path: the checks that need only the block run on it. What the block leaves
  // out is the program's, unknown; what it writes is read as Megatron-Core reads it, by a program parlint
  // does not know, so a finding at it is at most a warning that names the block.
  void read_layout_blocks(const std::vector<std::size_t>& unplaced, OmegaConfResolver& resolver, bool claimed,
                          const RawJob& document) {
    in_block_.assign(entries_.size(), false);
    if (claimed || unplaced.empty()) return;
    std::map<std::vector<std::string>, std::vector<std::size_t>> by_parent;
    for (std::size_t i : unplaced) {
      std::vector<std::string> parent(read_paths_[i]->begin(), read_paths_[i]->end() - 1);
      by_parent[std::move(parent)].push_back(i);
    }
    for (const auto& [parent, members] : by_parent) {
      std::set<Key> keys;
      for (std::size_t i : members) keys.insert(match_setting_name(read_paths_[i]->back())->key);
      // A parallel size beside another layout setting (SP, another size, or the layer count).
      const auto layout_keys = std::count_if(
          keys.begin(), keys.end(), [](Key k) { return is_parallel_layout_key(k) || k == Key::kNumLayers; });
      const bool layout = layout_keys >= 2 && std::any_of(keys.begin(), keys.end(), [](Key k) {
                            return is_parallel_layout_key(k) && k != Key::kSequenceParallel;
                          });
      if (!layout || blocks_.size() >= kMaxLayoutBlocks) continue;
      const std::string name = join(parent);
      RawJob block;
      block.range = entries_[members.front()].location.range;
      block.framework = Framework::kUnknown;
      block.description = "layout block " + name;
      block.model = document.model;
      if (block.model.empty()) block.model_references = model_references_near(parent, resolver);
      SettingList settings;
      for (std::size_t i : members) {
        const Entry& e = entries_[i];
        Fact fact;
        const KeyMatch match = *match_setting_name(read_paths_[i]->back());
        fact.key = match.key;
        fact.location = e.location;
        fact.origin = Origin::kYaml;
        fact.spelling = join(*read_paths_[i]);
        fact.value = typed_value(node_value(e, resolver, fact), key_type(fact.key), match.inverted);
        if (!fact.weak) {
          fact.weak = true;
          fact.weak_note = "read as the layout block " + name + ", whose program parlint does not know";
        }
        settings.add(std::move(fact), SettingList::Source::kWritten);
        in_block_[i] = true;
      }
      block.conflicts = settings.take_conflicts();
      block.facts = settings.take_facts();
      // The parallel sizes and model dimensions the block leaves out are its program's (the model may come
      // from a file it names): unknown. The pipeline split's own switches keep Megatron-Core's defaults.
      for (Key k : {Key::kTensorModelParallelSize,
                    Key::kPipelineModelParallelSize,
                    Key::kContextParallelSize,
                    Key::kExpertModelParallelSize,
                    Key::kExpertTensorParallelSize,
                    Key::kVirtualPipelineModelParallelSize,
                    Key::kSequenceParallel,
                    Key::kNumLayers,
                    Key::kHiddenSize,
                    Key::kFfnHiddenSize,
                    Key::kNumAttentionHeads,
                    Key::kNumQueryGroups,
                    Key::kKvChannels,
                    Key::kNumMoeExperts,
                    Key::kMoeRouterTopk,
                    Key::kMoeFfnHiddenSize,
                    Key::kVocabSize,
                    Key::kSeqLength,
                    Key::kGlobalBatchSize,
                    Key::kMicroBatchSize,
                    Key::kHybridLayerPattern,
                    Key::kMtpNumLayers,
                    Key::kUseDistributedOptimizer}) {
        if (keys.count(k)) continue;
        Fact f;
        f.key = k;
        f.origin = Origin::kYaml;
        f.priority = -1;  // below a model the block names (its checkpoint's dimensions, from the model table)
        f.value = Value::unknown("set by the program that reads " + name + " (not known to parlint)");
        block.facts.push_back(std::move(f));
      }
      // Frameworks that drive Megatron-Core often turn SP off at TP 1 themselves: not said of a program
      // parlint does not know.
      block.driver_traits.turns_sp_off_at_tp1 = true;
      block.notes.push_back(name +
                            " holds layout settings at a place no reader of parlint knows: read as a layout "
                            "of its own; what it leaves out is unknown");
      blocks_.push_back(std::move(block));
    }
  }

  static constexpr std::size_t kMaxLayoutBlocks = 64;
  std::vector<RawJob> blocks_;
  std::vector<bool> in_block_;
  bool drop_document_job_ = false;
  std::vector<Entry>& entries_;
  const DocumentAdapters& adapters_;
  const std::vector<ExportedVariable>* environment_;
  std::unordered_map<std::string, std::size_t> by_path_;
  // Each entry's path as it is read: as written, or as the framework that reads the document says.
  std::vector<const std::vector<std::string>*> read_paths_;
};

SyntaxError yaml_error(const SourceText& source, const YAML::Mark& mark, const std::string& msg) {
  int line = mark.line >= 0 ? mark.line + 1 : 1;
  line = std::min(std::max(line, 1), std::max(source.line_count(), 1));
  auto col = static_cast<std::size_t>(std::max(mark.column, 0));
  SourcePosition start = source.position(line, col);
  SourcePosition end = source.position(line, col + 1);
  if (end == start) end.column = start.column + 1;
  return {{start, end}, msg, ""};
}

// The lines a document's entries cover.
SourceRange document_range(const std::vector<Entry>& entries) {
  SourceRange range;
  range.start = entries.front().location.range.start;
  range.end = entries.back().location.range.end;
  for (const auto& e : entries) {
    if (e.location.range.valid()) {
      range.start = std::min(range.start, e.location.range.start);
      range.end = std::max(range.end, e.location.range.end);
    }
  }
  return range;
}

// Several sections of Megatron-LM flags in one document (Megatron-LM's functional tests: MODEL_ARGS,
// MODEL_ARGS_2, ...) are several runs: one job each, sharing the other sections. A section merged into
// others (`BASE: &base` ... `<<: *base`) is their base, not a run. `is_flag_section` is filled for lookups
// per entry (a list search made it sections x entries).
std::vector<std::string> flag_sections_of(const std::vector<Entry>& entries,
                                          std::set<std::string>& is_flag_section) {
  std::vector<std::string> flag_sections;
  for (const auto& e : entries)
    if (e.path.size() == 2 && e.path[1].starts_with("--") && is_flag_section.insert(e.path[0]).second)
      flag_sections.push_back(e.path[0]);
  if (flag_sections.size() > 1) {
    std::multimap<SourcePosition, const std::string*> merged_at;  // where merged values were written
    for (const auto& e : entries)
      if (e.from_merge && !e.path.empty()) merged_at.emplace(e.location.range.start, &e.path[0]);
    std::set<std::string> bases;
    for (const auto& e : entries) {
      if (e.from_merge || e.path.size() != 2) continue;
      auto [lo, hi] = merged_at.equal_range(e.location.range.start);
      for (auto it = lo; it != hi; ++it)
        if (*it->second != e.path[0]) bases.insert(e.path[0]);
    }
    std::erase_if(flag_sections, [&](const std::string& section) { return bases.count(section) > 0; });
    for (const auto& b : bases) is_flag_section.erase(b);
  }
  return flag_sections;
}

// The jobs of a document that holds several (a framework's roles), as the framework that reads it splits
// it: false when no framework splits it.
bool read_roles(std::vector<Entry>& entries, std::vector<DriverKey>& keys, const SourceRange& range,
                const DocumentAdapters& adapters, ParsedFile& out,
                const std::vector<ExportedVariable>* environment) {
  std::vector<DocumentRole> roles = adapters.roles(keys);
  if (roles.empty()) return false;
  for (const DocumentRole& role : roles) {
    std::vector<Entry> run;
    run.reserve(role.keys.size());
    for (const DocumentRole::Key& k : role.keys) {
      Entry e = entries[k.index];
      if (!k.path.empty()) e.path = k.path;
      if (k.value_from) e.node = entries[*k.value_from].node;
      run.push_back(std::move(e));
    }
    DocumentExtractor extractor(run, adapters, environment);
    auto job = extractor.extract(range);
    if (!job) continue;
    if (!role.description.empty()) job->description = role.description;
    if (!role.role.empty()) job->role = role.role;
    if (!role.generates) job->driver_traits.rollout.reset();
    out.jobs.push_back(std::move(*job));
  }
  return true;
}

// One run per section of flags: each reads the entries outside every flag section and its own section's,
// in file order (the entries are split once: walking all of them per section made it sections x entries).
void read_flag_sections(const std::vector<Entry>& entries, const std::vector<std::string>& flag_sections,
                        const std::set<std::string>& is_flag_section, const SourceRange& range,
                        const DocumentAdapters& adapters, ParsedFile& out,
                        const std::vector<ExportedVariable>* environment) {
  std::vector<std::size_t> shared;
  std::map<std::string, std::vector<std::size_t>> by_section;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    if (e.path.size() > 1 && is_flag_section.count(e.path[0]))
      by_section[e.path[0]].push_back(k);
    else
      shared.push_back(k);
  }
  for (const auto& section : flag_sections) {
    std::vector<Entry> run;
    SourceRange run_range;
    std::vector<std::size_t> order;
    const auto& mine = by_section[section];
    std::merge(shared.begin(), shared.end(), mine.begin(), mine.end(), std::back_inserter(order));
    for (std::size_t k : order) {
      const Entry& e = entries[k];
      run.push_back(e);
      if (e.path[0] == section && e.location.range.valid()) {
        if (!run_range.valid() || e.location.range.start < run_range.start)
          run_range.start = e.location.range.start;
        if (!run_range.valid() || run_range.end < e.location.range.end) run_range.end = e.location.range.end;
      }
    }
    DocumentExtractor extractor(run, adapters, environment);
    auto extracted = extractor.extract(run_range.valid() ? run_range : range);
    if (!extracted) continue;
    RawJob job = std::move(*extracted);
    job.description = "YAML document, " + section;
    out.jobs.push_back(std::move(job));
  }
}

// The jobs of one document: a framework's roles, one run per section of flags, or the document as one.
void read_document(std::vector<Entry>& entries, const DocumentAdapters& adapters, ParsedFile& out,
                   const std::vector<ExportedVariable>* environment) {
  SourceRange range = document_range(entries);
  std::vector<DriverKey> keys = driver_keys(entries);
  if (read_roles(entries, keys, range, adapters, out, environment)) return;
  std::set<std::string> is_flag_section;
  std::vector<std::string> flag_sections = flag_sections_of(entries, is_flag_section);
  if (flag_sections.size() <= 1) {
    DocumentExtractor extractor(entries, adapters, environment);
    auto job = extractor.extract(range, &keys);
    if (job && !extractor.only_blocks()) out.jobs.push_back(std::move(*job));
    for (RawJob& block : extractor.layout_blocks()) out.jobs.push_back(std::move(block));
    return;
  }
  read_flag_sections(entries, flag_sections, is_flag_section, range, adapters, out, environment);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> hydra_defaults(const SourceText& source) {
  std::vector<std::pair<std::string, std::string>> out;
  try {
    YAML::Node root = YAML::Load(std::string(source.text()));
    if (!root.IsMap() || !root["defaults"] || !root["defaults"].IsSequence()) return out;
    for (const auto& item : root["defaults"]) {
      if (!item.IsMap() || item.size() != 1) continue;
      auto kv = *item.begin();
      if (!kv.first.IsScalar() || !kv.second.IsScalar()) continue;
      std::string group = kv.first.Scalar(), choice = kv.second.Scalar();
      if (group.find(' ') != std::string::npos || group.find('@') != std::string::npos || choice == "null")
        continue;
      out.emplace_back(group, choice);
    }
  } catch (const YAML::Exception&) {
  }
  return out;
}

// The documents of a stream, each loaded on its own. yaml-cpp's LoadAll can spin on malformed input,
// producing documents without consuming text (a 623-byte file took minutes: found by fuzzing), so the
// stream is split at `---` / `...` lines here and each part is loaded with YAML::Load. Each part is
// loaded alone and its marks are shifted by the lines before it (every part starts a line, so columns
// stay): a copy of the whole text per part, other parts blanked, made the cost documents x size.
constexpr std::size_t kMaxDocuments = 256;

struct Document {
  YAML::Node node;
  int first_line = 0;  // 0-based line of the file where the part starts (added to its marks)
  int lines = 0;       // in the part
};

std::vector<Document> load_documents(std::string_view text, bool& truncated) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size();) {
    std::size_t nl = text.find('\n', i);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(i, end - i);
    bool marker = (line.starts_with("---") || line.starts_with("...")) &&
                  (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
    if (marker && i > 0) starts.push_back(i);
    i = end + 1;
  }
  truncated = starts.size() > kMaxDocuments;
  if (truncated) starts.resize(kMaxDocuments);
  std::vector<Document> documents;
  int line = 0;
  for (std::size_t d = 0; d < starts.size(); ++d) {
    std::size_t begin = starts[d], end = d + 1 < starts.size() ? starts[d + 1] : text.size();
    if (d > 0) line += static_cast<int>(std::count(text.begin() + starts[d - 1], text.begin() + begin, '\n'));
    YAML::Node node;
    try {
      node = YAML::Load(std::string(text.substr(begin, end - begin)));
    } catch (YAML::Exception& e) {
      if (e.mark.line >= 0) e.mark.line += line;  // a file position, as the caller reports it
      throw;
    }
    int lines = static_cast<int>(std::count(text.begin() + begin, text.begin() + end, '\n'));
    if (!node.IsNull()) documents.push_back({std::move(node), line, std::max(lines, 1)});
  }
  return documents;
}

// Template directives at the start of a line or standing alone in a value: `{{- if ... }}`, `{{ .Values.x
// | nindent 4 }}`, `{% for ... %}`. A file with none is judged as YAML.
static bool renders_into_yaml(std::string_view text) {
  for (std::string_view open : {"{{", "{%"}) {
    std::string_view close = open == "{{" ? "}}" : "%}";
    for (std::size_t at = text.find(open); at != std::string_view::npos; at = text.find(open, at + 2)) {
      std::size_t end = text.find(close, at + 2);
      std::size_t eol = text.find('\n', at);
      if (end != std::string_view::npos && (eol == std::string_view::npos || end < eol)) return true;
    }
  }
  return false;
}

ParsedFile parse_yaml(std::string_view path, const SourceText& source, const DocumentAdapters& adapters,
                      WorkBudget* budget, const std::vector<ExportedVariable>* environment) {
  WorkBudget own;
  WorkBudget& work = budget ? *budget : own;
  ParsedFile out;
  out.path = std::string(path);
  std::vector<Document> documents;
  bool truncated = false;
  try {
    work.spend(kByteUnits * source.text().size());  // what yaml-cpp's parse costs, before any visit
    documents = load_documents(source.text(), truncated);
    if (truncated)
      out.errors.push_back({source.position(0).line > 0 ? SourceRange{{1, 1}, {1, 1}} : SourceRange{},
                            "more than 256 YAML documents in one file; the rest was not read", ""});
  } catch (const YAML::DeepRecursion& e) {
    out.errors.push_back(
        yaml_error(source, e.mark, "YAML nesting is deeper than 2000 levels; the file was not read"));
    return out;
  } catch (const YAML::Exception& e) {
    // A Helm chart or Jinja template is YAML only once rendered ({{- if .Values.x }} lines, {% for %}):
    // its own language accepts it, so it is unread, never a YAML syntax error.
    if (renders_into_yaml(source.text())) {
      int last = std::max(source.line_count(), 1);
      out.unread.push_back(
          {{{1, 1}, source.position(last, source.line(last).size())},
           "a template (Go/Helm {{ }} or Jinja {% %} directives) that becomes YAML only when "
           "rendered",
           "nothing is wrong with the file; lint the rendered output (helm template ... | "
           "parlint check --stdin-filename x.yaml -) to have its settings checked"});
      return out;
    }
    out.errors.push_back(yaml_error(source, e.mark, "invalid YAML: " + e.msg));
    return out;
  }
  for (std::size_t d = 0; d < documents.size(); ++d) {
    YamlWalker walker(path, source, documents[d].first_line, work);
    bool complete = walker.walk_document(documents[d].node);
    if (!complete) {
      // Valid YAML (its loader expands aliases lazily) that parlint will not expand further: unread, not
      // a syntax error. Once the file's budget is spent, so are the documents after this one.
      int first = documents[d].first_line + 1;
      if (work.exhausted()) {
        out.unread.push_back(over_budget_region(source, first, work));
        break;
      }
      int last = std::min(std::max(first, documents[d].first_line + documents[d].lines),
                          std::max(source.line_count(), 1));
      // What stopped it, said as it is: a document that is only long is not an alias bomb. Nothing of it
      // was read, so it is a warning: CI must not pass a file whose settings it never saw.
      UnreadRegion region{{{first, 1}, source.position(last, source.line(last).size())}, "", ""};
      region.nothing_read = true;
      if (walker.stop() == YamlWalker::Stop::kDepth) {
        region.reason = "it nests mappings more than 512 deep (parlint's bound per YAML document)";
        region.help = "nothing is wrong with the file; parlint reads documents nested less deeply";
      } else if (has_anchor(source.text())) {
        region.reason = "its aliases expand to more than 200,000 values (parlint's bound per YAML document)";
        region.help = "nothing is wrong with the file; parlint reads documents whose aliases expand to fewer";
      } else {
        region.reason = "it holds more than 200,000 values (parlint's bound per YAML document)";
        region.help =
            "nothing is wrong with the file; lint the part that holds the training settings as a file of its "
            "own, or exclude this one";
      }
      out.unread.push_back(std::move(region));
      continue;
    }
    auto& entries = walker.entries();
    if (entries.empty()) continue;
    walker.add_literals(out.literals);
    read_document(entries, adapters, out, environment);
  }
  return out;
}

}  // namespace parlint
