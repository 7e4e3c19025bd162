#include "parsers/python_parser.h"
#include "parsers/source_files.h"

#include <tree_sitter/api.h>

#include <sys/stat.h>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>

#include "parsers/tree_sitter_children.h"
#include "parsers/tree_sitter_fields.h"
#include "parsers/tree_sitter_languages.h"

namespace parlint {
namespace {

template <FieldName Name>
TSNode by_field(TSNode node) {
  return child_by_field<python_language, Name>(node);
}

constexpr int kMaxDepth = 200;    // expression and statement nesting followed
constexpr int kMaxCallDepth = 8;  // recipe functions calling recipe functions
constexpr std::size_t kMaxSyntaxErrors = 10;
constexpr std::size_t kMaxStatements = 200'000;  // statements read per file, counting recipe calls followed

struct TsTreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};

// A value as far as it is known statically, with where it was written.
struct PyVal {
  Value value = Value::unknown("not known statically");
  std::vector<RelatedLocation> via;  // assignments the value came through
  bool weak = false;
  std::string weak_note;
  std::shared_ptr<const std::vector<Fact>> object;           // settings of a config object built by a call
  std::shared_ptr<const std::map<std::string, PyVal>> dict;  // a dict literal, for **spread
  bool library_recipe = false;  // the config a Megatron-Bridge library recipe returned
  std::string recipe;           // the library recipe a config object starts from
  std::vector<std::string> recipe_arguments;
  bool executor = false;  // a NeMo-Run executor: `object` holds the processes it starts
};
using Scope = std::map<std::string, PyVal>;

// The settings one job collects, in order; later ones win.
struct FactTable {
  std::vector<Fact> facts;
  std::vector<Conflict> conflicts;
  std::vector<UnrecognizedSetting> unrecognized;
  std::string recipe;  // the Megatron-Bridge library recipe this job starts from (its facts are the table's)
  std::string recipe_changed_by;              // a function parlint cannot read that was given that config
  std::vector<std::string> recipe_arguments;  // keywords of the library recipe call that are not settings

  const Fact* last(Key key) const {
    for (auto it = facts.rbegin(); it != facts.rend(); ++it)
      if (it->key == key) return &*it;
    return nullptr;
  }
  std::vector<bool> inherited;  // facts[i] came from a base object or a called recipe

  // Two values written in this job for one key are a conflict; overriding an inherited one is not.
  void add(Fact f, bool from_base) {
    if (!from_base) {
      for (std::size_t i = facts.size(); i-- > 0;) {
        if (facts[i].key != f.key) continue;
        const Fact& prev = facts[i];
        if (!inherited[i] && prev.origin != Origin::kRecipeDefault && prev.priority == f.priority &&
            prev.value.is_known() && f.value.is_known() && !(prev.value == f.value))
          conflicts.push_back({f, prev});
        break;
      }
    }
    facts.push_back(std::move(f));
    inherited.push_back(from_base);
  }
};

struct Context {
  bool in_loop = false;
  int call_depth = 0;
  std::vector<std::string> call_stack;
  std::string function;  // the function being read ("" at module level)
};

// Node types are static strings owned by the grammar.
std::string_view type_of(TSNode n) {
  return ts_node_type(n);
}

// "llm.llama3_70b.pretrain_recipe" -> "pretrain_recipe".
std::string last_component(const std::string& dotted) {
  auto dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// A value, setting or decision that rests on a fallback makes what it chose a fallback too (the first
// fallback named is the one a message names).
template <typename To, typename From>
void take_fallback(To& into, const From& from) {
  if (from.weak && !into.weak) {
    into.weak = true;
    into.weak_note = from.weak_note;
  }
}

std::optional<Key> key_for_name(const std::string& name) {
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
  std::map<std::string, std::unique_ptr<SourceText>> sources;
  std::map<std::string, std::unique_ptr<PythonParser>> parsers;  // null: not found or not readable
  std::size_t statements_read = 0;
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

  // Parses the file and reads its module body, so that its functions can be called from other files.
  void prepare() {
    std::string_view text = source_.text();
    tree_.reset(ts_parser_parse_string(thread_python_parser(), nullptr, text.data(),
                                       static_cast<std::uint32_t>(text.size())));
    if (!tree_) return;
    TSNode root = ts_tree_root_node(tree_.get());
    collect_functions(root);
    FactTable scratch;
    Context ctx;
    walk_block(root, module_scope_, scratch, ctx, 0, false);
  }

  ParsedFile run() {
    std::string_view text = source_.text();
    tree_.reset(ts_parser_parse_string(thread_python_parser(), nullptr, text.data(),
                                       static_cast<std::uint32_t>(text.size())));
    if (!tree_) return std::move(out_);
    TSNode root = ts_tree_root_node(tree_.get());
    if (ts_node_has_error(root)) collect_errors(root, 0);

    // Module body first: constants, config objects, and the module job.
    collect_functions(root);
    collect_imports(root);
    FactTable module;
    Context ctx;
    walk_block(root, module_scope_, module, ctx, 0, /*module_level=*/true);
    if (!module.facts.empty()) emit(std::move(module), "module", {{1, 1}, {1, 1}});

    std::vector<std::pair<std::size_t, std::string>> function_jobs;  // out_.jobs index, function name
    for (const auto& [name, node] : function_order_) {
      Context fctx;
      fctx.function = name;
      Scope scope = module_scope_;
      FactTable table;
      bind_defaults(node, name, scope, table, fctx);
      recipe_name_world_size(node, name, table);
      TSNode body = by_field<"body">(node);
      if (!ts_node_is_null(body)) walk_block(body, scope, table, fctx, 0, false);
      bool sets = false;
      for (const auto& f : table.facts) sets |= f.origin != Origin::kRecipeName;
      if (sets) {
        function_jobs.emplace_back(out_.jobs.size(), name);
        emit(std::move(table), name + "()", node_location(node).range);
        out_.jobs.back().extent = {source_.position(ts_node_start_byte(node)),
                                   source_.position(ts_node_end_byte(node))};
        out_.jobs.back().hardware = recipe_name_hardware(name);
      }
    }
    // A helper that edits a config its callers pass in (`_apply_common(cfg)`) is judged through the
    // recipes that call it, which carry its settings, not alone with the defaults it never sees.
    std::vector<std::size_t> helpers;
    for (const auto& [index, name] : function_jobs)
      if (called_from_functions_.count(name) &&
          (name.starts_with("_") || takes_required_parameter(functions_.at(name))))
        helpers.push_back(index);
    for (auto it = helpers.rbegin(); it != helpers.rend(); ++it)
      out_.jobs.erase(out_.jobs.begin() + static_cast<std::ptrdiff_t>(*it));
    return std::move(out_);
  }

  bool takes_required_parameter(TSNode fn) const {
    TSNode params = by_field<"parameters">(fn);
    if (ts_node_is_null(params)) return false;
    for (TSNode p : NamedChildren(params)) {
      std::string_view t = type_of(p);
      if (t == "identifier" || t == "typed_parameter") return true;
    }
    return false;
  }

 private:
  // ---- positions and errors -----------------------------------------------------------------------

  Location node_location(TSNode n) const {
    std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    SourcePosition start = source_.position(b), end = source_.position(e);
    if (end.line != start.line) end = source_.position(start.line, source_.line(start.line).size());
    if (!(end > start)) end = {start.line, start.column + 1};
    return {std::string(path_), {start, end}};
  }

  std::string text(TSNode n) const {
    return std::string(
        source_.text().substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n)));
  }

  void collect_errors(TSNode n, int depth) {
    if (out_.errors.size() >= kMaxSyntaxErrors || depth > kMaxDepth) return;
    if (ts_node_is_error(n) || ts_node_is_missing(n)) {
      std::string what = ts_node_is_missing(n) ? "missing " + std::string(type_of(n)) : "unexpected syntax";
      out_.errors.push_back({node_location(n).range, "Python syntax error: " + what, ""});
      return;
    }
    for (TSNode child : Children(n))
      if (ts_node_has_error(child)) collect_errors(child, depth + 1);
  }

  // ---- jobs -------------------------------------------------------------------------------------------

