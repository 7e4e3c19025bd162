#pragma once
// The Python parser's interpreter, shared by the files that implement it (not a public interface: the
// rest of parlint calls parse_python() in python_parser.h). One class, one file per concern:
//   python_parser.cpp       the file: parsing, syntax errors, functions and imports, jobs
//   python_statements.cpp   statements, assignments and the settings they write
//   python_branches.cpp     conditions with known values, and if/else branches merged
//   python_expressions.cpp  the expression evaluator (literals, names, arithmetic, dicts, os.environ)
//   python_calls.cpp        calls: built-ins, library recipes, settings constructors, NeMo-Run
//                           executors, and local recipe functions read with their arguments bound
#include <tree_sitter/api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/keys.h"
#include "lint/model/parsed_file.h"
#include "lint/model/setting_list.h"
#include "lint/model/source_files.h"
#include "lint/model/source_text.h"
#include "lint/model/work_budget.h"
#include "parsers/python/python_module_cache.h"
#include "parsers/tree_sitter/tree_sitter_fields.h"
#include "parsers/tree_sitter/tree_sitter_languages.h"
#include "parsers/tree_sitter/tree_sitter_tree.h"

namespace parlint::py {

template <FieldName Name>
inline TSNode by_field(TSNode node) {
  return child_by_field<python_language, Name>(node);
}

constexpr int kMaxDepth = 200;    // expression and statement nesting followed
constexpr int kMaxCallDepth = 8;  // recipe functions calling recipe functions
constexpr std::size_t kMaxSyntaxErrors = 10;
// What the work budget (lint/model/work_budget.h) charges for a statement read or a setting inherited from a
// recipe call: the default budget reads 200,000 of them per file, counting recipe calls followed.
constexpr std::uint64_t kStatementUnits = 2000;
constexpr std::size_t kMaxInheritedVia = 16;  // recipe calls a setting's provenance names

// A value as far as it is known statically, with where it was written.
struct PyVal {
  Value value = Value::unknown("not known statically");
  std::vector<RelatedLocation> via;  // assignments the value came through
  bool weak = false;
  std::string weak_note;
  std::shared_ptr<const std::vector<Fact>> object;           // settings of a config object built by a call
  std::shared_ptr<const std::map<std::string, PyVal>> dict;  // a dict literal, for **spread
  bool library_recipe = false;  // the config a library recipe returned, unchanged
  RecipeCall recipe;            // the library recipe a config object starts from
  bool executor = false;        // a NeMo-Run executor: `object` holds the processes it starts
  // parser.parse_args(): `dict` holds each option's default by dest, read as `args.<dest>`.
  bool argparse_namespace = false;
  std::string default_of;  // the script option (--etp) whose argparse default this value is
};
using Scope = std::map<std::string, PyVal>;

// The settings one job collects, in order; later ones win. `from_base`: inherited from a base object or
// a called recipe, so the job's own settings override it without a conflict.
struct FactTable : SettingList {
  std::vector<UnrecognizedSetting> unrecognized;
  RecipeCall recipe;  // the library recipe this job starts from (its facts are the table's)

