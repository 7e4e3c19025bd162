// Conditions whose names are known choose their branch (a parameter's default makes the choice a
// fallback); otherwise every branch is read and the settings they agree on are kept.
#include "parsers/python/python_interpreter.h"

#include <algorithm>
#include <charconv>

#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::py {

std::optional<bool> PythonParser::truthiness(const Value& v) {
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

std::optional<bool> PythonParser::compare(const Value& x, std::string_view op, const Value& y) {
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

std::optional<PythonParser::Truth> PythonParser::truth(TSNode n, Scope& scope, Context& ctx, int depth) {
  if (ts_node_is_null(n) || depth > kMaxDepth) return std::nullopt;
  std::string_view t = type_of(n);
  if (t == "parenthesized_expression") {
    if (auto inner = code_children_of(n); inner.size() == 1) return truth(inner[0], scope, ctx, depth + 1);
  }
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
void PythonParser::weaken_from(FactTable& table, std::size_t base, const Truth& chosen_by) {
  for (std::size_t i = base; i < table.size(); ++i) take_fallback(table.facts()[i], chosen_by);
}

bool PythonParser::ends_in_raise(TSNode body) {
  if (ts_node_is_null(body)) return false;
  auto statements = code_children_of(body);
  return !statements.empty() && type_of(statements.back()) == "raise_statement";
}

void PythonParser::branches(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
  struct Result {
    Scope scope;
    FactTable table;
  };
  struct Clause {
    TSNode condition;  // null for else
    TSNode body;
  };
  std::vector<Clause> clauses{{by_field<"condition">(n), by_field<"consequence">(n)}};
  for (TSNode c : CodeChildren(n)) {
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
    std::size_t base = table.size();
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
    r.table.inherit_all();
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
      u.value = Value::unknown("set differently depending on the condition at line " + std::to_string(line));
      scope[name] = u;
    }
  }
  // Settings made in some branch: kept if all branches end with the same value, else unknown.
  std::size_t base = table.size();
  std::set<Key> touched;
  for (const auto& r : results)
    for (std::size_t i = base; i < r.table.size(); ++i) touched.insert(r.table.facts()[i].key);
  for (const auto& r : results) {
    for (std::size_t i = table.conflicts().size(); i < r.table.conflicts().size(); ++i)
      table.add_conflict(r.table.conflicts()[i]);
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
      if (const Fact* f = r.table.last(key); f && !any && r.table.size() > base) any = f;
    if (!any) continue;
    Fact f = agree && first ? *first : *any;
    if (!agree)
      f.value = Value::unknown("set differently depending on the condition at line " + std::to_string(line));
    table.add(std::move(f), true);
  }
}

}  // namespace parlint::py
