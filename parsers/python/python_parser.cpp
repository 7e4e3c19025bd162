#include "parsers/python/python_parser.h"

#include "parsers/python/python_interpreter.h"
#include "parsers/python/python_syntax_check.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include <filesystem>
#include "parsers/args/argparse_flags.h"
#include "parsers/args/script_purpose.h"
#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::py {
namespace {

SharedTsTree parse_text(std::string_view text) {
  return TsTree(ts_parser_parse_string(thread_python_parser(), nullptr, text.data(),
                                       static_cast<std::uint32_t>(text.size())));
}

// A module's key in the run's cache: its path, and the size limit it was read with (inputs configured
// with different limits may read different texts).
std::string module_key(const std::string& path, const FileReader& reader) {
  return path + '\n' + std::to_string(std::min(kMaxImportedFileSize, reader.max_size()));
}

}  // namespace

void PythonParser::prepare(SharedTsTree tree) {
  tree_ = std::move(tree);
  if (!tree_) return;
  TSNode root = ts_tree_root_node(tree_.get());
  collect_functions(root);
  collect_imports(root);  // its functions call what it imports, as the importing file's do
  FactTable scratch;
  Context ctx;
  walk_block(root, module_scope_, scratch, ctx, 0, false);
}

ParsedFile PythonParser::run() {
  std::string_view text = source_.text();
  tree_ = own_tree();
  if (!tree_) return std::move(out_);
  TSNode root = ts_tree_root_node(tree_.get());
  // The grammar's errors are Python's only where CPython's tokenizer refuses the text too; elsewhere the
  // grammar lacks a form Python accepts, and those lines are unread (PL903), not wrong.
  if (auto bad = error_nodes(root, kMaxSyntaxErrors, kMaxDepth); !bad.empty()) {
    if (auto definite = find_python_syntax_error(text)) {
      SourcePosition at = source_.position(definite->offset);
      out_.errors.push_back(
          {{at, {at.line, at.column + 1}}, "Python syntax error: " + definite->message, ""});
    } else {
      for (TSNode n : bad)
        out_.unread.push_back(
            {node_location(n).range,
             "Python that parlint's grammar does not read (CPython may accept it: the grammar "
             "lags the newest syntax)",
             "write the settings of these lines in a plainer form if they matter to the layout"});
    }
  }

  out_.defined_flags = argparse_flags_defined(text);
  out_.takes_unlisted_arguments = takes_unlisted_arguments(text);
  // Module body first: constants, config objects, and the module job.
  collect_functions(root);
  collect_imports(root);
  FactTable module;
  Context ctx;
  walk_block(root, module_scope_, module, ctx, 0, /*module_level=*/true);
  // A job read only in part could be judged on defaults its unread lines change: once the budget runs
  // out, the job being read and every later one are left out, and their lines reported unread (PL903).
  std::optional<SourcePosition> unread_from;
  if (graph_.budget.exhausted()) unread_from = SourcePosition{1, 1};
  if (module.size() > 0 && !unread_from) {
    emit(std::move(module), "module", {{1, 1}, {1, 1}});
    out_.jobs.back().function = "<module>";
  }

  std::vector<std::pair<std::size_t, std::string>> function_jobs;  // out_.jobs index, function name
  const std::string module_model = named_model_;
  for (const auto& [name, node] : function_order_) {
    named_model_ = module_model;  // the model a function loads is its own, not the previous function's
    Context fctx;
    fctx.function = name;
    Scope scope = module_scope_;
    FactTable table;
    bind_defaults(node, name, scope, table, fctx);
    recipe_name_world_size(node, name, table);
    if (unread_from) break;
    TSNode body = by_field<"body">(node);
    if (!ts_node_is_null(body)) walk_block(body, scope, table, fctx, 0, false);
    if (graph_.budget.exhausted()) {
      unread_from = source_.position(ts_node_start_byte(node));
      break;
    }
    bool sets = false;
    for (const auto& f : table.facts()) sets |= f.origin != Origin::kRecipeName;
    if (sets) {
      function_jobs.emplace_back(out_.jobs.size(), name);
      emit(std::move(table), name + "()", node_location(node).range);
      out_.jobs.back().function = name;
      out_.jobs.back().extent = {source_.position(ts_node_start_byte(node)),
                                 source_.position(ts_node_end_byte(node))};
      out_.jobs.back().hardware = recipe_name_hardware(name);
      out_.jobs.back().edits_passed_config = takes_required_parameter(node);
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
  drop_copies(out_.jobs);
  // A generation, serving or evaluation script (its name says so) builds its model without training it.
  if (runs_without_training(path_))
    for (auto& job : out_.jobs) job.trains = false;
  if (unread_from) out_.unread.push_back(over_budget_region(source_, unread_from->line, graph_.budget));
  // A file that defines Megatron's own --tensor-model-parallel-size is Megatron's argument parser (a
  // vendored or forked megatron/arguments.py): `args.x = ...` there is the framework computing its
  // arguments at run time, not a configuration.
  const auto& defined = out_.defined_flags;
  if (std::find(defined.begin(), defined.end(), "--tensor-model-parallel-size") != defined.end())
    out_.jobs.clear();
  return std::move(out_);
}

// A function that only passes on what the module set (`def main(): run(recipe)` under module-level
// settings) reads the same settings from the same lines as the module job: a copy, one job too many in
// `plan` and one finding too many per mistake. One is kept: a named function over the module. Recipes that
// write alike at their own lines are not copies.
void PythonParser::drop_copies(std::vector<RawJob>& jobs) {
  auto same = [](const RawJob& a, const RawJob& b) {
    if (a.facts.size() != b.facts.size() || a.framework != b.framework || a.launch != b.launch) return false;
    for (std::size_t i = 0; i < a.facts.size(); ++i) {
      const Fact& x = a.facts[i];
      const Fact& y = b.facts[i];
      if (x.key != y.key || !(x.value == y.value) || x.location.path != y.location.path ||
          x.location.range != y.location.range)
        return false;
    }
    return true;
  };
  // Bucketed by where the facts were written, so a file of many functions is compared in linear time.
  auto where = [](const RawJob& j) {
    std::size_t h = j.facts.size();
    for (const Fact& f : j.facts)
      h = h * 1000003u ^ (static_cast<std::size_t>(f.key) * 31u +
                          static_cast<std::size_t>(f.location.range.start.line) * 131u +
                          static_cast<std::size_t>(f.location.range.start.column));
    return h;
  };
  std::unordered_map<std::size_t, std::vector<std::size_t>> seen;  // signature -> indexes into kept
  std::vector<RawJob> kept;
  for (auto& job : jobs) {
    if (!job.facts.empty()) {
      auto& bucket = seen[where(job)];
      auto copy =
          std::find_if(bucket.begin(), bucket.end(), [&](std::size_t k) { return same(kept[k], job); });
      if (copy != bucket.end()) {
        // The function's name says more than "module" (the module job ran it: `run.run(one_node_70b())`).
        if (kept[*copy].function == "<module>") kept[*copy] = std::move(job);
        continue;
      }
      bucket.push_back(kept.size());
    }
    kept.push_back(std::move(job));
  }
  jobs = std::move(kept);
}

bool PythonParser::takes_required_parameter(TSNode fn) const {
  TSNode params = by_field<"parameters">(fn);
  if (ts_node_is_null(params)) return false;
  for (TSNode p : CodeChildren(params)) {
    std::string_view t = type_of(p);
    if (t == "identifier" || t == "typed_parameter") return true;
  }
  return false;
}

Location PythonParser::node_location(TSNode n) const {
  std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  SourcePosition start = source_.position(b), end = source_.position(e);
  if (end.line != start.line) end = source_.position(start.line, source_.line(start.line).size());
  if (!(end > start)) end = {start.line, start.column + 1};
  return {std::string(path_), {start, end}};
}

std::string PythonParser::text(TSNode n) const {
  return std::string(
      source_.text().substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n)));
}

