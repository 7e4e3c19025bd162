// The Python expression evaluator: literals, names, attributes, arithmetic, comparisons, f-strings,
// dictionaries and environment reads, each value with where it was written.
#include "parsers/python/python_interpreter.h"

#include <algorithm>

#include <charconv>
#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::py {

PyVal PythonParser::arithmetic(const PyVal& a, std::string_view op, const PyVal& b) {
  PyVal out;
  out.via = a.via;
  out.via.insert(out.via.end(), b.via.begin(), b.via.end());
  out.weak = a.weak || b.weak;
  out.weak_note = a.weak ? a.weak_note : b.weak_note;
  auto x = a.value.as_int(), y = b.value.as_int();
  // Lists: ["decoder"] * 15 + ["mtp"] (a pipeline layout written stage by stage), bounded so that
  // [0] * 10**9 costs nothing.
  constexpr std::size_t kMaxListItems = 4096;
  const bool list_a = a.value.kind() == Value::Kind::kList, list_b = b.value.kind() == Value::Kind::kList;
  if (op == "+" && list_a && list_b) {
    if (a.value.items().size() + b.value.items().size() > kMaxListItems) {
      out.value = Value::unknown("a list longer than parlint follows");
      return out;
    }
    std::vector<Value> items = a.value.items();
    items.insert(items.end(), b.value.items().begin(), b.value.items().end());
    out.value = Value::list(std::move(items));
    return out;
  }
  if (op == "*" && (list_a ? y.has_value() : list_b && x.has_value())) {
    const Value& list = list_a ? a.value : b.value;
    std::int64_t times = list_a ? *y : *x;
    if (times < 0) times = 0;
    if (!list.items().empty() && static_cast<std::uint64_t>(times) > kMaxListItems / list.items().size()) {
      out.value = Value::unknown("a list longer than parlint follows");
      return out;
    }
    std::vector<Value> items;
    for (std::int64_t k = 0; k < times; ++k)
      items.insert(items.end(), list.items().begin(), list.items().end());
    out.value = Value::list(std::move(items));
    return out;
  }
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

PyVal PythonParser::eval(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
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
    for (TSNode part : CodeChildren(n)) {
      PyVal p = string_value(part);
      if (p.value.kind() != Value::Kind::kString) return p;
      all += p.value.text();
    }
    return known(Value::string(all));
  }
  if (t == "parenthesized_expression") {
    if (auto inner = code_children_of(n); inner.size() == 1)
      return eval(inner[0], scope, table, ctx, depth + 1);
  }
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
    for (TSNode child : CodeChildren(n)) items.push_back(eval(child, scope, scratch, ctx, depth + 1).value);
    return known(Value::list(std::move(items)));
  }
  if (t == "dictionary") return dictionary(n, scope, table, ctx, depth);
  if (t == "conditional_expression") {
    auto parts = code_children_of(n);  // value, condition, other value
    if (parts.size() != 3) return known(Value::unknown("chosen by a condition at run time"));
    PyVal a = eval(parts[0], scope, table, ctx, depth + 1);
    PyVal b = eval(parts[2], scope, table, ctx, depth + 1);
    if (a.value == b.value) return a;
    if (auto tr = truth(parts[1], scope, ctx, depth + 1)) {
      PyVal chosen = tr->value ? a : b;
      take_fallback(chosen, *tr);
      return chosen;
    }
    return known(Value::unknown("chosen by a condition at run time"));
  }
  if (t == "call") return call(n, scope, table, ctx, depth);
  if (t == "attribute") {
    // args.etp, args being parser.parse_args(): the option's default.
    TSNode object = by_field<"object">(n), attribute = by_field<"attribute">(n);
    if (!ts_node_is_null(object) && !ts_node_is_null(attribute) && type_of(object) == "identifier")
      if (auto it = scope.find(text(object));
          it != scope.end() && it->second.argparse_namespace && it->second.dict)
        if (auto o = it->second.dict->find(text(attribute)); o != it->second.dict->end()) return o->second;
    return known(Value::unknown(text(n) + " is read at run time"));
  }
  if (t == "subscript") {
    std::string s = text(n);
    if (s.starts_with("os.environ[")) return env_value(n, "");
    return known(Value::unknown(s + " is read at run time"));
  }
  // Comparisons, lambdas, comprehensions, f-strings inside other nodes and the rest.
  for (TSNode child : CodeChildren(n)) eval(child, scope, table, ctx, depth + 1);
  return known(Value::unknown("an expression parlint does not evaluate"));
}

PyVal PythonParser::string_value(TSNode n) {
  std::string out;
  for (TSNode c : CodeChildren(n)) {
    std::string_view ct = type_of(c);
    if (ct == "interpolation") return known(Value::unknown("an f-string, built at run time"));
    if (ct == "string_content") out += text(c);
    if (ct == "escape_sequence") out += text(c);
  }
  return known(Value::string(out));
}

PyVal PythonParser::env_value(TSNode call_or_subscript, const std::string& fallback) {
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

PyVal PythonParser::dictionary(TSNode n, Scope& scope, FactTable& table, Context& ctx, int depth) {
  auto entries = std::make_shared<std::map<std::string, PyVal>>();
  auto facts = std::make_shared<std::vector<Fact>>();
  for (TSNode pair : CodeChildren(n)) {
    if (type_of(pair) != "pair") continue;
    TSNode k = by_field<"key">(pair), v = by_field<"value">(pair);
    if (ts_node_is_null(k) || ts_node_is_null(v) || type_of(k) != "string") continue;
    PyVal key = string_value(k);
    if (key.value.kind() != Value::Kind::kString) continue;
    PyVal val = eval(v, scope, table, ctx, depth + 1);
    note_literal(key.value.text(), v, val);  // env_vars={"HF_TOKEN": "hf_..."}
    if (auto m = key_for_name(key.value.text())) {
      Fact f = make_fact(*m, val, node_location(v), Origin::kPythonKwarg, key.value.text());
      facts->push_back(f);
      table.add(std::move(f), false);
    } else if (auto e = key_from_name(key.value.text()); e && is_environment_variable(*e)) {
      // An environment variable named as a dict key: cfg.env_vars = {...}, an executor's env_vars={...},
      // os.environ.update({...}).
      Fact f = make_fact(*e, val, node_location(v), Origin::kEnv, key.value.text());
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

}  // namespace parlint::py
