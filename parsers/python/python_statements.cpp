// The Python interpreter's statements: blocks, assignments to names, attributes and subscripts, the
// settings they write, augmented assignments and the `if __name__ == "__main__"` guard.
#include "parsers/python/python_interpreter.h"

#include "lint/model/size_expression.h"

#include <algorithm>
#include <charconv>

#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::py {

void PythonParser::walk_block(TSNode block, Scope& scope, FactTable& table, Context& ctx, int depth,
                              bool module_level) {
  for (TSNode child : CodeChildren(block)) {
    statement(child, scope, table, ctx, depth + 1, module_level);
    // Between the statements of a function's (or the module's) own body nothing holds an index into the
    // table: what later settings override is dropped there, so branches copy only what still counts.
    if (depth == 0) table.drop_overridden();
  }
}

void PythonParser::statement(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth,
                             bool module_level) {
  if (depth > kMaxDepth || !graph_.budget.spend(kStatementUnits)) return;
  std::string_view t = type_of(n);
  if (t == "expression_statement") {
    for (TSNode e : CodeChildren(n)) {
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
    for (TSNode c : CodeChildren(n)) {
      std::string_view ct = type_of(c);
      if (ct == "block" || ct == "else_clause" || ct == "finally_clause" || ct == "except_clause")
        statement(c, scope, table, ctx, depth + 1, module_level);
    }
    return;
  }
  if (t == "return_statement") {
    for (TSNode child : CodeChildren(n)) return_value_ = eval(child, scope, table, ctx, depth);
    return;
  }
  // function and class definitions are read on their own; imports and the rest set nothing.
}

PyVal PythonParser::loop_value() {
  PyVal v;
  v.value = Value::unknown("a loop variable with several values");
  return v;
}

void PythonParser::assignment(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth,
                              bool module_level) {
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
    for (const auto& c : scratch.conflicts()) object.add_conflict(c);
    object.unrecognized = scratch.unrecognized;
    object.recipe = scratch.recipe;
    emit(std::move(object), text(left), node_location(n).range);
  } else if (own_job) {
    for (auto& f : scratch.take_facts()) table.add(std::move(f), false);
    for (auto& u : scratch.unrecognized) table.unrecognized.push_back(std::move(u));
    if (!scratch.recipe.empty()) table.recipe = scratch.recipe;
  }
  if (type_of(right) == "binary_operator") size_expression(left, right, scope);
  if (type_of(right) != "expression_list" || type_of(left) == "identifier") {
    assign_target(left, v, scope, table, ctx, depth, right);
    return;
  }
  // tp, pp = 4, 2
  std::vector<TSNode> targets = code_children_of(left), values = code_children_of(right);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    PyVal item = i < values.size() ? eval(values[i], scope, table, ctx, depth) : PyVal{};
    assign_target(targets[i], item, scope, table, ctx, depth, i < values.size() ? values[i] : TSNode{});
  }
}

void PythonParser::assign_target(TSNode left, PyVal v, Scope& scope, FactTable& table, Context& ctx,
                                 int depth, TSNode value_node) {
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
      note_literal(name, value_node, v);
    }
    scope[name] = std::move(v);
    return;
  }
  if (lt == "subscript" && !ts_node_is_null(value_node)) {  // os.environ["HF_TOKEN"] = "hf_..."
    TSNode index = by_field<"subscript">(left);
    if (!ts_node_is_null(index) && type_of(index) == "string") {
      PyVal key = string_value(index);
      if (key.value.kind() == Value::Kind::kString) note_literal(key.value.text(), value_node, v);
    }
    return;
  }
  if (lt == "pattern_list" || lt == "tuple_pattern") {
    for (TSNode child : CodeChildren(left)) assign_target(child, PyVal{}, scope, table, ctx, depth);
    return;
  }
  if (lt != "attribute") return;
  std::vector<std::string> path;
  attribute_path(left, path);
  if (path.size() < 2) return;
  std::vector<std::string> rest(path.begin() + 1, path.end());
  Location where = ts_node_is_null(value_node) ? node_location(left) : node_location(value_node);
  setting(rest, v, where, Origin::kPythonAssign, table, node_location(left), path.front());
}

