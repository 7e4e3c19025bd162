// Calls: built-in conversions and string methods, Megatron-Bridge and NeMo 2 library recipes, settings
// constructors (their keywords are settings), NeMo-Run executors joined with the recipe they run, and
// local recipe functions read with the caller's arguments bound.
#include "parsers/python/python_interpreter.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::py {

// Parameters with defaults are weak values (callers usually override them); without a default, unknown.
// Defaults are evaluated as part of the call that needs them: with the caller's depth and call stack,
// so a default that calls its own function (directly or round a cycle) stops at the bound instead of
// recursing until the stack overflows (found by fuzz_python).
void PythonParser::bind_defaults(TSNode fn, const std::string& fname, Scope& scope, FactTable& table,
                                 const Context& caller) {
  TSNode params = by_field<"parameters">(fn);
  if (ts_node_is_null(params)) return;
  for (TSNode p : CodeChildren(params)) {
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

PyVal PythonParser::call(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
  CallSite c = call_site(n);
  note_named_model(c, scope);
  // AutoBridge.from_hf_pretrained(ID).to_megatron_provider(): the calls the chain starts from name the
  // model too.
  TSNode fn = c.fn;
  for (int links = 0; links < 8 && type_of(fn) == "attribute"; ++links) {
    TSNode object = by_field<"object">(fn);
    if (type_of(object) != "call") break;
    CallSite inner = call_site(object);
    note_named_model(inner, scope);
    fn = inner.fn;
  }
  // Calls answered by themselves; every other call is read for the settings it makes.
  static constexpr CallHandler kHandlers[] = {
      &PythonParser::environment_read, &PythonParser::builtin_conversion, &PythonParser::string_method,
      &PythonParser::setattr_call,     &PythonParser::bridge_helper_call, &PythonParser::argparse_call};
  for (CallHandler handler : kHandlers)
    if (auto v = (this->*handler)(c, scope, table, ctx, depth)) return std::move(*v);
  return settings_call(c, scope, table, ctx, depth);
}

PythonParser::CallSite PythonParser::call_site(TSNode n) {
  CallSite c;
  c.node = n;
  c.fn = by_field<"function">(n);
  c.fname = ts_node_is_null(c.fn) ? "" : text(c.fn);
  c.last = last_component(c.fname);
  TSNode args = by_field<"arguments">(n);
  if (ts_node_is_null(args)) return c;
  for (TSNode a : CodeChildren(args)) {
    std::string_view at = type_of(a);
    if (at == "keyword_argument") {
      TSNode name = by_field<"name">(a), value = by_field<"value">(a);
      if (!ts_node_is_null(name) && !ts_node_is_null(value)) c.keywords.emplace_back(text(name), value);
    } else if (at == "dictionary_splat") {
      c.splats.push_back(ts_node_named_child(a, 0));
    } else {
      c.positional.push_back(a);
    }
  }
  return c;
}

// Environment reads are unknown; their default is only shown as a fallback.
std::optional<PyVal> PythonParser::environment_read(const CallSite& c, Scope&, FactTable&, Context&, int) {
  const std::string& fname = c.fname;
  if (fname != "os.environ.get" && fname != "os.getenv" && fname != "environ.get" && fname != "getenv")
    return std::nullopt;
  std::string fallback = c.positional.size() > 1 ? text(c.positional[1]) : std::string();
  for (const auto& [name, value] : c.keywords)
    if (name == "default") fallback = text(value);  // os.getenv("TP", default="4")
  return env_value(c.node, fallback);
}

// int("8"), str(x), max(a, b), min(a, b).
std::optional<PyVal> PythonParser::builtin_conversion(const CallSite& c, Scope& scope, FactTable& table,
                                                      Context& ctx, int depth) {
  const std::string& last = c.last;
  const auto& positional = c.positional;
  if (!((last == "int" || last == "str" || last == "max" || last == "min") && c.keywords.empty() &&
        !positional.empty()))
    return std::nullopt;
  std::vector<PyVal> vals;
  for (TSNode p : positional) vals.push_back(eval(p, scope, table, ctx, depth + 1));
  PyVal r = vals[0];
  if (last == "int" && r.value.kind() == Value::Kind::kString) {
    std::int64_t v = 0;
    const std::string& s = r.value.text();
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    r.value =
        ec == std::errc() && end == s.data() + s.size() ? Value::integer(v) : Value::unknown("int() of text");
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
std::optional<PyVal> PythonParser::string_method(const CallSite& c, Scope& scope, FactTable& table,
                                                 Context& ctx, int depth) {
  const std::string &last = c.last, &fname = c.fname;
  if (!((last == "lower" || last == "upper" || last == "strip") && type_of(c.fn) == "attribute" &&
        c.positional.empty() && c.keywords.empty()))
    return std::nullopt;
  TSNode fn = c.fn;
  PyVal o = eval(by_field<"object">(fn), scope, table, ctx, depth + 1);
  if (o.value.kind() != Value::Kind::kString) return known(Value::unknown("the result of " + fname + "()"));
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

std::optional<PyVal> PythonParser::argparse_call(const CallSite& c, Scope& scope, FactTable& table,
                                                 Context& ctx, int depth) {
  if (type_of(c.fn) != "attribute") return std::nullopt;
  if (c.last == "parse_args") {
    PyVal ns = known(Value::unknown("the options " + c.fname + "() reads at run time"));
    ns.argparse_namespace = true;
    ns.dict = std::make_shared<const std::map<std::string, PyVal>>(argparse_defaults_);
    return ns;
  }
  if (c.last != "add_argument" || c.positional.empty()) return std::nullopt;
  std::string flag, dest;
  for (TSNode p : c.positional) {
    PyVal v = eval(p, scope, table, ctx, depth + 1);
    if (v.value.kind() != Value::Kind::kString) return known(Value::null());
    std::string o = v.value.text();
    if (o.starts_with("--") && flag.empty()) flag = o;
    if (!o.starts_with("-") && dest.empty()) dest = o;  // a positional argument
  }
  if (!flag.empty() && dest.empty()) {
    dest = flag.substr(2);
    std::replace(dest.begin(), dest.end(), '-', '_');
  }
  std::optional<PyVal> value;
  std::string action;
  bool required = false;
  for (const auto& [name, node] : c.keywords) {
    if (name == "dest") {
      PyVal d = eval(node, scope, table, ctx, depth + 1);
      if (d.value.kind() == Value::Kind::kString) dest = d.value.text();
    } else if (name == "default") {
      value = eval(node, scope, table, ctx, depth + 1);
    } else if (name == "action") {
      PyVal a = eval(node, scope, table, ctx, depth + 1);
      if (a.value.kind() == Value::Kind::kString) action = a.value.text();
    } else if (name == "required") {
      required = text(node) == "True";
    }
  }
  if (dest.empty() || flag.empty()) return known(Value::null());
  if (!value) {
    if (action == "store_true") value = known(Value::boolean(false));
    if (action == "store_false") value = known(Value::boolean(true));
  }
  PyVal d = value && !required ? *value : known(Value::unknown(flag + " has no default"));
  if (d.value.is_known()) {
    // What a plain run gets; a launch that passes the option (the usual way) decides instead.
    d.weak = true;
    d.weak_note = "with the default " + flag + "=" + d.value.to_string() + " of " +
                  std::filesystem::path(path_).filename().string();
    d.via.push_back({node_location(c.node), "the default of " + flag + " here"});
  }
  d.default_of = flag;
  argparse_defaults_[dest] = std::move(d);
  return known(Value::null());
}

// setattr(cfg.model, "tensor_model_parallel_size", 8): a setting like an attribute assignment.
std::optional<PyVal> PythonParser::setattr_call(const CallSite& c, Scope& scope, FactTable& table,
                                                Context& ctx, int depth) {
  const auto& positional = c.positional;
  if (!(c.last == "setattr" && positional.size() == 3 && type_of(positional[1]) == "string"))
    return std::nullopt;
  PyVal key = string_value(positional[1]);
  PyVal v = eval(positional[2], scope, table, ctx, depth + 1);
  std::vector<std::string> path;
  attribute_path(positional[0], path);
  std::string receiver = path.front();
  path.erase(path.begin());
  if (key.value.kind() == Value::Kind::kString) path.push_back(key.value.text());
  if (!path.empty())
    setting(path, v, node_location(positional[2]), Origin::kPythonAssign, table, node_location(positional[1]),
            std::move(receiver));
  return known(Value::null());
}

// Megatron-Bridge's helpers that set model settings. apply_flex_dispatcher_backend(model_cfg, backend)
// (flex_dispatcher_backend.py:33-86@067f987df03b) turns the flex dispatcher on with the backend and
// moe_shared_expert_overlap off on a GPU that supports the backend, and falls back to alltoall
// elsewhere: known only at run time. The CUDA graph helpers (utils/cuda_graph.py:77-105@067f987df03b)
// set cuda_graph_modules (clearing the deprecated cuda_graph_scope), or a full-iteration graph.
std::optional<PyVal> PythonParser::bridge_helper_call(const CallSite& c, Scope& scope, FactTable& table,
                                                      Context& ctx, int depth) {
  static constexpr std::string_view kHelpers[] = {"apply_flex_dispatcher_backend", "set_cuda_graph_modules",
                                                  "clear_cuda_graph_modules",
                                                  "set_full_iteration_cuda_graph"};
  if (std::find(std::begin(kHelpers), std::end(kHelpers), c.last) == std::end(kHelpers) ||
      functions_.count(c.fname) || c.positional.empty())
    return std::nullopt;
  std::vector<PyVal> args;
  for (TSNode p : c.positional) args.push_back(eval(p, scope, table, ctx, depth + 1));
  for (const auto& [name, value] : c.keywords) eval(value, scope, table, ctx, depth + 1);
  const Location at = node_location(c.node);
  auto set = [&](Key key, PyVal v) {
    table.add(make_fact(key, v, at, Origin::kPythonAssign, std::string(key_name(key))), false);
  };
  if (c.last == "apply_flex_dispatcher_backend") {
    for (Key key :
         {Key::kMoeTokenDispatcherType, Key::kMoeFlexDispatcherBackend, Key::kMoeSharedExpertOverlap})
      set(key, known(Value::unknown("set by apply_flex_dispatcher_backend() for the GPU it runs on")));
    return known(Value::null());
  }
  PyVal modules =
      c.last == "set_cuda_graph_modules"
          ? (args.size() > 1 ? args[1] : known(Value::unknown("set_cuda_graph_modules() without modules")))
          : known(Value::list({}));
  if (c.last == "set_full_iteration_cuda_graph")
    set(Key::kCudaGraphImpl, known(Value::string("full_iteration")));
  set(Key::kCudaGraphModules, modules);
  set(Key::kCudaGraphScope, known(Value::null()));
  return known(Value::null());
}

// The model a call names: llm.llama3_70b.pretrain_recipe(...),
// AutoBridge.from_hf_pretrained("meta-llama/...").
void PythonParser::note_named_model(const CallSite& c, const Scope& scope) {
  const std::string &last = c.last, &fname = c.fname;
  const auto& positional = c.positional;
  if ((last == "pretrain_recipe" || last == "finetune_recipe") && fname.find('.') != std::string::npos) {
    std::string module = fname.substr(0, fname.rfind('.'));
    named_model_ = last_component(module);
  }
  if ((last == "from_hf_pretrained" || last == "from_pretrained") && !positional.empty()) {
    // A literal id, or a module constant holding it (from_hf_pretrained(_MODEL_ID, revision=...)).
    std::optional<Value> id;
    if (type_of(positional[0]) == "string") {
      id = string_value(positional[0]).value;
    } else if (type_of(positional[0]) == "identifier") {
      if (auto v = scope.find(text(positional[0])); v != scope.end()) id = v->second.value;
    }
    if (id && id->kind() == Value::Kind::kString) named_model_ = id->text();
  }
}

// Any other call: its keywords are settings (of a settings constructor, or bound to a local recipe
// function's parameters), a library recipe's layout comes from the built-in tables, and a NeMo-Run
// executor's processes are what it starts.
PyVal PythonParser::settings_call(const CallSite& c, Scope& scope, FactTable& table, Context& ctx,
                                  int depth) {
  TSNode n = c.node, fn = c.fn;
  const std::string &fname = c.fname, &last = c.last;
  const auto& positional = c.positional;
  const auto& keywords = c.keywords;
  const auto& splats = c.splats;
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
    // A module that imports the function from another and exports it again (a package's common.py):
    // followed a few modules deep, as Python's import does.
    for (int hops = 0; owner && !owner->functions_.count(callee_name) && hops < kMaxImportDepth; ++hops) {
      auto again = owner->imports_.find(callee_name);
      if (again == owner->imports_.end()) break;
      PythonParser* next = owner->imported_module(again->second.first);
      callee_name = again->second.second;
      owner = next;
    }
    if (owner && !owner->functions_.count(callee_name)) owner = nullptr;
  }
  bool nemo_recipe_call = !owner && library_recipe(c, scope, table, ctx, depth, result, *facts);
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
    std::string before = owner->named_model_;
    if (owner != this) owner->named_model_.clear();
    result = owner->invoke(callee_name, pos, kw, table, ctx, depth);
    // The model an imported recipe loads is the caller's too.
    if (owner != this) {
      if (!owner->named_model_.empty()) named_model_ = owner->named_model_;
      owner->named_model_ = before;
    }
    if (result.object)
      for (const auto& f : *result.object) facts->push_back(f);
  } else {
    for (TSNode p : positional) {
      PyVal v = eval(p, scope, table, ctx, depth + 1);
      if (v.object)
        for (const auto& f : *v.object) facts->push_back(f);
      // _benchmark_common(cfg) from a module parlint cannot read may change any setting of the recipe.
      if (v.library_recipe && !result.library_recipe && table.recipe.changed_by.empty() && !reads_only(fname))
        table.recipe.changed_by = (fname.size() > 40 ? fname.substr(0, 37) + "..." : fname) + "()";
    }
  }
  bool constructor = settings_constructor(c);
  for (TSNode s : splats) {
    PyVal v = eval(s, scope, table, ctx, depth + 1);
    if (v.object)
      for (const auto& f : *v.object) facts->push_back(f);  // already recorded where the dict was written
  }
  for (const auto& [name, value] : keywords) {
    if (recipe_call) break;  // bound to the callee's parameters above
    PyVal v = eval(value, scope, table, ctx, depth + 1);
    note_literal(name, value, v);  // login(token="hf_...")
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
  if (last == "SlurmExecutor" || last == "LocalExecutor")
    executor_processes(last, executor_launcher(c, scope, table, ctx, depth), node_location(n), *facts,
                       result);
  if (!facts->empty()) result.object = facts;
  if (result.value.is_known() == false && result.value.unknown_reason() == "not known statically")
    result.value =
        Value::unknown("the result of " + (fname.size() > 40 ? fname.substr(0, 37) + "..." : fname) + "()");
  return result;
}

// A Megatron-Bridge or NeMo 2 library recipe that is not this project's own function. Returns whether it
// was a NeMo 2 recipe call (its keywords were read here as the recipe's arguments).
bool PythonParser::library_recipe(const CallSite& c, Scope& scope, FactTable& table, Context& ctx, int depth,
                                  PyVal& result, std::vector<Fact>& facts) {
  const std::string &fname = c.fname, &last = c.last;
  const auto& positional = c.positional;
  const auto& keywords = c.keywords;
  // A Megatron-Bridge library recipe (llama3_8b_pretrain_config(), llama3_8b.pretrain_config()) that is
  // not this project's own function: its layout and model come from the built-in recipe table, as for
  // run_recipe.py --recipe. A recipe-named function imported from another package (a fork's or a
  // project's own recipe library) is one too: parlint has no table for it, so what it sets is unknown,
  // never Megatron-Bridge's defaults.
  const bool imported = imports_.count(fname.substr(0, fname.find('.'))) > 0;
  if ((bridge_hint_ || imported) && last.ends_with("_config") &&
      (last.find("pretrain") != std::string::npos || last.find("finetune") != std::string::npos ||
       last.find("sft") != std::string::npos || last.find("peft") != std::string::npos)) {
    std::string module = fname.find('.') != std::string::npos ? fname.substr(0, fname.rfind('.')) : "";
    module = last_component(module);
    table.recipe.name = (last == "pretrain_config" || last == "finetune_config") && !module.empty()
                            ? module + "_" + last
                            : last;
    table.recipe.changed_by.clear();
    // Imported from megatron.bridge.perf_recipes, or reached through it: the benchmark definition.
    auto imp = imports_.find(fname.substr(0, fname.find('.')));
    std::string_view origin =
        imp != imports_.end() ? std::string_view(imp->second.first) : std::string_view();
    table.recipe.package = origin.find("perf_recipes") != std::string_view::npos ||
                                   fname.find("perf_recipes.") != std::string::npos
                               ? RecipePackage::kBenchmark
                               : RecipePackage::kLibrary;
    result.library_recipe = true;
    result.recipe = table.recipe;
  }
  // A NeMo 2 library recipe (llm.llama3_70b.pretrain_recipe(...), or llama3_70b imported from
  // nemo.collections.llm.recipes): its layout comes from the built-in NeMo 2 recipe table; the call's
  // keywords are its settings (num_nodes) or arguments the table knows may change it (peft_scheme).
  bool nemo_recipe_call = false;
  if (last.ends_with("_recipe") && fname.find('.') != std::string::npos) {
    std::string module = fname.substr(0, fname.rfind('.'));
    auto imp = imports_.find(module.substr(0, module.find('.')));
    if (imp != imports_.end() && imp->second.first.starts_with("nemo")) {
      nemo_recipe_call = true;
      table.recipe = {last_component(module) + "." + last,
                      positional.empty() ? "" : fname + "() with positional arguments",
                      {}};
      result.library_recipe = true;
      result.recipe = table.recipe;
      for (const auto& [name, value] : keywords) {
        PyVal v = eval(value, scope, table, ctx, depth + 1);
        auto key = name == "num_gpus_per_node" ? std::optional(Key::kGpusPerNode) : key_for_name(name);
        if (!key) {
          table.recipe.arguments.push_back(name);
          continue;
        }
        Fact f = make_fact(*key, v, node_location(value), Origin::kPythonKwarg, name);
        facts.push_back(f);
        table.add(std::move(f), false);
      }
      result.recipe.arguments = table.recipe.arguments;
    }
  }
  return nemo_recipe_call;
}

// A settings constructor (a *Strategy, *Config, *Provider, *Executor or *Trainer, run.Config of one):
// its unknown keywords that look like settings are PL801 candidates.
bool PythonParser::settings_constructor(const CallSite& c) {
  const std::string& last = c.last;
  const auto& positional = c.positional;
  auto settings_class = [](std::string_view name) {
    return name.ends_with("Strategy") || name.ends_with("Config") || name.ends_with("Provider") ||
           name.ends_with("Executor") || name.ends_with("Trainer");
  };
  // run.Config(nl.MegatronStrategy, ...) configures its first argument: a settings class, or something
  // else entirely (run.Config(ConfigParams, parallelism=...) of an evaluation harness).
  std::string configured = last == "Config" && !positional.empty() ? text(positional[0]) : "";
  configured = last_component(configured);
  return last == "Config" ? configured.empty() || settings_class(configured)
                          : settings_class(last) || last == "initialize_model_parallel" ||
                                last == "replace" || last.ends_with("_executor");
}

// The launcher a NeMo-Run executor is given: "" none, "torchrun", or "?" when written but not known
// statically.
std::string PythonParser::executor_launcher(const CallSite& c, Scope& scope, FactTable& table, Context& ctx,
                                            int depth) {
  std::string launcher;
  for (const auto& [name, value] : c.keywords) {
    if (name != "launcher") continue;
    PyVal l = eval(value, scope, table, ctx, depth + 1);
    std::string t = l.value.kind() == Value::Kind::kString ? l.value.text() : text(value);
    launcher = l.value.kind() == Value::Kind::kNull ? ""
               : t.find("torchrun") != std::string::npos || t.find("Torchrun") != std::string::npos ||
                       t == "ft" || t.find("FaultTolerance") != std::string::npos
                   ? "torchrun"
                   : "?";
  }
  return launcher;
}

// The processes a NeMo-Run executor starts per node (nemo_run/core/execution/slurm.py and local.py at
// NeMo-Run 0c49127199ca), as the executor's ntasks_per_node. Without a launcher, srun starts
// ntasks_per_node tasks (default 1); with torchrun, nproc_per_node(): torchrun_nproc_per_node if set,
// else gpus_per_node when ntasks_per_node is 1, else gpus_per_task, else ntasks_per_node. A
// LocalExecutor without a launcher runs one process and Lightning spawns the trainer's devices itself:
// nothing to join.
void PythonParser::executor_processes(const std::string& kind, const std::string& launcher,
                                      const Location& at, std::vector<Fact>& facts, PyVal& result) {
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
PyVal PythonParser::run_with_executor(TSNode call_node, TSNode task_node, TSNode executor_node, Scope& scope,
                                      FactTable& table, Context& ctx, int depth) {
  PyVal task = eval(task_node, scope, table, ctx, depth + 1);
  PyVal exe = eval(executor_node, scope, table, ctx, depth + 1);
  PyVal none = known(Value::null());
  if (!exe.executor || (!task.object && task.recipe.empty())) return none;
  FactTable joined;
  joined.recipe = task.recipe;
  bool executor_nodes = false;
  if (exe.object)
    for (const auto& f : *exe.object) executor_nodes |= f.key == Key::kNodes;
  if (task.object)
    for (Fact f : *task.object) {
      if (f.key == Key::kGpusPerNode || f.key == Key::kWorldSize) continue;  // the executor's processes count
      f.key = as_launched(f.key);
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
PyVal PythonParser::invoke(const std::string& fname, const std::vector<Arg>& positional,
                           const std::vector<std::pair<std::string, Arg>>& keywords, FactTable& table,
                           Context& ctx, int depth) {
  PyVal out = known(Value::unknown("the result of " + fname + "()"));
  std::string qualified = std::string(path_) + ":" + fname;
  if (ctx.call_depth >= kMaxCallDepth || graph_.budget.exhausted() ||
      std::find(ctx.call_stack.begin(), ctx.call_stack.end(), qualified) != ctx.call_stack.end())
    return out;
  // A call without arguments gives the same settings each time (the module scope is fixed once the
  // module is read): read once. Reading it again at every call made recipes built on recipes that call
  // their base twice cost 2^depth.
  bool memoizable = positional.empty() && keywords.empty();
  if (memoizable) {
    if (auto it = calls_read_.find(fname); it != calls_read_.end()) {
      const CallRead& read = it->second;
      for (const Fact& f : read.facts) table.add(Fact(f), true);
      if (table.recipe.empty()) table.recipe = read.recipe;
      graph_.budget.spend(read.facts.size() * kStatementUnits);
      return read.result;
    }
  }
  TSNode fn = functions_.at(fname);
  Scope callee = module_scope_;
  FactTable inner;
  bind_defaults(fn, fname, callee, inner, ctx);
  // Bind the caller's arguments over the defaults.
  TSNode params = by_field<"parameters">(fn);
  std::vector<std::string> names;
  for (TSNode p : ts_node_is_null(params) ? std::vector<TSNode>{} : code_children_of(params)) {
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
      inner.erase_if([&](const Fact& f) { return f.key == *key && f.origin == Origin::kRecipeDefault; });
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
  graph_.budget.spend(inner.size() * kStatementUnits);  // inherited settings count against the same budget
  // What the caller inherits is the callee's last setting of each key (per origin): a recipe that calls
  // its base twice would otherwise pass on every setting twice, doubling them at each level.
  std::set<std::pair<Key, Origin>> later;
  std::vector<bool> last(inner.facts().size(), false);
  for (std::size_t i = inner.facts().size(); i-- > 0;)
    last[i] = later.insert({inner.facts()[i].key, inner.facts()[i].origin}).second;
  for (std::size_t i = 0; i < inner.facts().size(); ++i) {
    if (!last[i]) continue;
    Fact f = inner.facts()[i];
    if (f.origin == Origin::kRecipeName) continue;
    // The recipes it passed through, the first ones (where it was set) kept: a chain of n recipes would
    // otherwise give each setting n of them.
    if (f.written_at.size() < kMaxInheritedVia)
      f.written_at.push_back({f.location, "set in " + fname + "()"});
    facts->push_back(f);
    table.add(std::move(f), true);  // inherited: the caller's own settings win without conflict
  }
  if (table.recipe.empty()) table.recipe = inner.recipe;  // the callee builds on a library recipe
  out.recipe = inner.recipe;
  out.library_recipe = !inner.recipe.empty() && inner.recipe.changed_by.empty();
  out.executor = returned.executor;
  out.object = facts;
  if (returned.value.is_known()) out.value = returned.value;
  if (memoizable && !graph_.budget.exhausted()) calls_read_[fname] = {*facts, inner.recipe, out};
  return out;
}

}  // namespace parlint::py