  void emit(FactTable table, const std::string& name, SourceRange range) {
    RawJob job;
    job.model = named_model_;
    job.recipe = table.recipe;
    job.recipe_changed_by = table.recipe_changed_by;
    job.recipe_arguments = table.recipe_arguments;
    job.range = range;
    job.description = name;
    job.facts = std::move(table.facts);
    job.conflicts = std::move(table.conflicts);
    job.unrecognized = std::move(table.unrecognized);
    for (const auto& f : job.facts) {
      if (f.spelling.find("strategy") != std::string::npos || f.spelling.find("trainer") != std::string::npos)
        job.framework = Framework::kNemo2;
    }
    if (name.find("_config") != std::string::npos || bridge_hint_) job.framework = Framework::kMegatronBridge;
    if (nemo2_hint_ && job.framework == Framework::kUnknown) job.framework = Framework::kNemo2;
    out_.jobs.push_back(std::move(job));
  }

  void collect_functions(TSNode root) {
    for (TSNode c : NamedChildren(root)) {
      if (type_of(c) == "decorated_definition") c = by_field<"definition">(c);
      if (ts_node_is_null(c) || type_of(c) != "function_definition") continue;
      TSNode name = by_field<"name">(c);
      if (ts_node_is_null(name)) continue;
      functions_[text(name)] = c;
      function_order_.emplace_back(text(name), c);
    }
    std::string_view t = source_.text();
    bridge_hint_ = t.find("megatron.bridge") != std::string_view::npos ||
                   t.find("ConfigContainer") != std::string_view::npos;
    nemo2_hint_ = t.find("nemo_run") != std::string_view::npos ||
                  t.find("nemo.collections.llm") != std::string_view::npos ||
                  t.find("MegatronStrategy") != std::string_view::npos;
  }

  void collect_imports(TSNode root) {
    for (TSNode c : NamedChildren(root)) {
      if (type_of(c) != "import_from_statement") continue;
      TSNode module = by_field<"module_name">(c);
      if (ts_node_is_null(module)) continue;
      std::string spec = text(module);
      NamedChildren children(c);
      for (TSNode name : children) {
        const char* field = children.field_name();
        if (!field || std::string_view(field) != "name") continue;
        std::string original = text(name), local = original;
        if (type_of(name) == "aliased_import") {
          original = text(by_field<"name">(name));
          local = text(by_field<"alias">(name));
        }
        imports_[local] = {spec, original};
      }
    }
  }

  // A module spec (".base", "..x", "pkg.mod") as a local file, if one exists.
  std::optional<std::string> resolve_module(const std::string& spec) const {
    namespace fs = std::filesystem;
    fs::path here = fs::path(std::string(path_)).parent_path();
    std::size_t dots = 0;
    while (dots < spec.size() && spec[dots] == '.') ++dots;
    std::string rest = spec.substr(dots);
    std::replace(rest.begin(), rest.end(), '.', '/');
    std::vector<fs::path> bases;
    if (dots > 0) {
      fs::path b = here;
      for (std::size_t i = 1; i < dots; ++i) b = b.parent_path();
      bases.push_back(b);
    } else {
      // An absolute import of a package in this checkout: look in the file's folder and above it.
      fs::path b = here;
      for (int i = 0; i < 10; ++i) {
        bases.push_back(b);
        if (!b.has_parent_path() || b.parent_path() == b) break;
        b = b.parent_path();
      }
    }
    for (const auto& b : bases) {
      for (const fs::path& candidate : {b / (rest + ".py"), b / rest / "__init__.py"}) {
        if (!rest.empty() && graph_.reader.exists(candidate.string()))
          return candidate.lexically_normal().string();
      }
    }
    return std::nullopt;
  }

  PythonParser* imported_module(const std::string& spec) {
    if (import_depth_ >= kMaxImportDepth) return nullptr;
    auto file = resolve_module(spec);
    if (!file || *file == path_) return nullptr;
    auto it = graph_.parsers.find(*file);
    if (it != graph_.parsers.end()) return it->second.get();
    graph_.parsers[*file] = nullptr;  // guards cycles while it is being read
    auto source = std::make_unique<SourceText>(graph_.reader.read(*file, kMaxImportedFileSize).value_or(""));
    auto parser = std::make_unique<PythonParser>(*file, *source, graph_, import_depth_ + 1);
    graph_.sources[*file] = std::move(source);
    parser->prepare();
    graph_.parsers[*file] = std::move(parser);
    return graph_.parsers[*file].get();
  }

  // Parameters with defaults are weak values (callers usually override them); without a default, unknown.
  // Defaults are evaluated as part of the call that needs them: with the caller's depth and call stack,
  // so a default that calls its own function (directly or round a cycle) stops at the bound instead of
  // recursing until the stack overflows (found by fuzz_python).
  void bind_defaults(TSNode fn, const std::string& fname, Scope& scope, FactTable& table,
                     const Context& caller) {
    TSNode params = by_field<"parameters">(fn);
    if (ts_node_is_null(params)) return;
    for (TSNode p : NamedChildren(params)) {
      std::string_view t = type_of(p);
      TSNode name_node = p, value{};
      bool has_default = false;
      if (t == "default_parameter" || t == "typed_default_parameter") {
        name_node = by_field<"name">(p);
        value = by_field<"value">(p);
        has_default = !ts_node_is_null(value);
      } else if (t == "typed_parameter") {
        name_node = ts_node_named_child(p, 0);
      } else if (t != "identifier") {
        continue;
      }
      if (ts_node_is_null(name_node)) continue;
      std::string name = text(name_node);
      PyVal v;
      if (has_default) {
        Context ctx = caller;
        ++ctx.call_depth;
        ctx.call_stack.push_back(std::string(path_) + ":" + fname);
        FactTable scratch;
        v = eval(value, scope, scratch, ctx, 0);
        v.weak = true;
        v.weak_note = "with the default " + name + "=" + text(value) + " of " + fname + "()";
        if (auto key = key_for_name(name)) {
          Fact f = make_fact(*key, v, node_location(value), Origin::kRecipeDefault, name);
          table.add(std::move(f), true);
        }
        v.via.push_back(
            {node_location(value), name + "=" + text(value) + " (default of " + fname + "()) set here"});
      } else {
        v.value = Value::unknown("a parameter of " + fname + "() without a default");
      }
      scope[name] = v;
    }
  }

  // Megatron-Bridge recipe names state their GPU count: ..._pretrain_16gpu_h100_bf16_config.
  // ..._pretrain_8gpu_b200_bf16_config targets B200 GPUs: the word after the GPU count.
  static std::string recipe_name_hardware(const std::string& name) {
    auto pos = name.find("gpu_");
    if (pos == std::string::npos || pos == 0 || !std::isdigit(static_cast<unsigned char>(name[pos - 1])))
      return "";
    std::size_t b = pos + 4, e = name.find('_', b);
    std::string hw = name.substr(b, e == std::string::npos ? std::string::npos : e - b);
    bool plausible = hw.size() >= 3 && hw.size() <= 6 && std::isalpha(static_cast<unsigned char>(hw[0])) &&
                     std::any_of(hw.begin(), hw.end(), [](char c) { return std::isdigit((unsigned char)c); });
    return plausible ? hw : "";
  }

  void recipe_name_world_size(TSNode fn, const std::string& name, FactTable& table) {
    auto pos = name.find("gpu_");
    if (pos == std::string::npos) return;
    std::size_t b = pos;
    while (b > 0 && std::isdigit(static_cast<unsigned char>(name[b - 1]))) --b;
    if (b == pos || (b > 0 && name[b - 1] != '_')) return;
    std::int64_t n = 0;
    std::from_chars(name.data() + b, name.data() + pos, n);
    if (n <= 0) return;
    Fact f;
    f.key = Key::kWorldSize;
    f.value = Value::integer(n);
    f.location = node_location(by_field<"name">(fn));
    f.origin = Origin::kRecipeName;
    f.spelling = "the recipe name " + name;
    table.add(std::move(f), true);
  }