  void add(Fact f, bool from_base) {
    SettingList::add(std::move(f), from_base ? Source::kInherited : Source::kWritten);
  }
};

struct Context {
  bool in_loop = false;
  int call_depth = 0;
  std::vector<std::string> call_stack;
  std::string function;  // the function being read ("" at module level)
};

// Node types are static strings owned by the grammar.
inline std::string_view type_of(TSNode n) {
  return ts_node_type(n);
}

// "llm.llama3_70b.pretrain_recipe" -> "pretrain_recipe".
inline std::string last_component(const std::string& dotted) {
  auto dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// A value, setting or decision that rests on a fallback makes what it chose a fallback too (the first
// fallback named is the one a message names).
template <typename To, typename From>
inline void take_fallback(To& into, const From& from) {
  if (from.weak && !into.weak) {
    into.weak = true;
    into.weak_note = from.weak_note;
  }
}

inline std::optional<Key> key_for_name(const std::string& name) {
  std::vector<std::string> one{name};
  if (auto m = match_config_path(one)) return m->key;
  if (name == "devices") return Key::kGpusPerNode;
  return std::nullopt;
}

class PythonParser;

// Local modules imported by a file (`from .base import base_recipe`), parsed once and shared, with
// one work budget for the whole import graph.
struct ImportGraph {
  const FileReader& reader;  // imported modules are read through it
  std::map<std::string, std::shared_ptr<const SourceText>> sources;
  std::map<std::string, std::unique_ptr<PythonParser>> parsers;  // null: not found or not readable
  WorkBudget& budget;                                            // one for the whole import graph
  PythonModuleCache* modules = nullptr;  // the texts and trees the run parsed already (null: none)
};

constexpr int kMaxImportDepth = 4;
constexpr std::size_t kMaxImportedFileSize = 4u << 20;

struct Arg {
  PyVal value;
  Location where;
};

class PythonParser {
 public:
  PythonParser(std::string_view path, const SourceText& source, ImportGraph& graph, int import_depth = 0)
      : path_(path), source_(source), graph_(graph), import_depth_(import_depth) {
    out_.path = std::string(path);
  }

  // Reads the module body of the file (`tree` is its syntax tree), so that its functions can be called
  // from other files.
  void prepare(SharedTsTree tree);

  ParsedFile run();

  bool takes_required_parameter(TSNode fn) const;
  static void drop_copies(std::vector<RawJob>& jobs);

 private:
  // ---- positions and errors (python_parser.cpp) -----------------------------------------------------------

  Location node_location(TSNode n) const;

  std::string text(TSNode n) const;

  // ---- jobs (python_parser.cpp) ---------------------------------------------------------------------------

  void emit(FactTable table, const std::string& name, SourceRange range);

  void collect_functions(TSNode root);

  void collect_imports(TSNode root);

  // A module spec (".base", "..x", "pkg.mod") as a local file, if one exists.
  std::optional<std::string> resolve_module(const std::string& spec) const;

  PythonParser* imported_module(const std::string& spec);

  // An imported module's text and tree, from the run's cache when the budget has what parsing it cost
  // left, else read and parsed here (and kept for the other files of the run).
  PythonModuleCache::Module load_module(const std::string& file);
  // The tree of the file being linted: the run's when it was kept, with this text, as another file's
  // import (under the same budget rule), else parsed here.
  SharedTsTree own_tree();

  // Parameters with defaults are weak values (callers usually override them); without a default, unknown.
  // Defaults are evaluated as part of the call that needs them: with the caller's depth and call stack,
  // so a default that calls its own function (directly or round a cycle) stops at the bound instead of
  // recursing until the stack overflows (found by fuzz_python).
  void bind_defaults(TSNode fn, const std::string& fname, Scope& scope, FactTable& table,
                     const Context& caller);

  // Megatron-Bridge recipe names state their GPU count: ..._pretrain_16gpu_h100_bf16_config.
  // ..._pretrain_8gpu_b200_bf16_config targets B200 GPUs: the word after the GPU count.
  static std::string recipe_name_hardware(const std::string& name);

  void recipe_name_world_size(TSNode fn, const std::string& name, FactTable& table);

  Fact make_fact(Key key, const PyVal& v, Location loc, Origin origin, std::string spelling);

  // ---- statements (python_statements.cpp and python_branches.cpp) -----------------------------------------

  void walk_block(TSNode block, Scope& scope, FactTable& table, Context& ctx, int depth, bool module_level);

  void statement(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth, bool module_level);

  static PyVal loop_value();

  void assignment(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth, bool module_level);

  void assign_target(TSNode left, PyVal v, Scope& scope, FactTable& table, Context& ctx, int depth,
                     TSNode value_node = TSNode{});

  // Records `path = value` when the path names a setting; remembers lookalikes for PL801.
  // `receiver` is the object assigned to ("cfg" of cfg.model.x), kept for help lines in the file's words.
  void setting(const std::vector<std::string>& path, const PyVal& v, const Location& where, Origin origin,
               FactTable& table, const Location& name_location, std::string receiver = {});

  void attribute_path(TSNode n, std::vector<std::string>& out) const;

  void size_expression(TSNode left, TSNode right, const Scope& scope);
  void note_literal(const std::string& name, TSNode value_node, const PyVal& v);
  void augmented(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth);

  // if / elif / else: each branch on its own copy; a setting or variable keeps its value only when every
  // branch (and falling through without an else) agrees.
  // Functions given a config that only read it: the training entry points, printing and logging.
  static bool reads_only(const std::string& fname);

  // `if __name__ == "__main__":` (either side, either quote), without elif or else.
  bool main_guard(TSNode n) const;

  // What a condition is when every name in it is known statically. A parameter's default makes the
  // answer a fallback: a caller may pass another value.
  struct Truth {
    bool value = false;
    bool weak = false;
    std::string weak_note;
  };

  static std::optional<bool> truthiness(const Value& v);

  static std::optional<bool> compare(const Value& x, std::string_view op, const Value& y);

  std::optional<Truth> truth(TSNode n, Scope& scope, Context& ctx, int depth);

  // A setting made in a branch chosen by a fallback is itself a fallback.
  static void weaken_from(FactTable& table, std::size_t base, const Truth& chosen_by);

  static bool ends_in_raise(TSNode body);

  void branches(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth);

  // ---- expressions (python_expressions.cpp and python_calls.cpp) ------------------------------------------

  static PyVal known(Value v) {
    PyVal p;
    p.value = std::move(v);
    return p;
  }

  static PyVal arithmetic(const PyVal& a, std::string_view op, const PyVal& b);

  PyVal eval(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth);

  PyVal string_value(TSNode n);

  PyVal env_value(TSNode call_or_subscript, const std::string& fallback);

  PyVal dictionary(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth);

  // A call as written: what is called and its arguments.
  struct CallSite {
    TSNode node{}, fn{};
    std::string fname, last;  // "llm.llama3_70b.pretrain_recipe", "pretrain_recipe"
    std::vector<TSNode> positional;
    std::vector<std::pair<std::string, TSNode>> keywords;
    std::vector<TSNode> splats;  // **kwargs
  };
  using CallHandler = std::optional<PyVal> (PythonParser::*)(const CallSite&, Scope&, FactTable&, Context&,
                                                             int);
  PyVal call(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth);
  CallSite call_site(TSNode n);
  std::optional<PyVal> environment_read(const CallSite& c, Scope&, FactTable&, Context&, int);
  std::optional<PyVal> builtin_conversion(const CallSite& c, Scope& scope, FactTable& table, Context& ctx,
                                          int depth);
  // parser.add_argument("--etp", type=int, default=1) records the option; parser.parse_args() gives a
  // namespace of the defaults (a launch that passes the option overrides it: lint/resolve/cross_file.cpp).
  std::optional<PyVal> argparse_call(const CallSite& c, Scope& scope, FactTable& table, Context& ctx,
                                     int depth);
  std::map<std::string, PyVal> argparse_defaults_;  // by dest, in this file
  std::optional<PyVal> string_method(const CallSite& c, Scope& scope, FactTable& table, Context& ctx,
                                     int depth);
  // Megatron-Bridge's helpers that set model settings: apply_flex_dispatcher_backend(cfg.model, backend)
  // (decided by the GPU at run time), set_cuda_graph_modules(cfg.model, [...]),
  // clear_cuda_graph_modules(cfg.model), set_full_iteration_cuda_graph(cfg.model).
  std::optional<PyVal> bridge_helper_call(const CallSite& c, Scope& scope, FactTable& table, Context& ctx,
                                          int depth);
  std::optional<PyVal> setattr_call(const CallSite& c, Scope& scope, FactTable& table, Context& ctx,
                                    int depth);
  void note_named_model(const CallSite& c, const Scope& scope);
  PyVal settings_call(const CallSite& c, Scope& scope, FactTable& table, Context& ctx, int depth);
  bool library_recipe(const CallSite& c, Scope& scope, FactTable& table, Context& ctx, int depth,
                      PyVal& result, std::vector<Fact>& facts);
  bool settings_constructor(const CallSite& c);
  std::string executor_launcher(const CallSite& c, Scope& scope, FactTable& table, Context& ctx, int depth);

  // The processes a NeMo-Run executor starts per node (nemo_run/core/execution/slurm.py and local.py at
  // NeMo-Run 0c49127199ca), as the executor's ntasks_per_node. Without a launcher, srun starts
  // ntasks_per_node tasks (default 1); with torchrun, nproc_per_node(): torchrun_nproc_per_node if set,
  // else gpus_per_node when ntasks_per_node is 1, else gpus_per_task, else ntasks_per_node. A
  // LocalExecutor without a launcher runs one process and Lightning spawns the trainer's devices itself:
  // nothing to join.
  void executor_processes(const std::string& kind, const std::string& launcher, const Location& at,
                          std::vector<Fact>& facts, PyVal& result);

  // run.run(recipe, executor=...) and exp.add(recipe, executor=...): the recipe runs as the processes the
  // executor starts. The trainer's num_nodes is what Lightning is told (NeMo's ConfigValidationPlugin and
  // Lightning's SLURMEnvironment both require it to match the executor's nodes).
  PyVal run_with_executor(TSNode call_node, TSNode task_node, TSNode executor_node, Scope& scope,
                          FactTable& table, Context& ctx, int depth);

  // A call to a recipe function (of this module or an imported local one): read it with the arguments
  // bound, and inherit its settings.
  PyVal invoke(const std::string& fname, const std::vector<Arg>& positional,
               const std::vector<std::pair<std::string, Arg>>& keywords, FactTable& table, Context& ctx,
               int depth);

  std::string path_;  // owned: imported modules outlive the strings their paths were built from
  const SourceText& source_;
  ParsedFile out_;
  SharedTsTree tree_;  // its own, or the run's (read only, as by every other file that imports it)
  std::map<std::string, TSNode> functions_;
  std::set<std::string> called_from_functions_;                 // module functions another function calls
  std::vector<std::pair<std::string, TSNode>> function_order_;  // in definition order
  Scope module_scope_;
  PyVal return_value_;
  // Calls without arguments already read: the settings they give the caller, and their result.
  struct CallRead {
    std::vector<Fact> facts;
    RecipeCall recipe;
    PyVal result;
  };
  std::map<std::string, CallRead> calls_read_;
  std::string named_model_;  // the last Hugging Face id the file loads (AutoBridge.from_hf_pretrained)
  ImportGraph& graph_;
  int import_depth_ = 0;
  std::map<std::string, std::pair<std::string, std::string>> imports_;  // local name -> (module, name)
  std::map<std::string, std::optional<std::string>> resolved_;          // module spec -> its local file
  bool bridge_hint_ = false, nemo2_hint_ = false;
};

}  // namespace parlint::py