void PythonParser::emit(FactTable table, const std::string& name, SourceRange range) {
  RawJob job;
  job.model = named_model_;
  job.recipe = table.recipe;
  job.range = range;
  job.description = name;
  job.conflicts = table.take_conflicts();
  job.facts = table.take_facts();
  job.unrecognized = std::move(table.unrecognized);
  for (const auto& f : job.facts) {
    if (f.spelling.find("strategy") != std::string::npos || f.spelling.find("trainer") != std::string::npos)
      job.framework = Framework::kNemo2;
  }
  if (name.find("_config") != std::string::npos || bridge_hint_) job.framework = Framework::kMegatronBridge;
  if (nemo2_hint_ && job.framework == Framework::kUnknown) job.framework = Framework::kNemo2;
  out_.jobs.push_back(std::move(job));
}

void PythonParser::collect_functions(TSNode root) {
  for (TSNode c : CodeChildren(root)) {
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

void PythonParser::collect_imports(TSNode root) {
  for (TSNode c : CodeChildren(root)) {
    if (type_of(c) != "import_from_statement") continue;
    TSNode module = by_field<"module_name">(c);
    if (ts_node_is_null(module)) continue;
    std::string spec = text(module);
    CodeChildren children(c);
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
std::optional<std::string> PythonParser::resolve_module(const std::string& spec) const {
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

PythonParser* PythonParser::imported_module(const std::string& spec) {
  if (import_depth_ >= kMaxImportDepth) return nullptr;
  // Looked up once per spec: every call of an imported function names its module again.
  auto [resolved, fresh] = resolved_.try_emplace(spec);
  if (fresh) resolved->second = resolve_module(spec);
  const std::optional<std::string>& file = resolved->second;
  if (!file || *file == path_) return nullptr;
  auto it = graph_.parsers.find(*file);
  if (it != graph_.parsers.end()) return it->second.get();
  graph_.parsers[*file] = nullptr;  // guards cycles while it is being read
  PythonModuleCache::Module module = load_module(*file);
  auto parser = std::make_unique<PythonParser>(*file, *module.source, graph_, import_depth_ + 1);
  graph_.sources[*file] = std::move(module.source);
  parser->prepare(std::move(module.tree));
  graph_.parsers[*file] = std::move(parser);
  return graph_.parsers[*file].get();
}

PythonModuleCache::Module PythonParser::load_module(const std::string& file) {
  PythonModuleCache* cache = graph_.modules;
  std::string key = cache ? module_key(file, graph_.reader) : std::string();
  // Parsed for another file of the run: taken when this file's budget has what parsing it cost left
  // (else parsed here, and the budget runs out where it would have).
  if (cache)
    if (auto kept = cache->find(key); kept && graph_.budget.remaining() >= kept->units) {
      graph_.budget.spend(kept->units);
      return std::move(*kept);
    }
  std::uint64_t before = graph_.budget.spent();
  PythonModuleCache::Module module;
  module.source =
      std::make_shared<const SourceText>(graph_.reader.read(file, kMaxImportedFileSize).value_or(""));
  module.tree = parse_text(module.source->text());
  module.units = graph_.budget.spent() - before;
  if (cache && module.tree && !graph_.budget.exhausted()) cache->keep(key, module);
  return module;
}

SharedTsTree PythonParser::own_tree() {
  if (graph_.modules) {
    std::string key = module_key(std::filesystem::path(path_).lexically_normal().string(), graph_.reader);
    if (auto kept = graph_.modules->find(key);
        kept && kept->source->text() == source_.text() && graph_.budget.remaining() >= kept->units) {
      graph_.budget.spend(kept->units);
      return std::move(kept->tree);
    }
  }
  return parse_text(source_.text());
}

// Megatron-Bridge recipe names state their GPU count: ..._pretrain_16gpu_h100_bf16_config.
// ..._pretrain_8gpu_b200_bf16_config targets B200 GPUs: the word after the GPU count.
std::string PythonParser::recipe_name_hardware(const std::string& name) {
  auto pos = name.find("gpu_");
  if (pos == std::string::npos || pos == 0 || !std::isdigit(static_cast<unsigned char>(name[pos - 1])))
    return "";
  std::size_t b = pos + 4, e = name.find('_', b);
  std::string hw = name.substr(b, e == std::string::npos ? std::string::npos : e - b);
  bool plausible = hw.size() >= 3 && hw.size() <= 6 && std::isalpha(static_cast<unsigned char>(hw[0])) &&
                   std::any_of(hw.begin(), hw.end(), [](char c) { return std::isdigit((unsigned char)c); });
  return plausible ? hw : "";
}

void PythonParser::recipe_name_world_size(TSNode fn, const std::string& name, FactTable& table) {
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

Fact PythonParser::make_fact(Key key, const PyVal& v, Location loc, Origin origin, std::string spelling) {
  Fact f;
  f.key = key;
  f.value = v.value;
  f.location = std::move(loc);
  f.origin = origin;
  f.spelling = std::move(spelling);
  f.weak = v.weak;
  f.weak_note = v.weak_note;
  f.written_at = v.via;
  f.default_of = v.default_of;
  if (key_type(key) == KeyType::kBool && f.value.kind() == Value::Kind::kInt)
    f.value = Value::boolean(*f.value.as_int() != 0);
  return f;
}

}  // namespace parlint::py

namespace parlint {

ParsedFile parse_python(std::string_view path, const SourceText& source, const FileReader& reader,
                        WorkBudget* budget, PythonModuleCache* modules) {
  WorkBudget own;
  py::ImportGraph graph{reader, {}, {}, budget ? *budget : own, modules};
  py::PythonParser parser(path, source, graph);
  return parser.run();
}

}  // namespace parlint