  Fact make_fact(Key key, const PyVal& v, Location loc, Origin origin, std::string spelling) {
    Fact f;
    f.key = key;
    f.value = v.value;
    f.location = std::move(loc);
    f.origin = origin;
    f.spelling = std::move(spelling);
    f.weak = v.weak;
    f.weak_note = v.weak_note;
    f.written_at = v.via;
    if (key_type(key) == KeyType::kBool && f.value.kind() == Value::Kind::kInt)
      f.value = Value::boolean(*f.value.as_int() != 0);
    return f;
  }

  // ---- statements -------------------------------------------------------------------------------------

  void walk_block(TSNode block, Scope& scope, FactTable& table, Context& ctx, int depth, bool module_level) {
    for (TSNode child : NamedChildren(block)) statement(child, scope, table, ctx, depth + 1, module_level);
  }

  void statement(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth, bool module_level) {
    if (depth > kMaxDepth) return;
    ++graph_.statements_read;
    std::string_view t = type_of(n);
    if (t == "expression_statement") {
      for (TSNode e : NamedChildren(n)) {
        std::string_view et = type_of(e);
        if (et == "assignment")
          assignment(e, scope, table, ctx, depth, module_level);
        else if (et == "augmented_assignment")
          augmented(e, scope, table, ctx, depth);
        else
          eval(e, scope, table, ctx, depth);
      }
      return;
    }
    if (t == "if_statement") {
      // if __name__ == "__main__": runs whenever the script is run: it is the module body, not a branch.
      if (module_level && main_guard(n)) {
        TSNode body = by_field<"consequence">(n);
        if (!ts_node_is_null(body)) walk_block(body, scope, table, ctx, depth, true);
        return;
      }
      return branches(n, scope, table, ctx, depth);
    }
    if (t == "for_statement" || t == "while_statement") {
      Context inner = ctx;
      inner.in_loop = true;
      TSNode left = by_field<"left">(n);
      if (!ts_node_is_null(left)) assign_target(left, loop_value(), scope, table, inner, depth);
      TSNode body = by_field<"body">(n);
      if (!ts_node_is_null(body)) walk_block(body, scope, table, inner, depth, false);
      return;
    }
    if (t == "block") return walk_block(n, scope, table, ctx, depth, module_level);
    if (t == "with_statement" || t == "try_statement" || t == "else_clause" || t == "finally_clause" ||
        t == "except_clause") {
      for (TSNode c : NamedChildren(n)) {
        std::string_view ct = type_of(c);
        if (ct == "block" || ct == "else_clause" || ct == "finally_clause" || ct == "except_clause")
          statement(c, scope, table, ctx, depth + 1, module_level);
      }
      return;
    }
    if (t == "return_statement") {
      for (TSNode child : NamedChildren(n)) return_value_ = eval(child, scope, table, ctx, depth);
      return;
    }
    // function and class definitions are read on their own; imports and the rest set nothing.
  }

  static PyVal loop_value() {
    PyVal v;
    v.value = Value::unknown("a loop variable with several values");
    return v;
  }