// Records `path = value` when the path names a setting; remembers lookalikes for PL801.
void PythonParser::setting(const std::vector<std::string>& path, const PyVal& v, const Location& where,
                           Origin origin, FactTable& table, const Location& name_location,
                           std::string receiver) {
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
  if (receiver != "<expr>") f.receiver = std::move(receiver);  // get_config().model.x: no name to repeat
  if (match->inverted && f.value.as_bool()) f.value = Value::boolean(!*f.value.as_bool());
  table.add(std::move(f), false);
}

void PythonParser::attribute_path(TSNode n, std::vector<std::string>& out) const {
  if (type_of(n) == "attribute") {
    attribute_path(by_field<"object">(n), out);
    out.push_back(text(by_field<"attribute">(n)));
  } else if (type_of(n) == "identifier") {
    out.push_back(text(n));
  } else {
    out.push_back("<expr>");
  }
}

void PythonParser::augmented(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
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
bool PythonParser::reads_only(const std::string& fname) {
  std::string last = last_component(fname);
  static const std::set<std::string, std::less<>> kReaders = {
      "pretrain", "finetune", "train",   "run",        "print",      "pprint",  "info",    "debug", "warning",
      "log",      "str",      "repr",    "len",        "isinstance", "getattr", "hasattr", "type",  "vars",
      "asdict",   "to_yaml",  "to_dict", "print_yaml", "save",       "dump",    "add"};
  return kReaders.contains(last);
}

// `if __name__ == "__main__":` (either side, either quote), without elif or else.
bool PythonParser::main_guard(TSNode n) const {
  for (TSNode c : CodeChildren(n))
    if (type_of(c) == "elif_clause" || type_of(c) == "else_clause") return false;
  TSNode cond = by_field<"condition">(n);
  if (ts_node_is_null(cond) || type_of(cond) != "comparison_operator" || ts_node_named_child_count(cond) != 2)
    return false;
  std::string a = text(ts_node_named_child(cond, 0)), b = text(ts_node_named_child(cond, 1));
  if (text(cond).find("==") == std::string::npos) return false;
  auto is_main = [](const std::string& v) { return v == "\"__main__\"" || v == "'__main__'"; };
  return (a == "__name__" && is_main(b)) || (b == "__name__" && is_main(a));
}

// num_nodes = tp * pp * ep // 8 (PL103): the names multiplied, in a/b the numerator only.
void PythonParser::size_expression(TSNode left, TSNode right, const Scope& scope) {
  std::string target = type_of(left) == "identifier"  ? text(left)
                       : type_of(left) == "attribute" ? text(by_field<"attribute">(left))
                                                      : "";
  if (target.empty()) return;
  std::vector<ProductOperand> operands;
  auto value_of = [&](const std::string& name) -> std::optional<std::int64_t> {
    auto it = scope.find(name);
    return it == scope.end() ? std::nullopt : it->second.value.as_int();
  };
  auto collect = [&](auto& self, TSNode n, bool multiplied, int depth) -> void {
    if (ts_node_is_null(n) || depth > 64) return;
    std::string_view t = type_of(n);
    if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
      return self(self, ts_node_named_child(n, 0), multiplied, depth + 1);
    if ((t == "identifier" || t == "attribute") && multiplied) {
      std::string name = t == "identifier" ? text(n) : text(by_field<"attribute">(n));
      operands.push_back({name, t == "identifier" ? value_of(name) : std::nullopt});
      return;
    }
    if (t != "binary_operator") return;
    TSNode op = by_field<"operator">(n);
    std::string o = ts_node_is_null(op) ? "" : text(op);
    if (o == "*") {
      self(self, by_field<"left">(n), true, depth + 1);
      self(self, by_field<"right">(n), true, depth + 1);
    } else if (o == "/" || o == "//") {
      self(self, by_field<"left">(n), multiplied || type_of(by_field<"left">(n)) == "binary_operator",
           depth + 1);
    }
  };
  collect(collect, right, false, 0);
  if (auto e = size_expression_of(target, operands, node_location(right), text(right)))
    out_.size_expressions.push_back(std::move(*e));
}

// A name given a string written in the file (PL701 looks for secrets among them); computed strings and
// f-strings are not literals.
void PythonParser::note_literal(const std::string& name, TSNode value_node, const PyVal& v) {
  if (ts_node_is_null(value_node) || type_of(value_node) != "string" ||
      v.value.kind() != Value::Kind::kString)
    return;
  out_.literals.push_back({name, v.value.text(), node_location(value_node)});
}

}  // namespace parlint::py