  void assignment(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth, bool module_level) {
    TSNode left = by_field<"left">(n);
    TSNode right = by_field<"right">(n);
    if (ts_node_is_null(left) || ts_node_is_null(right)) return;
    // A module-level config object (BASE = WorkloadConfig(...)) is a job of its own, not module facts.
    FactTable scratch;
    bool own_job = module_level && type_of(left) == "identifier" && type_of(right) == "call";
    PyVal v = eval(right, scope, own_job ? scratch : table, ctx, depth);
    if (own_job && v.object && !v.object->empty()) {
      FactTable object;
      for (const auto& f : *v.object) object.add(f, true);
      object.conflicts = scratch.conflicts;
      object.unrecognized = scratch.unrecognized;
      object.recipe = scratch.recipe;
      object.recipe_changed_by = scratch.recipe_changed_by;
      object.recipe_arguments = scratch.recipe_arguments;
      emit(std::move(object), text(left), node_location(n).range);
    } else if (own_job) {
      for (auto& f : scratch.facts) table.add(std::move(f), false);
      for (auto& u : scratch.unrecognized) table.unrecognized.push_back(std::move(u));
      if (!scratch.recipe.empty()) {
        table.recipe = scratch.recipe;
        table.recipe_changed_by = scratch.recipe_changed_by;
        table.recipe_arguments = scratch.recipe_arguments;
      }
    }
    if (type_of(right) != "expression_list" || type_of(left) == "identifier") {
      assign_target(left, v, scope, table, ctx, depth, right);
      return;
    }
    // tp, pp = 4, 2
    std::vector<TSNode> targets = named_children_of(left), values = named_children_of(right);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      PyVal item = i < values.size() ? eval(values[i], scope, table, ctx, depth) : PyVal{};
      assign_target(targets[i], item, scope, table, ctx, depth, i < values.size() ? values[i] : TSNode{});
    }
  }

  void assign_target(TSNode left, PyVal v, Scope& scope, FactTable& table, Context& ctx, int depth,
                     TSNode value_node = TSNode{}) {
    std::string_view lt = type_of(left);
    if (ctx.in_loop) {
      PyVal looped;
      looped.value = Value::unknown("assigned in a loop");
      looped.object = v.object;
      v = std::move(looped);
    }
    if (lt == "identifier") {
      std::string name = text(left);
      if (!ts_node_is_null(value_node) && v.value.is_known()) {
        std::string shown = text(value_node);
        if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
        v.via.insert(v.via.begin(), {node_location(left), name + " = " + shown + " set here"});
        if (v.value.kind() == Value::Kind::kString)
          out_.literals.push_back({name, v.value.text(), node_location(value_node)});
      }
      scope[name] = std::move(v);
      return;
    }
    if (lt == "pattern_list" || lt == "tuple_pattern") {
      for (TSNode child : NamedChildren(left)) assign_target(child, PyVal{}, scope, table, ctx, depth);
      return;
    }
    if (lt != "attribute") return;
    std::vector<std::string> path;
    attribute_path(left, path);
    if (path.size() < 2) return;
    std::vector<std::string> rest(path.begin() + 1, path.end());
    Location where = ts_node_is_null(value_node) ? node_location(left) : node_location(value_node);
    setting(rest, v, where, Origin::kPythonAssign, table, node_location(left));
  }

  // Records `path = value` when the path names a setting; remembers lookalikes for PL801.
  void setting(const std::vector<std::string>& path, const PyVal& v, const Location& where, Origin origin,
               FactTable& table, const Location& name_location) {
    auto match = match_config_path(path);
    if (!match) {
      // Attribute names are field names: cfg.model.config.x and self.cfg.x name the field x wherever it sits.
      std::vector<std::string> leaf{path.back()};
      if (auto key = key_from_name(path.back()); key && *key < Key::kNodes)
        match = KeyMatch{*key};
      else if (auto alias = match_config_path(leaf); alias && path.size() == 1)
        match = alias;
    }
    std::string spelling;
    for (const auto& p : path) spelling += (spelling.empty() ? "" : ".") + p;
    if (!match) {
      table.unrecognized.push_back({spelling, name_location, false});
      return;
    }
    Fact f = make_fact(match->key, v, where, origin, spelling);
    f.priority = match->priority;
    if (match->inverted && f.value.as_bool()) f.value = Value::boolean(!*f.value.as_bool());
    table.add(std::move(f), false);
  }

  void attribute_path(TSNode n, std::vector<std::string>& out) const {
    if (type_of(n) == "attribute") {
      attribute_path(by_field<"object">(n), out);
      out.push_back(text(by_field<"attribute">(n)));
    } else if (type_of(n) == "identifier") {
      out.push_back(text(n));
    } else {
      out.push_back("<expr>");
    }
  }

  void augmented(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
    TSNode left = by_field<"left">(n), right = by_field<"right">(n);
    if (ts_node_is_null(left) || ts_node_is_null(right)) return;
    std::string op;
    for (std::uint32_t i = 0; i < ts_node_child_count(n); ++i)
      if (!ts_node_is_named(ts_node_child(n, i))) op = type_of(ts_node_child(n, i));
    PyVal old;
    if (type_of(left) == "identifier") {
      if (auto it = scope.find(text(left)); it != scope.end()) old = it->second;
    } else if (type_of(left) == "attribute") {
      std::vector<std::string> path;
      attribute_path(left, path);
      std::vector<std::string> rest(path.begin() + 1, path.end());
      if (auto m = match_config_path(rest)) {
        if (const Fact* prev = table.last(m->key)) old.value = prev->value;
      }
    }
    PyVal r = eval(right, scope, table, ctx, depth);
    PyVal v = arithmetic(old, op.substr(0, op.size() - 1), r);
    v.via = old.via;
    assign_target(left, v, scope, table, ctx, depth, right);
  }

  // if / elif / else: each branch on its own copy; a setting or variable keeps its value only when every
  // branch (and falling through without an else) agrees.
  // Functions given a config that only read it: the training entry points, printing and logging.
  static bool reads_only(const std::string& fname) {
    std::string last = last_component(fname);
    static const std::set<std::string, std::less<>> kReaders = {
        "pretrain",   "finetune", "train", "run",  "print",  "pprint",  "info",
        "debug",      "warning",  "log",   "str",  "repr",   "len",     "isinstance",
        "getattr",    "hasattr",  "type",  "vars", "asdict", "to_yaml", "to_dict",
        "print_yaml", "save",     "dump",  "add"};
    return kReaders.contains(last);
  }

  // `if __name__ == "__main__":` (either side, either quote), without elif or else.
  bool main_guard(TSNode n) const {
    for (TSNode c : NamedChildren(n))
      if (type_of(c) == "elif_clause" || type_of(c) == "else_clause") return false;
    TSNode cond = by_field<"condition">(n);
    if (ts_node_is_null(cond) || type_of(cond) != "comparison_operator" ||
        ts_node_named_child_count(cond) != 2)
      return false;
    std::string a = text(ts_node_named_child(cond, 0)), b = text(ts_node_named_child(cond, 1));
    if (text(cond).find("==") == std::string::npos) return false;
    auto is_main = [](const std::string& v) { return v == "\"__main__\"" || v == "'__main__'"; };
    return (a == "__name__" && is_main(b)) || (b == "__name__" && is_main(a));
  }

  // What a condition is when every name in it is known statically. A parameter's default makes the
  // answer a fallback: a caller may pass another value.
  struct Truth {
    bool value = false;
    bool weak = false;
    std::string weak_note;
  };

  static std::optional<bool> truthiness(const Value& v) {
    switch (v.kind()) {
      case Value::Kind::kNull:
        return false;
      case Value::Kind::kBool:
        return *v.as_bool();
      case Value::Kind::kInt:
        return *v.as_int() != 0;
      case Value::Kind::kString:
        return !v.text().empty();
      case Value::Kind::kList:
        return !v.items().empty();
      case Value::Kind::kUnknown:
        return std::nullopt;
    }
    return std::nullopt;
  }

  static std::optional<bool> compare(const Value& x, std::string_view op, const Value& y) {
    if (op == "==" || op == "is") return x == y;
    if (op == "!=" || op == "is not") return !(x == y);
    if (op == "in" || op == "not in") {
      bool found = false;
      if (y.kind() == Value::Kind::kList)
        found = std::any_of(y.items().begin(), y.items().end(), [&](const Value& i) { return i == x; });
      else if (y.kind() == Value::Kind::kString && x.kind() == Value::Kind::kString)
        found = y.text().find(x.text()) != std::string::npos;
      else
        return std::nullopt;
      return op == "in" ? found : !found;
    }
    auto a = x.as_int(), b = y.as_int();
    if (!a || !b) return std::nullopt;
    if (op == "<") return *a < *b;
    if (op == "<=") return *a <= *b;
    if (op == ">") return *a > *b;
    if (op == ">=") return *a >= *b;
    return std::nullopt;
  }

  std::optional<Truth> truth(TSNode n, Scope& scope, Context& ctx, int depth) {
    if (ts_node_is_null(n) || depth > kMaxDepth) return std::nullopt;
    std::string_view t = type_of(n);
    if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
      return truth(ts_node_named_child(n, 0), scope, ctx, depth + 1);
    if (t == "not_operator") {
      auto a = truth(by_field<"argument">(n), scope, ctx, depth + 1);
      if (a) a->value = !a->value;
      return a;
    }
    auto merged = [](Truth decided, const std::optional<Truth>& other) {
      if (other) take_fallback(decided, *other);
      return decided;
    };
    if (t == "boolean_operator") {
      TSNode op = by_field<"operator">(n);
      bool is_and = !ts_node_is_null(op) && type_of(op) == "and";
      auto a = truth(by_field<"left">(n), scope, ctx, depth + 1);
      if (a && a->value != is_and) return a;  // False and ..., True or ...
      auto b = truth(by_field<"right">(n), scope, ctx, depth + 1);
      if (b && (a || b->value != is_and)) return merged(*b, a);
      return std::nullopt;
    }
    FactTable scratch;  // the condition was read once for its settings; this reading only decides it
    auto weakened = [](Truth r, const PyVal& v) {
      take_fallback(r, v);
      return r;
    };
    if (t == "comparison_operator") {
      std::vector<TSNode> operands;
      std::string op;
      for (std::uint32_t i = 0; i < ts_node_child_count(n); ++i) {
        TSNode c = ts_node_child(n, i);
        if (ts_node_is_named(c))
          operands.push_back(c);
        else
          op = type_of(c);
      }
      if (operands.size() != 2) return std::nullopt;  // chained comparisons are left to run time
      PyVal x = eval(operands[0], scope, scratch, ctx, depth + 1);
      PyVal y = eval(operands[1], scope, scratch, ctx, depth + 1);
      auto r = compare(x.value, op, y.value);
      if (!r || x.value.is_unknown() || y.value.is_unknown()) return std::nullopt;
      return weakened(weakened(Truth{*r, false, {}}, x), y);
    }
    PyVal v = eval(n, scope, scratch, ctx, depth + 1);
    auto r = truthiness(v.value);
    if (!r) return std::nullopt;
    return weakened(Truth{*r, false, {}}, v);
  }

  // A setting made in a branch chosen by a fallback is itself a fallback.
  static void weaken_from(FactTable& table, std::size_t base, const Truth& chosen_by) {
    for (std::size_t i = base; i < table.facts.size(); ++i) take_fallback(table.facts[i], chosen_by);
  }

  static bool ends_in_raise(TSNode body) {
    std::uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
    for (std::uint32_t i = count; i-- > 0;) {
      TSNode last = ts_node_named_child(body, i);
      if (type_of(last) == "comment") continue;
      return type_of(last) == "raise_statement";
    }
    return false;
  }

  void branches(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
    struct Result {
      Scope scope;
      FactTable table;
    };
    struct Clause {
      TSNode condition;  // null for else
      TSNode body;
    };
    std::vector<Clause> clauses{{by_field<"condition">(n), by_field<"consequence">(n)}};
    for (TSNode c : NamedChildren(n)) {
      if (type_of(c) == "elif_clause")
        clauses.push_back({by_field<"condition">(c), by_field<"consequence">(c)});
      if (type_of(c) == "else_clause") clauses.push_back({TSNode{}, by_field<"body">(c)});
    }
    for (const auto& c : clauses)
      if (!ts_node_is_null(c.condition)) eval(c.condition, scope, table, ctx, depth);
    // Clauses whose conditions are decided statically: the false ones never run, and the first true one
    // is the only one that runs.
    std::vector<Clause> live;
    std::vector<TSNode> other_choices;  // bodies a caller could still choose with other arguments
    Truth decided_by;                   // what chose the clause that surely runs, when one does
    bool one_runs = false;
    for (const auto& c : clauses) {
      std::optional<Truth> tr = ts_node_is_null(c.condition) ? std::optional<Truth>(Truth{true, false, {}})
                                                             : truth(c.condition, scope, ctx, depth);
      if (one_runs) {
        if (decided_by.weak) other_choices.push_back(c.body);
        continue;
      }
      if (tr && !tr->value) {
        if (tr->weak) {
          if (!decided_by.weak) decided_by = *tr;
          other_choices.push_back(c.body);
        }
        continue;
      }
      live.push_back(c);
      if (tr && tr->value) {
        one_runs = true;
        if (tr->weak && !decided_by.weak) decided_by = *tr;
      }
    }
    if (one_runs && live.size() == 1) {
      // Misspelt settings in the branches other arguments choose are still mistakes.
      if (decided_by.weak)
        for (TSNode body : other_choices) {
          Scope s = scope;
          FactTable t = table;
          if (!ts_node_is_null(body)) walk_block(body, s, t, ctx, depth, false);
          for (std::size_t i = table.unrecognized.size(); i < t.unrecognized.size(); ++i)
            table.unrecognized.push_back(t.unrecognized[i]);
        }
      std::size_t base = table.facts.size();
      Scope before = scope;
      if (!ts_node_is_null(live[0].body)) walk_block(live[0].body, scope, table, ctx, depth, false);
      weaken_from(table, base, decided_by);
      if (decided_by.weak)
        for (auto& [name, v] : scope)
          if (auto it = before.find(name); it == before.end() || !(it->second.value == v.value))
            take_fallback(v, decided_by);
      return;
    }
    std::vector<Result> results;
    bool has_else = one_runs;
    for (const auto& c : live) {
      if (ts_node_is_null(c.condition)) has_else = true;
      if (ends_in_raise(c.body)) continue;  // a branch that raises never reaches what follows
      Result r{scope, table};
      // A branch that may run overrides what came before on purpose: not a conflict (PL802).
      std::fill(r.table.inherited.begin(), r.table.inherited.end(), true);
      if (!ts_node_is_null(c.body)) walk_block(c.body, r.scope, r.table, ctx, depth, false);
      results.push_back(std::move(r));
    }
    if (!has_else) results.push_back({scope, table});
    if (results.empty()) return;
    int line = node_location(n).range.start.line;

    std::set<std::string> names;
    for (const auto& r : results)
      for (const auto& [k, v] : r.scope) names.insert(k);
    for (const auto& name : names) {
      const PyVal* first = nullptr;
      bool agree = true;
      for (const auto& r : results) {
        auto it = r.scope.find(name);
        if (it == r.scope.end() || !it->second.value.is_known()) {
          agree = false;
          break;
        }
        if (!first)
          first = &it->second;
        else if (!(first->value == it->second.value))
          agree = false;
      }
      if (agree && first)
        scope[name] = *first;
      else if (scope.count(name) || agree == false) {
        PyVal u;
        u.value =
            Value::unknown("set differently depending on the condition at line " + std::to_string(line));
        scope[name] = u;
      }
    }
    // Settings made in some branch: kept if all branches end with the same value, else unknown.
    std::size_t base = table.facts.size();
    std::set<Key> touched;
    for (const auto& r : results)
      for (std::size_t i = base; i < r.table.facts.size(); ++i) touched.insert(r.table.facts[i].key);
    for (const auto& r : results) {
      for (std::size_t i = table.conflicts.size(); i < r.table.conflicts.size(); ++i)
        table.conflicts.push_back(r.table.conflicts[i]);
      for (std::size_t i = table.unrecognized.size(); i < r.table.unrecognized.size(); ++i)
        table.unrecognized.push_back(r.table.unrecognized[i]);
    }
    for (Key key : touched) {
      const Fact* first = nullptr;
      bool agree = true;
      for (const auto& r : results) {
        const Fact* f = r.table.last(key);
        if (!f || !f->value.is_known()) {
          agree = false;
          continue;
        }
        if (!first)
          first = f;
        else if (!(first->value == f->value))
          agree = false;
      }
      const Fact* any = nullptr;
      for (const auto& r : results)
        if (const Fact* f = r.table.last(key); f && !any && r.table.facts.size() > base) any = f;
      if (!any) continue;
      Fact f = agree && first ? *first : *any;
      if (!agree)
        f.value =
            Value::unknown("set differently depending on the condition at line " + std::to_string(line));
      table.add(std::move(f), true);
    }
  }

  // ---- expressions ------------------------------------------------------------------------------------

  static PyVal known(Value v) {
    PyVal p;
    p.value = std::move(v);
    return p;
  }

  static PyVal arithmetic(const PyVal& a, std::string_view op, const PyVal& b) {
    PyVal out;
    out.via = a.via;
    out.via.insert(out.via.end(), b.via.begin(), b.via.end());
    out.weak = a.weak || b.weak;
    out.weak_note = a.weak ? a.weak_note : b.weak_note;
    auto x = a.value.as_int(), y = b.value.as_int();
    if (!x || !y) {
      if (op == "+" && a.value.kind() == Value::Kind::kString && b.value.kind() == Value::Kind::kString) {
        out.value = Value::string(a.value.text() + b.value.text());
        return out;
      }
      const Value& u = a.value.is_unknown() ? a.value : b.value;
      out.value = u.is_unknown() ? u : Value::unknown("arithmetic on values that are not integers");
      return out;
    }
    std::int64_t r = 0;
    bool ok = true;
    if (op == "+")
      ok = !__builtin_add_overflow(*x, *y, &r);
    else if (op == "-")
      ok = !__builtin_sub_overflow(*x, *y, &r);
    else if (op == "*")
      ok = !__builtin_mul_overflow(*x, *y, &r);
    else if ((op == "//" || op == "%" || op == "/") && *y == 0)
      ok = false;
    else if (op == "//")
      r = (*x / *y) - ((*x % *y != 0) && ((*x < 0) != (*y < 0)));
    else if (op == "/" && *x % *y == 0)
      r = *x / *y;
    else if (op == "%")
      r = ((*x % *y) + *y) % *y;
    else
      ok = false;
    out.value = ok ? Value::integer(r) : Value::unknown("arithmetic parlint does not evaluate");
    return out;
  }

  PyVal eval(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
    if (ts_node_is_null(n) || depth > kMaxDepth) return PyVal{};
    std::string_view t = type_of(n);
    if (t == "integer") {
      std::string s = text(n);
      s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
      std::int64_t v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec == std::errc() && end == s.data() + s.size()) return known(Value::integer(v));
      return known(Value::string(s));
    }
    if (t == "float") return known(Value::string(text(n)));
    if (t == "true") return known(Value::boolean(true));
    if (t == "false") return known(Value::boolean(false));
    if (t == "none") return known(Value::null());
    if (t == "string") return string_value(n);
    if (t == "concatenated_string") {
      std::string all;
      for (std::uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
        PyVal p = string_value(ts_node_named_child(n, i));
        if (p.value.kind() != Value::Kind::kString) return p;
        all += p.value.text();
      }
      return known(Value::string(all));
    }
    if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
      return eval(ts_node_named_child(n, 0), scope, table, ctx, depth + 1);
    if (t == "identifier") {
      if (auto it = scope.find(text(n)); it != scope.end()) return it->second;
      return known(Value::unknown(text(n) + " is not known statically (imported or defined elsewhere)"));
    }
    if (t == "binary_operator") {
      PyVal a = eval(by_field<"left">(n), scope, table, ctx, depth + 1);
      PyVal b = eval(by_field<"right">(n), scope, table, ctx, depth + 1);
      TSNode op = by_field<"operator">(n);
      return arithmetic(a, ts_node_is_null(op) ? "" : type_of(op), b);
    }
    if (t == "unary_operator") {
      TSNode arg = by_field<"argument">(n);
      PyVal a = eval(arg, scope, table, ctx, depth + 1);
      if (auto v = a.value.as_int(); v && text(n).starts_with("-"))
        a.value = Value::integer(-*v);
      else if (!text(n).starts_with("+"))
        a.value = Value::unknown("a unary expression");
      return a;
    }
    if (t == "list" || t == "tuple") {
      // Elements are separate values (a table of test cases, several configs): the settings written
      // inside them are not this job's, and two of them are not a conflict.
      std::vector<Value> items;
      FactTable scratch;
      for (TSNode child : NamedChildren(n))
        items.push_back(eval(child, scope, scratch, ctx, depth + 1).value);
      return known(Value::list(std::move(items)));
    }
    if (t == "dictionary") return dictionary(n, scope, table, ctx, depth);
    if (t == "conditional_expression") {
      PyVal a = eval(ts_node_named_child(n, 0), scope, table, ctx, depth + 1);
      PyVal b = eval(ts_node_named_child(n, 2), scope, table, ctx, depth + 1);
      if (a.value == b.value) return a;
      if (auto tr = truth(ts_node_named_child(n, 1), scope, ctx, depth + 1)) {
        PyVal chosen = tr->value ? a : b;
        take_fallback(chosen, *tr);
        return chosen;
      }
      return known(Value::unknown("chosen by a condition at run time"));
    }
    if (t == "call") return call(n, scope, table, ctx, depth);
    if (t == "attribute") return known(Value::unknown(text(n) + " is read at run time"));
    if (t == "subscript") {
      std::string s = text(n);
      if (s.starts_with("os.environ[")) return env_value(n, "");
      return known(Value::unknown(s + " is read at run time"));
    }
    // Comparisons, lambdas, comprehensions, f-strings inside other nodes and the rest.
    for (TSNode child : NamedChildren(n)) eval(child, scope, table, ctx, depth + 1);
    return known(Value::unknown("an expression parlint does not evaluate"));
  }

  PyVal string_value(TSNode n) {
    std::string out;
    for (TSNode c : NamedChildren(n)) {
      std::string_view ct = type_of(c);
      if (ct == "interpolation") return known(Value::unknown("an f-string, built at run time"));
      if (ct == "string_content") out += text(c);
      if (ct == "escape_sequence") out += text(c);
    }
    return known(Value::string(out));
  }

  PyVal env_value(TSNode call_or_subscript, const std::string& fallback) {
    std::string s = text(call_or_subscript);
    auto q = s.find_first_of("\"'");
    std::string name = "a variable";
    if (q != std::string::npos) {
      auto e = s.find(s[q], q + 1);
      if (e != std::string::npos) name = s.substr(q + 1, e - q - 1);
    }
    return known(Value::unknown("read from environment variable " + name + " at run time" +
                                (fallback.empty() ? "" : " (fallback " + fallback + ")")));
  }

  PyVal dictionary(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
    auto entries = std::make_shared<std::map<std::string, PyVal>>();
    auto facts = std::make_shared<std::vector<Fact>>();
    for (TSNode pair : NamedChildren(n)) {
      if (type_of(pair) != "pair") continue;
      TSNode k = by_field<"key">(pair), v = by_field<"value">(pair);
      if (ts_node_is_null(k) || ts_node_is_null(v) || type_of(k) != "string") continue;
      PyVal key = string_value(k);
      if (key.value.kind() != Value::Kind::kString) continue;
      PyVal val = eval(v, scope, table, ctx, depth + 1);
      if (auto m = key_for_name(key.value.text())) {
        Fact f = make_fact(*m, val, node_location(v), Origin::kPythonKwarg, key.value.text());
        facts->push_back(f);
        table.add(std::move(f), false);
      }
      (*entries)[key.value.text()] = std::move(val);
    }
    PyVal out = known(Value::unknown("a dict"));
    out.dict = entries;
    if (!facts->empty()) out.object = facts;
    return out;
  }

  PyVal call(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
    TSNode fn = by_field<"function">(n);
    TSNode args = by_field<"arguments">(n);
    std::string fname = ts_node_is_null(fn) ? "" : text(fn);
    std::string last = last_component(fname);

    // Environment reads are unknown; their default is only shown as a fallback.
    if (fname == "os.environ.get" || fname == "os.getenv" || fname == "environ.get" || fname == "getenv") {
      std::string fallback;
      if (!ts_node_is_null(args) && ts_node_named_child_count(args) > 1)
        fallback = text(ts_node_named_child(args, 1));
      return env_value(n, fallback);
    }
    std::vector<TSNode> positional;
    std::vector<std::pair<std::string, TSNode>> keywords;
    std::vector<TSNode> splats;
    if (!ts_node_is_null(args)) {
      for (TSNode a : NamedChildren(args)) {
        std::string_view at = type_of(a);
        if (at == "keyword_argument") {
          TSNode name = by_field<"name">(a), value = by_field<"value">(a);
          if (!ts_node_is_null(name) && !ts_node_is_null(value)) keywords.emplace_back(text(name), value);
        } else if (at == "dictionary_splat") {
          splats.push_back(ts_node_named_child(a, 0));
        } else if (at != "comment") {
          positional.push_back(a);
        }
      }
    }
    if ((last == "int" || last == "str" || last == "max" || last == "min") && keywords.empty() &&
        !positional.empty()) {
      std::vector<PyVal> vals;
      for (TSNode p : positional) vals.push_back(eval(p, scope, table, ctx, depth + 1));
      PyVal r = vals[0];
      if (last == "int" && r.value.kind() == Value::Kind::kString) {
        std::int64_t v = 0;
        const std::string& s = r.value.text();
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        r.value = ec == std::errc() && end == s.data() + s.size() ? Value::integer(v)
                                                                  : Value::unknown("int() of text");
      }
      if (last == "max" || last == "min") {
        for (const auto& v : vals) {
          auto a = r.value.as_int(), b = v.value.as_int();
          if (!a || !b) return known(Value::unknown(last + "() of values known only at run time"));
          if ((last == "max" && *b > *a) || (last == "min" && *b < *a)) r = v;
        }
      }
      return r;
    }
    // "Lora".lower(): string methods that condition recipes on their arguments.
    if ((last == "lower" || last == "upper" || last == "strip") && type_of(fn) == "attribute" &&
        positional.empty() && keywords.empty()) {
      PyVal o = eval(by_field<"object">(fn), scope, table, ctx, depth + 1);
      if (o.value.kind() != Value::Kind::kString)
        return known(Value::unknown("the result of " + fname + "()"));
      std::string s = o.value.text();
      if (last == "strip") {
        auto b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
        s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
      } else {
        for (char& ch : s)
          ch = static_cast<char>(last == "lower" ? std::tolower(static_cast<unsigned char>(ch))
                                                 : std::toupper(static_cast<unsigned char>(ch)));
      }
      o.value = Value::string(std::move(s));
      return o;
    }
    // NeMo 2 recipe modules name their model: llm.llama3_70b.pretrain_recipe(...).
    if ((last == "pretrain_recipe" || last == "finetune_recipe") && fname.find('.') != std::string::npos) {
      std::string module = fname.substr(0, fname.rfind('.'));
      named_model_ = last_component(module);
    }
    if ((last == "from_hf_pretrained" || last == "from_pretrained") && !positional.empty() &&
        type_of(positional[0]) == "string") {
      PyVal id = string_value(positional[0]);
      if (id.value.kind() == Value::Kind::kString) named_model_ = id.value.text();
    }
    if (last == "setattr" && positional.size() == 3 && type_of(positional[1]) == "string") {
      PyVal key = string_value(positional[1]);
      PyVal v = eval(positional[2], scope, table, ctx, depth + 1);
      std::vector<std::string> path;
      attribute_path(positional[0], path);
      path.erase(path.begin());
      if (key.value.kind() == Value::Kind::kString) path.push_back(key.value.text());
      if (!path.empty())
        setting(path, v, node_location(positional[2]), Origin::kPythonAssign, table,
                node_location(positional[1]));
      return known(Value::null());
    }

    auto facts = std::make_shared<std::vector<Fact>>();
    // dataclasses.replace(BASE, ...) and local recipe functions start from the facts they build on.
    if ((last == "replace") && !positional.empty()) {
      PyVal base = eval(positional[0], scope, table, ctx, depth + 1);
      if (base.object)
        for (const auto& f : *base.object) {
          facts->push_back(f);
          table.add(f, true);
        }
    }
    PyVal result;
    PythonParser* owner = nullptr;
    std::string callee_name = fname;
    if (type_of(fn) == "identifier" && functions_.count(fname)) {
      owner = this;
      if (!ctx.function.empty() && ctx.function != fname) called_from_functions_.insert(fname);
    } else if (auto imp = imports_.find(fname); type_of(fn) == "identifier" && imp != imports_.end()) {
      owner = imported_module(imp->second.first);
      callee_name = imp->second.second;
      if (owner && !owner->functions_.count(callee_name)) owner = nullptr;
    }
    // A Megatron-Bridge library recipe (llama3_8b_pretrain_config(), llama3_8b.pretrain_config()) that is
    // not this project's own function: its layout and model come from the built-in recipe table, as for
    // run_recipe.py --recipe.
    if (!owner && bridge_hint_ && last.ends_with("_config") &&
        (last.find("pretrain") != std::string::npos || last.find("finetune") != std::string::npos ||
         last.find("sft") != std::string::npos || last.find("peft") != std::string::npos)) {
      std::string module = fname.find('.') != std::string::npos ? fname.substr(0, fname.rfind('.')) : "";
      module = last_component(module);
      table.recipe = (last == "pretrain_config" || last == "finetune_config") && !module.empty()
                         ? module + "_" + last
                         : last;
      table.recipe_changed_by.clear();
      result.library_recipe = true;
      result.recipe = table.recipe;
    }
    // A NeMo 2 library recipe (llm.llama3_70b.pretrain_recipe(...), or llama3_70b imported from
    // nemo.collections.llm.recipes): its layout comes from the built-in NeMo 2 recipe table; the call's
    // keywords are its settings (num_nodes) or arguments the table knows may change it (peft_scheme).
    bool nemo_recipe_call = false;
    if (!owner && last.ends_with("_recipe") && fname.find('.') != std::string::npos) {
      std::string module = fname.substr(0, fname.rfind('.'));
      auto imp = imports_.find(module.substr(0, module.find('.')));
      if (imp != imports_.end() && imp->second.first.starts_with("nemo")) {
        nemo_recipe_call = true;
        table.recipe = last_component(module) + "." + last;
        table.recipe_changed_by = positional.empty() ? "" : fname + "() with positional arguments";
        table.recipe_arguments.clear();
        result.library_recipe = true;
        result.recipe = table.recipe;
        for (const auto& [name, value] : keywords) {
          PyVal v = eval(value, scope, table, ctx, depth + 1);
          auto key = name == "num_gpus_per_node" ? std::optional(Key::kGpusPerNode) : key_for_name(name);
          if (!key) {
            table.recipe_arguments.push_back(name);
            continue;
          }
          Fact f = make_fact(*key, v, node_location(value), Origin::kPythonKwarg, name);
          facts->push_back(f);
          table.add(std::move(f), false);
        }
        result.recipe_arguments = table.recipe_arguments;
      }
    }
    if (!owner && !positional.empty() && (fname == "run.run" || fname == "nemo_run.run" || last == "add"))
      if (auto e = std::find_if(keywords.begin(), keywords.end(),
                                [](const auto& k) { return k.first == "executor"; });
          e != keywords.end())
        return run_with_executor(n, positional[0], e->second, scope, table, ctx, depth);
    bool recipe_call = owner != nullptr || nemo_recipe_call;
    if (owner) {
      std::vector<Arg> pos;
      std::vector<std::pair<std::string, Arg>> kw;
      for (TSNode p : positional) pos.push_back({eval(p, scope, table, ctx, depth + 1), node_location(p)});
      for (const auto& [name, value] : keywords)
        kw.emplace_back(name, Arg{eval(value, scope, table, ctx, depth + 1), node_location(value)});
      result = owner->invoke(callee_name, pos, kw, table, ctx, depth);
      if (result.object)
        for (const auto& f : *result.object) facts->push_back(f);
    } else {
      for (TSNode p : positional) {
        PyVal v = eval(p, scope, table, ctx, depth + 1);
        if (v.object)
          for (const auto& f : *v.object) facts->push_back(f);
        // _benchmark_common(cfg) from a module parlint cannot read may change any setting of the recipe.
        if (v.library_recipe && !result.library_recipe && table.recipe_changed_by.empty() &&
            !reads_only(fname))
          table.recipe_changed_by = (fname.size() > 40 ? fname.substr(0, 37) + "..." : fname) + "()";
      }
    }
    // Settings constructors: unknown keywords that look like settings are PL801 candidates.
    auto settings_class = [](std::string_view name) {
      return name.ends_with("Strategy") || name.ends_with("Config") || name.ends_with("Provider") ||
             name.ends_with("Executor") || name.ends_with("Trainer");
    };
    // run.Config(nl.MegatronStrategy, ...) configures its first argument: a settings class, or something
    // else entirely (run.Config(ConfigParams, parallelism=...) of an evaluation harness).
    std::string configured = last == "Config" && !positional.empty() ? text(positional[0]) : "";
    configured = last_component(configured);
    bool constructor = last == "Config" ? configured.empty() || settings_class(configured)
                                        : settings_class(last) || last == "initialize_model_parallel" ||
                                              last == "replace" || last.ends_with("_executor");
    for (TSNode s : splats) {
      PyVal v = eval(s, scope, table, ctx, depth + 1);
      if (v.object)
        for (const auto& f : *v.object) facts->push_back(f);  // already recorded where the dict was written
    }
    for (const auto& [name, value] : keywords) {
      if (recipe_call) break;  // bound to the callee's parameters above
      PyVal v = eval(value, scope, table, ctx, depth + 1);
      if (v.object)
        for (const auto& f : *v.object) facts->push_back(f);  // nested config objects (model=Provider(...))
      auto key = key_for_name(name);
      if (!key) {
        if (constructor) table.unrecognized.push_back({name, node_location(ts_node_parent(value)), false});
        continue;
      }
      Fact f = make_fact(*key, v, node_location(value), Origin::kPythonKwarg, name);
      facts->push_back(f);
      table.add(std::move(f), false);
    }
    if (last == "SlurmExecutor" || last == "LocalExecutor") {
      std::string launcher;  // "" none, "torchrun", or "?" when written but not known statically
      for (const auto& [name, value] : keywords) {
        if (name != "launcher") continue;
        PyVal l = eval(value, scope, table, ctx, depth + 1);
        std::string t = l.value.kind() == Value::Kind::kString ? l.value.text() : text(value);
        launcher = l.value.kind() == Value::Kind::kNull ? ""
                   : t.find("torchrun") != std::string::npos || t.find("Torchrun") != std::string::npos ||
                           t == "ft" || t.find("FaultTolerance") != std::string::npos
                       ? "torchrun"
                       : "?";
      }
      executor_processes(last, launcher, node_location(n), *facts, result);
    }
    if (!facts->empty()) result.object = facts;
    if (result.value.is_known() == false && result.value.unknown_reason() == "not known statically")
      result.value =
          Value::unknown("the result of " + (fname.size() > 40 ? fname.substr(0, 37) + "..." : fname) + "()");
    return result;
  }

  // The processes a NeMo-Run executor starts per node (nemo_run/core/execution/slurm.py and local.py at
  // NeMo-Run 0c49127199ca), as the executor's ntasks_per_node. Without a launcher, srun starts
  // ntasks_per_node tasks (default 1); with torchrun, nproc_per_node(): torchrun_nproc_per_node if set,
  // else gpus_per_node when ntasks_per_node is 1, else gpus_per_task, else ntasks_per_node. A
  // LocalExecutor without a launcher runs one process and Lightning spawns the trainer's devices itself:
  // nothing to join.
  void executor_processes(const std::string& kind, const std::string& launcher, const Location& at,
                          std::vector<Fact>& facts, PyVal& result) {
    if (kind == "LocalExecutor" && launcher.empty()) return;
    result.executor = true;
    auto find = [&](std::string_view spelling) -> const Fact* {
      for (auto it = facts.rbegin(); it != facts.rend(); ++it)
        if (it->spelling == spelling) return &*it;
      return nullptr;
    };
    const Fact* tasks = find("ntasks_per_node");
    std::optional<Fact> default_tasks;
    if (!tasks) {
      default_tasks = make_fact(Key::kNtasksPerNode, known(Value::integer(1)), at, Origin::kPythonKwarg,
                                "NeMo-Run's default ntasks_per_node=1");
      tasks = &*default_tasks;
    }
    const Fact* chosen = tasks;
    if (launcher == "?") {
      default_tasks = make_fact(Key::kNtasksPerNode,
                                known(Value::unknown("the executor's launcher is not known statically")), at,
                                Origin::kPythonKwarg, "the executor's processes per node");
      chosen = &*default_tasks;
    } else if (kind == "SlurmExecutor" && launcher == "torchrun") {
      if (const Fact* t = find("torchrun_nproc_per_node")) {
        chosen = t;
      } else if (const Fact* g = find("gpus_per_node");
                 g && (!tasks || tasks->value.as_int() == std::optional<std::int64_t>(1))) {
        chosen = g;
      } else if (const Fact* gt = find("gpus_per_task")) {
        chosen = gt;
      }
    }
    Fact per_node = *chosen;
    per_node.key = Key::kNtasksPerNode;
    std::erase_if(facts, [](const Fact& f) { return f.key == Key::kNtasksPerNode; });
    facts.push_back(std::move(per_node));
  }

  // run.run(recipe, executor=...) and exp.add(recipe, executor=...): the recipe runs as the processes the
  // executor starts. The trainer's num_nodes is what Lightning is told (NeMo's ConfigValidationPlugin and
  // Lightning's SLURMEnvironment both require it to match the executor's nodes).
  PyVal run_with_executor(TSNode call_node, TSNode task_node, TSNode executor_node, Scope& scope,
                          FactTable& table, Context& ctx, int depth) {
    PyVal task = eval(task_node, scope, table, ctx, depth + 1);
    PyVal exe = eval(executor_node, scope, table, ctx, depth + 1);
    PyVal none = known(Value::null());
    if (!exe.executor || (!task.object && task.recipe.empty())) return none;
    FactTable joined;
    joined.recipe = task.recipe;
    joined.recipe_arguments = task.recipe_arguments;
    bool executor_nodes = false;
    if (exe.object)
      for (const auto& f : *exe.object) executor_nodes |= f.key == Key::kNodes;
    if (task.object)
      for (Fact f : *task.object) {
        if (f.key == Key::kGpusPerNode || f.key == Key::kWorldSize)
          continue;  // the executor's processes count
        if (f.key == Key::kNodes) f.key = Key::kNnodes;
        joined.add(std::move(f), true);
      }
    if (exe.object)
      for (const auto& f : *exe.object) joined.add(f, true);
    if (!executor_nodes) {  // NeMo-Run executors default to one node
      // A default, not a written node count: Lightning's check of num_nodes under torchrun is not
      // SLURM's, and PL106 speaks for SLURM.
      Fact one = make_fact(Key::kNodes, known(Value::integer(1)), Location{}, Origin::kRecipeDefault,
                           "the executor's default nodes=1");
      joined.add(std::move(one), true);
    }
    std::string task_text = text(task_node), exe_text = text(executor_node);
    auto shorten = [](std::string t) { return t.size() > 30 ? t.substr(0, 27) + "..." : t; };
    std::string description = "run of " + shorten(task_text) + " on " + shorten(exe_text);
    SourceRange range = node_location(call_node).range;
    // Read first where it is called (main() from the script's guard, with its arguments), then again as
    // a function of its own with its defaults: the first reading stands.
    for (const auto& j : out_.jobs)
      if (j.range == range && j.description == description) return none;
    emit(std::move(joined), description, range);
    RawJob& job = out_.jobs.back();
    job.launch = LaunchKind::kSrunNative;
    job.gpu_entry_point = true;
    job.executor_runs_recipe = true;
    if (job.framework == Framework::kUnknown) job.framework = Framework::kNemo2;
    return none;
  }

  // A call to a recipe function (of this module or an imported local one): read it with the arguments
  // bound, and inherit its settings.
  PyVal invoke(const std::string& fname, const std::vector<Arg>& positional,
               const std::vector<std::pair<std::string, Arg>>& keywords, FactTable& table, Context& ctx,
               int depth) {
    PyVal out = known(Value::unknown("the result of " + fname + "()"));
    std::string qualified = std::string(path_) + ":" + fname;
    if (ctx.call_depth >= kMaxCallDepth || graph_.statements_read > kMaxStatements ||
        std::find(ctx.call_stack.begin(), ctx.call_stack.end(), qualified) != ctx.call_stack.end())
      return out;
    TSNode fn = functions_.at(fname);
    Scope callee = module_scope_;
    FactTable inner;
    bind_defaults(fn, fname, callee, inner, ctx);
    // Bind the caller's arguments over the defaults.
    TSNode params = by_field<"parameters">(fn);
    std::vector<std::string> names;
    for (std::uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); ++i) {
      TSNode p = ts_node_named_child(params, i);
      TSNode nm = type_of(p) == "identifier" ? p : by_field<"name">(p);
      if (type_of(p) == "typed_parameter") nm = ts_node_named_child(p, 0);
      names.push_back(ts_node_is_null(nm) ? "" : text(nm));
    }
    auto bind = [&](const std::string& name, const Arg& arg) {
      PyVal bound = arg.value;
      bound.via.insert(bound.via.begin(), {arg.where, name + " passed to " + fname + "() here"});
      callee[name] = bound;
      if (auto key = key_for_name(name)) {
        // The caller's argument replaces the callee's default for that setting.
        for (std::size_t i = inner.facts.size(); i-- > 0;)
          if (inner.facts[i].key == *key && inner.facts[i].origin == Origin::kRecipeDefault) {
            inner.facts.erase(inner.facts.begin() + static_cast<long>(i));
            inner.inherited.erase(inner.inherited.begin() + static_cast<long>(i));
          }
        inner.add(make_fact(*key, arg.value, arg.where, Origin::kPythonKwarg, name), true);
      }
    };
    for (std::size_t i = 0; i < positional.size() && i < names.size(); ++i) bind(names[i], positional[i]);
    for (const auto& [name, arg] : keywords) bind(name, arg);
    Context c = ctx;
    ++c.call_depth;
    c.call_stack.push_back(qualified);
    c.in_loop = false;
    PyVal saved = return_value_;
    return_value_ = PyVal{};
    TSNode body = by_field<"body">(fn);
    if (!ts_node_is_null(body)) walk_block(body, callee, inner, c, depth + 1, false);
    PyVal returned = return_value_;
    return_value_ = saved;
    auto facts = std::make_shared<std::vector<Fact>>();
    graph_.statements_read += inner.facts.size();  // inherited settings count against the same budget
    for (auto f : inner.facts) {
      if (f.origin == Origin::kRecipeName) continue;
      f.written_at.push_back({f.location, "set in " + fname + "()"});
      facts->push_back(f);
      table.add(std::move(f), true);  // inherited: the caller's own settings win without conflict
    }
    if (table.recipe.empty()) {  // the callee builds on a library recipe
      table.recipe = inner.recipe;
      table.recipe_changed_by = inner.recipe_changed_by;
      table.recipe_arguments = inner.recipe_arguments;
    }
    out.recipe = inner.recipe;
    out.recipe_arguments = inner.recipe_arguments;
    out.library_recipe = !inner.recipe.empty() && inner.recipe_changed_by.empty();
    out.executor = returned.executor;
    out.object = facts;
    if (returned.value.is_known()) out.value = returned.value;
    return out;
  }

  std::string path_;  // owned: imported modules outlive the strings their paths were built from
  const SourceText& source_;
  ParsedFile out_;
  std::unique_ptr<TSTree, TsTreeDeleter> tree_;
  std::map<std::string, TSNode> functions_;
  std::set<std::string> called_from_functions_;                 // module functions another function calls
  std::vector<std::pair<std::string, TSNode>> function_order_;  // in definition order
  Scope module_scope_;
  PyVal return_value_;
  std::string named_model_;  // the last Hugging Face id the file loads (AutoBridge.from_hf_pretrained)
  ImportGraph& graph_;
  int import_depth_ = 0;
  std::map<std::string, std::pair<std::string, std::string>> imports_;  // local name -> (module, name)
  bool bridge_hint_ = false, nemo2_hint_ = false;
};

}  // namespace

ParsedFile parse_python(std::string_view path, const SourceText& source, const FileReader& reader) {
  ImportGraph graph{reader, {}, {}, 0};
  PythonParser parser(path, source, graph);
  return parser.run();
}

}  // namespace parlint
