// The shell interpreter's statements: lists, loops, functions, if/case branches merged, redirections and
// here-documents, declarations and assignments.
#include "parsers/shell/shell_interpreter.h"

#include <fnmatch.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "parsers/shell/sbatch_submissions.h"
#include "parsers/shell/shell_option_merge.h"
#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::shell {

void ShellParser::walk_children(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
  for (TSNode child : NamedChildren(n)) {
    if (next_unread_ < unread_assignments_.size()) apply_unread_assignments(ts_node_start_byte(child), env);
    walk(child, src, env, ctx, depth + 1);
  }
}

void ShellParser::walk(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
  if (depth > kMaxTreeDepth) {
    if (!deep_reported_) {
      deep_reported_ = true;
      Location loc = node_location(n, src);
      if (loc.path == out_.path)
        out_.errors.push_back(
            {loc.range, "shell nesting deeper than 400 levels; the rest of it was not read", ""});
    }
    return;
  }
  if (!spend(kNodeUnits, n, src)) return;
  std::string_view type = node_type(n);
  if (type == "comment" || type == "ERROR") return;
  if (type == "variable_assignment") return assign(n, src, env, ctx, false, false);
  if (type == "variable_assignments") return walk_children(n, src, env, ctx, depth);
  if (type == "declaration_command") return declare(n, src, env, ctx);
  if (type == "unset_command") {
    for (TSNode child : NamedChildren(n)) {
      ShellText name = expand_joined(child, src, env, ctx);
      env.erase(name.text);
    }
    return;
  }
  if (type == "command") return command(n, src, env, ctx, Redirects{});
  if (type == "redirected_statement") return redirected(n, src, env, ctx, depth);
  if (type == "if_statement" || type == "case_statement") return branches(n, src, env, ctx, depth);
  if (type == "for_statement" || type == "c_style_for_statement" || type == "while_statement" ||
      type == "until_statement") {
    if (type == "for_statement") {
      TSNode var = by_field<"variable">(n);
      if (!ts_node_is_null(var))
        set_unknown(env, text_of(var, src), "a loop variable with several values", node_location(var, src));
    }
    Context inner = ctx;
    inner.in_loop = true;
    TSNode body = by_field<"body">(n);
    if (!ts_node_is_null(body)) walk(body, src, env, inner, depth + 1);
    return;
  }
  if (type == "function_definition") {
    TSNode body = by_field<"body">(n);
    TSNode name = by_field<"name">(n);
    if (ts_node_is_null(body)) return;
    if (!ts_node_is_null(name)) {
      // Read where it is called (or at the end, if never).
      functions_[text_of(name, src)] = ShellFunction{body, &src, 0, std::nullopt};
      ++functions_defined_;
      return;
    }
    Env local = env;
    Context inner = ctx;
    walk(body, src, local, inner, depth + 1);
    return;
  }
  if (type == "subshell") {
    Env local = env;
    return walk_children(n, src, local, ctx, depth);
  }
  if (type == "program" || type == "compound_statement" || type == "do_group" || type == "list" ||
      type == "pipeline" || type == "negated_command")
    return walk_children(n, src, env, ctx, depth);
  // test_command, arithmetic statements and the rest launch nothing.
}

bool ShellParser::call_function(const std::string& name, const Source& src, Env& env, Context& ctx) {
  auto it = functions_.find(name);
  // A function of this shell: written in the same text, or in files it sourced (a `bash -c` string runs
  // in a child shell, which does not have the caller's functions).
  if (it == functions_.end() || running_functions_.count(name) ||
      (it->second.src != &src && (src.file < 0 || it->second.src->file < 0)))
    return false;
  ShellFunction& fn = it->second;
  const Source& text = *fn.src;  // where the body is written (this file, or one it sourced)
  ++functions_called_;
  if (++fn.calls > kMaxCallsPerFunction) return true;
  // `local` and `declare` names stay the function's: they get their values back after it.
  if (!fn.locals) {
    fn.locals.emplace();
    std::string_view body = std::string_view(text.text).substr(
        ts_node_start_byte(fn.body), ts_node_end_byte(fn.body) - ts_node_start_byte(fn.body));
    const bool declares = body.find("local") != std::string_view::npos ||
                          body.find("declare") != std::string_view::npos ||
                          body.find("typeset") != std::string_view::npos;
    // Declared at the body's top level, where functions declare them.
    for (TSNode n : NamedChildren(fn.body)) {
      if (!declares || node_type(n) != "declaration_command") continue;
      std::string_view t = std::string_view(text.text).substr(ts_node_start_byte(n), 8);
      if (t.starts_with("local") || t.starts_with("declare") || t.starts_with("typeset"))
        assigned_names(n, text, *fn.locals, 0);
    }
  }
  // The caller's values of the function's local names, given back after it (no copy of the variables).
  std::vector<std::pair<std::string, std::shared_ptr<Var>>> saved;
  for (const auto& local : *fn.locals) {
    const auto* slot = env.slot(local);
    saved.emplace_back(local, slot ? *slot : nullptr);
  }
  running_functions_.insert(name);
  Context inner = ctx;
  walk(fn.body, text, env, inner, 1);
  running_functions_.erase(name);
  for (auto& [local, value] : saved) {
    if (value)
      env.share(local, value);
    else if (env.find(local))
      env.erase(local);
  }
  return true;
}

std::string ShellParser::text_of(TSNode n, const Source& src) const {
  return src.text.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
}

int ShellParser::references_to(std::string_view text, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  int count = 0;
  for (auto pos = text.find('$'); pos != std::string_view::npos; pos = text.find('$', pos + 1)) {
    std::size_t at = pos + 1 + (pos + 1 < text.size() && text[pos + 1] == '{');
    if (text.substr(at, name.size()) != name) continue;
    std::size_t end = at + name.size();
    if (end < text.size() && ident(text[end])) continue;
    ++count;
  }
  return count;
}

std::optional<std::string> ShellParser::over_value_limit(const Var& v) {
  if (v.elements.size() > kMaxArrayElements)
    return "an array of more than " + std::to_string(kMaxArrayElements) +
           " elements (parlint follows no more)";
  if (v.size() > kMaxValueBytes)
    return "a value longer than " + std::to_string(kMaxValueBytes >> 10) +
           " KiB (parlint follows no longer ones)";
  return std::nullopt;
}

void ShellParser::set_unknown(Env& env, const std::string& name, std::string reason, Location where) {
  Var v;
  v.value.add_unknown(std::move(reason));
  v.assigned_at = std::move(where);
  if (const Var* old = env.find(name)) v.exported = old->exported;
  env.set(name, std::move(v));
}

// if / elif / else and case: each branch on its own copy of the variables; afterwards a variable
// keeps its value only when every branch (and falling through) agrees.
void ShellParser::branches(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
  if (take_constant_branch(n, src, env, ctx, depth)) return;
  std::vector<Env> results;
  std::vector<TSNode> heads;  // where each branch starts, in the order of `results` (null: none runs)
  bool has_default = false;
  std::string_view type = node_type(n);
  Env then_env = env;
  bool any_then = false;
  NamedChildren children(n);
  std::string condition;
  std::vector<TSNode> test_nodes;  // every test of an if and its elifs: the variables they read
  std::vector<bool> exits;         // per branch of `results`: it ends the script (echo ...; exit 1)
  bool then_exits = false;
  for (TSNode c : children) {
    const char* field = children.field_name();
    std::string_view ct = node_type(c);
    if (type == "if_statement") {
      if (field && std::string_view(field) == "condition") {
        if (condition.empty()) condition = abbreviate(text_of(c, src));
        test_nodes.push_back(c);
        walk(c, src, env, ctx, depth + 1);  // conditions run before any branch
        continue;
      }
      if (ct == "elif_clause" || ct == "else_clause") {
        if (ct == "elif_clause" && ts_node_named_child_count(c) > 0)
          test_nodes.push_back(ts_node_named_child(c, 0));
        Env branch = env;
        walk_clause(c, src, branch, ctx, depth);
        results.push_back(std::move(branch));
        heads.push_back(c);
        exits.push_back(clause_exits(c, src, ct == "elif_clause"));
        if (ct == "else_clause") has_default = true;
        continue;
      }
      any_then = true;
      then_exits = then_exits || is_exit(c, src);
      walk(c, src, then_env, ctx, depth + 1);
    } else if (ct == "case_item") {
      Env branch = env;
      TSNode value = by_field<"value">(c);
      if (!ts_node_is_null(value) && text_of(value, src) == "*") has_default = true;
      walk_clause(c, src, branch, ctx, depth);
      results.push_back(std::move(branch));
      heads.push_back(c);
      exits.push_back(clause_exits(c, src, false));
    }
  }
  if (type == "if_statement") {
    results.insert(results.begin(), any_then ? std::move(then_env) : Env(env));
    heads.insert(heads.begin(), n);
    exits.insert(exits.begin(), then_exits);
  }
  if (!has_default) {
    results.push_back(env);
    heads.push_back(TSNode{});
    exits.push_back(false);
  }
  // A branch that exits (else echo "unknown mode"; exit 1) never reaches what follows: the values after
  // the statement are the other branches'.
  if (std::count(exits.begin(), exits.end(), true) > 0 && std::count(exits.begin(), exits.end(), false) > 0) {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < results.size(); ++k) {
      if (exits[k]) continue;
      if (kept != k) {
        results[kept] = std::move(results[k]);
        heads[kept] = heads[k];
      }
      ++kept;
    }
    results.resize(kept);
    heads.resize(kept);
  }
  then_env = Env();  // it shares the variables: the merge may change them in place once no branch holds them
  Location where = node_location(n, src);
  std::string fallthrough;
  // When no branch of an if runs, a variable only its branches set is empty — a path the script takes
  // unless its tests choose among the script's own arguments (`if [ "$1" = A2.7B ]`: the usage names the
  // inputs, and another one is the caller's mistake, not the script's).
  // Their text, only where an if runs no branch when every test fails.
  std::string tests;
  if (type == "if_statement" && !has_default)
    for (TSNode t : test_nodes) {
      tests.append(src.text, ts_node_start_byte(t), ts_node_end_byte(t) - ts_node_start_byte(t));
      tests += '\n';
    }
  if (type == "if_statement" && !has_default && !condition.empty() && !tests_script_arguments(tests, env))
    fallthrough =
        results.size() == 2
            ? "the if at line " + std::to_string(where.range.start.line) + " (" + condition + ") is false"
            : "no test of the if at line " + std::to_string(where.range.start.line) + " (" + condition +
                  " and its elifs) holds" + unset_in_tests(tests, env);
  // Each branch as findings name it; only written out when a launch string needs it.
  auto labels = [&]() {
    std::vector<std::string> out;
    for (TSNode h : heads) {
      if (ts_node_is_null(h)) {
        out.push_back("no branch at line " + std::to_string(where.range.start.line) + " runs");
        continue;
      }
      std::string what;
      std::string_view ht = node_type(h);
      if (ht == "if_statement") {
        what = "if " + condition;
      } else if (ht == "else_clause") {
        what = "else";
      } else if (ht == "elif_clause") {
        std::string_view head = std::string_view(src.text).substr(ts_node_start_byte(h), 200);
        head = head.substr(0, head.find('\n'));
        if (auto then = head.find("; then"); then != std::string_view::npos) head = head.substr(0, then);
        what = abbreviate(std::string(head));
      } else {
        TSNode value = by_field<"value">(h);
        what = ts_node_is_null(value) ? "case" : "case " + abbreviate(text_of(value, src));
      }
      out.push_back("the branch at line " + std::to_string(node_location(h, src).range.start.line) + " (" +
                    what + ")");
    }
    return out;
  };
  merge_branches(env, std::move(results), where, fallthrough, labels, tests);
}

// The name an expansion at `dollar` reads: a variable's name ($TP, ${TP:-1}), one character for a special
// or positional parameter ($1, $@, $#), or empty for anything else ($(...), $((...)), a lone $).
std::string_view ShellParser::expansion_name(std::string_view text, std::size_t dollar) {
  std::size_t at = dollar + 1 + (dollar + 1 < text.size() && text[dollar + 1] == '{');
  if (at >= text.size()) return {};
  const char c = text[at];
  if (std::isdigit(static_cast<unsigned char>(c)) ||
      std::string_view("@*#?$!-").find(c) != std::string_view::npos)
    return text.substr(at, 1);
  if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') return {};
  std::size_t end = at;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
    ++end;
  return text.substr(at, end - at);
}

static bool is_variable_name(std::string_view name) {
  return !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
}

// ", as when $NODES is empty (it is not set in this script)" for the first variable the tests read that
// the script never sets; "" when every one is set.
std::string ShellParser::unset_in_tests(std::string_view tests, Env& env) {
  for (auto pos = tests.find('$'); pos != std::string_view::npos; pos = tests.find('$', pos + 1)) {
    std::string name(expansion_name(tests, pos));
    if (is_variable_name(name) && !env.find(name) && !name.starts_with("SLURM_"))
      return ", as when $" + name + " is empty (it is not set in this script)";
  }
  return {};
}

// Whether every expansion in `text` is of a variable the script has set (no command substitution, no
// positional argument, nothing from the environment): the cheap test before a branch is decided.
bool ShellParser::expands_only_set_variables(std::string_view text, Env& env) {
  if (text.find('`') != std::string_view::npos) return false;
  for (auto pos = text.find('$'); pos != std::string_view::npos; pos = text.find('$', pos + 1)) {
    std::string_view name = expansion_name(text, pos);
    if (!is_variable_name(name) || !env.find(std::string(name))) return false;
  }
  return true;
}

// Whether tests read the script's positional arguments ($1, "$@", $#, or a variable holding one).
bool ShellParser::tests_script_arguments(std::string_view tests, Env& env) {
  for (auto pos = tests.find('$'); pos != std::string_view::npos; pos = tests.find('$', pos + 1)) {
    std::string_view name = expansion_name(tests, pos);
    if (name.empty()) continue;
    if (!is_variable_name(name)) {
      if (std::isdigit(static_cast<unsigned char>(name[0])) || name == "@" || name == "*" || name == "#")
        return true;
      continue;
    }
    const Var* v = env.find(std::string(name));
    if (v && std::any_of(v->value.unknown_reasons.begin(), v->value.unknown_reasons.end(),
                         [](const std::string& r) { return r.starts_with("a positional argument"); }))
      return true;
  }
  return false;
}

// A branch decided by constants runs alone: `case "$MODEL_SCALE"` or `if [ "$MODEL_SIZE" = 7B ]` /
// `elif ...` on values the script sets. The values it sets say which branch chose them.
bool ShellParser::take_constant_branch(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
  const bool is_case = node_type(n) == "case_statement";
  std::optional<TSNode> chosen =
      is_case ? constant_case_arm(n, src, env, ctx) : constant_if_branch(n, src, env, ctx);
  if (!chosen) return false;
  // Each branch as (its head, its statements): an if's own body, each elif after its test, the else;
  // each case arm after its patterns.
  std::vector<std::pair<TSNode, std::vector<TSNode>>> arms;
  std::string test;  // the first test, for messages
  if (is_case) {
    for (TSNode item : NamedChildren(n)) {
      if (node_type(item) != "case_item") continue;
      arms.push_back({item, {}});
      NamedChildren children(item);
      for (TSNode c : children)
        if (!children.field_name() || std::string_view(children.field_name()) != "value")
          arms.back().second.push_back(c);
    }
    TSNode subject = by_field<"value">(n);
    test =
        abbreviate(text_of(subject, src)) + " is " + abbreviate(expand_joined(subject, src, env, ctx).text);
  } else {
    arms.push_back({n, {}});
    NamedChildren children(n);
    for (TSNode c : children) {
      const char* field = children.field_name();
      std::string_view ct = node_type(c);
      if (field && std::string_view(field) == "condition") {
        if (test.empty()) test = abbreviate(text_of(c, src));
        continue;
      }
      if (ct == "elif_clause" || ct == "else_clause") {
        arms.push_back({c, {}});
        const std::uint32_t count = ts_node_named_child_count(c);
        for (std::uint32_t k = ct == "elif_clause" ? 1 : 0; k < count; ++k)
          arms.back().second.push_back(ts_node_named_child(c, k));
        continue;
      }
      arms.front().second.push_back(c);
    }
  }
  const std::string line = std::to_string(node_location(n, src).range.start.line);
  Env before = env;
  std::set<std::string> elsewhere;  // names the branches that do not run assign
  std::optional<std::pair<std::uint32_t, std::uint32_t>> taken;
  std::uint32_t taken_head = 0;  // where the branch taken starts: its pattern, its elif, else or the if
  for (const auto& [head, statements] : arms) {
    if (ts_node_is_null(*chosen) || !ts_node_eq(head, *chosen)) {
      for (TSNode st : statements) assigned_names(st, src, elsewhere, 0);
      continue;
    }
    taken_head = ts_node_start_byte(head);
    for (TSNode st : statements) walk(st, src, env, ctx, depth + 1);
    if (!statements.empty())
      taken = {ts_node_start_byte(statements.front()), ts_node_end_byte(statements.back())};
  }
  if (taken && taken->second > taken->first) {
    RelatedLocation note{
        location(src.at(taken_head), src.at(taken_head)),
        (is_case ? "the case at line " + line + " takes this arm (" + test + ")"
                 : "the if at line " + line + " takes this branch (its tests are on values the script sets)"),
        true};
    if (chosen_arms_.size() < kMaxChosenArms)
      chosen_arms_.push_back({src.at(taken->first), src.at(taken->second - 1), note});
    std::set<std::string> names;
    env.changed_since(before, names);
    for (const auto& name : names)
      if (env.find(name)) {
        Var& v = env.edit(name);
        v.value.add_via(note);
        for (auto& e : v.elements) e.add_via(note);
      }
  }
  // A variable only the branches that do not run would set is empty after the statement.
  const std::string none = is_case ? "the case at line " + line + " (" + test + ") runs no arm that sets it"
                                   : "the if at line " + line + " (" + test +
                                         ", on values the script sets) runs no branch that sets it";
  Location where = node_location(n, src);
  for (const auto& name : elsewhere) {
    if (before.find(name) || env.find(name)) continue;
    set_unknown(env, name, "set only in branches that do not run: " + none, where);
    env.edit(name).value.empty_when = none + " ($" + name + " is then empty)";
  }
  return true;
}

// The names a statement assigns (X=1, export X=1, local X), at any depth of its compound statements.
void ShellParser::assigned_names(TSNode n, const Source& src, std::set<std::string>& out, int depth) const {
  if (depth > kMaxTreeDepth || out.size() >= kMaxDeadBranchNames) return;
  if (node_type(n) == "variable_assignment") {
    TSNode name = by_field<"name">(n);
    if (!ts_node_is_null(name)) out.insert(text_of(name, src));
    return;
  }
  if (node_type(n) == "function_definition") return;
  for (TSNode c : NamedChildren(n)) assigned_names(c, src, out, depth + 1);
}

// The branch of an if / elif / else whose tests are decided by known values: the if itself (its body),
// an elif_clause or the else_clause; a null node when none runs; nullopt when a test is not decided.
std::optional<TSNode> ShellParser::constant_if_branch(TSNode n, const Source& src, Env& env, Context& ctx) {
  // One test, then `then` (with several commands the last one's status decides: not followed).
  TSNode condition = by_field<"condition">(n);
  if (ts_node_is_null(condition) || node_type(condition) != "test_command") return std::nullopt;
  std::string_view after = std::string_view(src.text).substr(ts_node_end_byte(condition));
  after.remove_prefix(std::min(after.find_first_not_of(" \t\r\n;"), after.size()));
  if (!after.starts_with("then")) return std::nullopt;
  auto holds = constant_test(condition, src, env, ctx);
  if (!holds) return std::nullopt;
  if (*holds) return n;
  for (TSNode c : NamedChildren(n)) {
    std::string_view ct = node_type(c);
    if (ct == "else_clause") return c;
    if (ct != "elif_clause") continue;
    if (ts_node_named_child_count(c) == 0) return std::nullopt;
    auto elif_holds = constant_test(ts_node_named_child(c, 0), src, env, ctx);
    if (!elif_holds) return std::nullopt;
    if (*elif_holds) return c;
  }
  return TSNode{};
}

// `[ "$X" = lit ]`, `[[ $X == pat ]]`, `!=`, `-z` / `-n` on values the script set to constants; nullopt
// for anything else (a run-time value, a command, a numeric or file test).
std::optional<bool> ShellParser::constant_test(TSNode test, const Source& src, Env& env, Context& ctx) {
  if (node_type(test) != "test_command" || ts_node_named_child_count(test) != 1) return std::nullopt;
  const bool double_bracket = text_of(test, src).starts_with("[[");
  TSNode e = ts_node_named_child(test, 0);
  auto known = [&](TSNode operand) -> std::optional<std::string> {
    if (ts_node_is_null(operand)) return std::nullopt;
    std::string_view t = node_type(operand);
    if (t != "string" && t != "raw_string" && t != "word" && t != "simple_expansion" && t != "expansion" &&
        t != "concatenation" && t != "number")
      return std::nullopt;
    if (!expands_only_set_variables(text_of(operand, src), env)) return std::nullopt;
    ShellText v = expand_joined(operand, src, env, ctx);
    if (v.unknown() || v.weak || !v.empty_when.empty() || v.text.find(kUnknownByte) != std::string::npos)
      return std::nullopt;
    return v.text;
  };
  if (node_type(e) == "unary_expression") {
    TSNode op = by_field<"operator">(e);
    if (ts_node_is_null(op) || ts_node_named_child_count(e) < 1) return std::nullopt;
    std::string o = text_of(op, src);
    if (o != "-z" && o != "-n") return std::nullopt;
    auto v = known(ts_node_named_child(e, ts_node_named_child_count(e) - 1));
    if (!v) return std::nullopt;
    return (o == "-z") == v->empty();
  }
  if (node_type(e) != "binary_expression") return std::nullopt;
  TSNode op = by_field<"operator">(e);
  if (ts_node_is_null(op)) return std::nullopt;
  std::string o = text_of(op, src);
  if (o != "=" && o != "==" && o != "!=") return std::nullopt;
  TSNode right = by_field<"right">(e);
  auto l = known(by_field<"left">(e));
  auto r = known(right);
  if (!l || !r) return std::nullopt;
  bool equal = *r == *l;
  // Inside [[ ]] an unquoted right side is a glob pattern.
  if (double_bracket && node_type(right) != "string" && node_type(right) != "raw_string" &&
      r->find_first_of("*?[") != std::string::npos)
    equal = fnmatch(r->c_str(), l->c_str(), 0) == 0;
  return o == "!=" ? !equal : equal;
}

bool ShellParser::is_exit(TSNode statement, const Source& src) const {
  if (node_type(statement) != "command") return false;
  TSNode name = by_field<"name">(statement);
  return !ts_node_is_null(name) && text_of(name, src) == "exit";
}

// A branch whose last statement is `exit`: bash leaves the script there.
bool ShellParser::clause_exits(TSNode clause, const Source& src, bool skip_test) const {
  const std::uint32_t count = ts_node_named_child_count(clause);
  if (count == 0 || (skip_test && count == 1)) return false;
  return is_exit(ts_node_named_child(clause, count - 1), src);
}

std::optional<TSNode> ShellParser::constant_case_arm(TSNode n, const Source& src, Env& env, Context& ctx) {
  TSNode subject = by_field<"value">(n);
  if (ts_node_is_null(subject) || !expands_only_set_variables(text_of(subject, src), env))
    return std::nullopt;
  ShellText value = expand_joined(subject, src, env, ctx);
  if (value.unknown() || value.weak || !value.empty_when.empty()) return std::nullopt;
  for (TSNode item : NamedChildren(n)) {
    if (node_type(item) != "case_item") continue;
    // `;&` and `;;&` run the next arm too: not followed.
    if (!ts_node_is_null(ts_node_child_by_field_name(item, "fallthrough", 11))) return std::nullopt;
    NamedChildren children(item);
    for (TSNode c : children) {
      const char* field = children.field_name();
      if (!field || std::string_view(field) != "value") continue;
      std::string_view ct = node_type(c);
      std::string pattern = text_of(c, src);
      if (ct == "string" || ct == "raw_string") {
        if (pattern.find_first_of("$`\\") != std::string::npos) return std::nullopt;
        if (pattern.substr(1, pattern.size() - 2) == value.text) return item;
        continue;
      }
      if (ct != "word" || pattern.find_first_of("$`\\'\"") != std::string::npos) return std::nullopt;
      if (fnmatch(pattern.c_str(), value.text.c_str(), 0) == 0) return item;
    }
  }
  return TSNode{};  // no arm matches: the case runs nothing
}

void ShellParser::walk_clause(TSNode clause, const Source& src, Env& env, Context& ctx, int depth) {
  NamedChildren children(clause);
  for (TSNode child : children) {
    const char* field = children.field_name();
    if (field && (std::string_view(field) == "value" || std::string_view(field) == "condition")) continue;
    walk(child, src, env, ctx, depth + 1);
  }
}

void ShellParser::merge_branches(Env& env, std::vector<Env> results, const Location& where,
                                 std::string_view fallthrough,
                                 const std::function<std::vector<std::string>()>& labels,
                                 std::string_view tests) {
  std::optional<std::vector<std::string>> named;  // the branches' names, written out once if needed
  auto branch_names = [&]() -> const std::vector<std::string>& {
    if (!named) named = labels ? labels() : std::vector<std::string>{};
    return *named;
  };
  std::set<std::string> names;  // only the names some branch set or erased can differ
  for (const auto& r : results) r.changed_since(env, names);
  WorkMeter::charge(kBranchUnits * results.size() * (1 + names.size()));
  // Options appended in branches are added to the value in place once the branches are gone (while they
  // live, they share it, and changing it would copy the whole value at every if).
  struct Appended {
    std::string name;
    AppendedOptions options;
    Location assigned_at;
    std::string assigned_text;
  };
  std::vector<Appended> appended;
  for (const auto& name : names) {
    const std::shared_ptr<Var>* first = nullptr;
    bool agree = true, untouched = true;
    // The value before the branches, and a branch's pending A="$A ..." on it, stay as they are (pending,
    // Var::appended_to): the merge reads the appended text alone. Any other pending value is made whole.
    const std::shared_ptr<Var>* before = env.raw_slot(name);
    auto pending_on_before = [&](const Var& v) {
      return before && v.appended_to == *before && !v.value.text.empty();
    };
    for (const auto& r : results) {
      const std::shared_ptr<Var>* here = r.raw_slot(name);
      if (here && (!before || here->get() != before->get()) && !pending_on_before(**here)) make_whole(**here);
      if (!here) {
        agree = false;
        break;
      }
      if (!before || here->get() != before->get()) untouched = false;
      if (!first)
        first = here;
      else if (first->get() != here->get() && !alike(**first, **here))
        agree = false;
    }
    if (agree && untouched) continue;  // no branch changed it
    std::string branches = "the branches at line " + std::to_string(where.range.start.line);
    if (agree && first) {
      env.share(name, *first);
      continue;
    }
    std::vector<const Var*> values;
    for (const auto& r : results) values.push_back(r.find_pending(name));
    if (before && std::none_of(values.begin(), values.end(), [](const Var* v) { return !v; }))
      if (auto options = appended_options(values, **before, branches)) {
        appended.push_back(
            {name, std::move(*options), values.front()->assigned_at, values.front()->assigned_text});
        continue;
      }
    if (before) make_whole(**before);  // the general merge reads the value before as a whole
    if (launch_strings(name, results)) {
      set_unknown(env, name, "assigned differently in " + branches, where);
      keep_branch_values(env, name, results, branch_names());
    } else if (auto merged = merge_branch_values(results, before ? before->get() : nullptr, name, branches)) {
      env.set(name, std::move(*merged));
    } else if (!before && !fallthrough.empty() && !results.back().find(name) &&
               std::all_of(results.begin(), results.end() - 1, [&](const Env& r) { return r.find(name); }) &&
               references_to(tests, name) == 0) {
      // Set only in the branch: when the if runs none, the variable is empty. Not when the condition
      // tests the variable itself (if [ -z "${EP:-}" ]; then EP=4; fi): it is then the environment's.
      set_unknown(env, name,
                  std::string(results.size() == 2 ? "set in one branch only" : "set only in the branches") +
                      ": empty when " + std::string(fallthrough),
                  where);
      env.edit(name).value.empty_when = std::string(fallthrough) + " ($" + name + " is then empty)";
    } else {
      set_unknown(env, name, "assigned differently in " + branches, where);
      if (branch_values_possible(name, results)) keep_branch_values(env, name, results, branch_names());
    }
  }
  results.clear();
  for (auto& a : appended) {
    Var& v = env.edit_tail(a.name);
    a.options.apply_to(v);
    v.assigned_at = std::move(a.assigned_at);
    v.assigned_text = std::move(a.assigned_text);
    if (auto too_large = over_value_limit(v)) set_unknown(env, a.name, *too_large, where);
  }
}

// Whether two branches left a variable alike: the same object, or values written alike. A pending append
// (Var::appended_to) differs from the value it extends (its appended text is not empty: see
// merge_branches), and two on the same value are alike when they append the same known text to a known
// value; anything else is compared whole.
bool ShellParser::alike(Var& a, Var& b) {
  if (&a == &b) return true;
  if (a.appended_to.get() == &b || b.appended_to.get() == &a) return false;
  if (a.appended_to && a.appended_to == b.appended_to) {
    for (const Var* p = a.appended_to.get(); p; p = p->appended_to.get())
      if (p->value.unknown()) return false;
    return same_text(a, b);
  }
  make_whole(a);
  make_whole(b);
  return same_text(a, b);
}

// A launch string chosen by branch (APP="python pretrain_gpt.py ..." in each): the branches' values, for
// a command that runs the variable to be read once per branch. Called once branch_values_possible holds.
void ShellParser::keep_branch_values(Env& env, const std::string& name, const std::vector<Env>& results,
                                     const std::vector<std::string>& labels) {
  if (labels.size() != results.size()) return;
  auto values = std::make_shared<std::vector<BranchValue>>();
  for (std::size_t i = 0; i < results.size(); ++i) values->push_back({labels[i], *results[i].slot(name)});
  env.edit(name).branch_values = std::move(values);
}

// Every branch leaves the variable a plain known string of several words (a single word is a mode, not a
// command), and there are few enough branches to keep each one's value.
bool ShellParser::branch_values_possible(const std::string& name, const std::vector<Env>& results) {
  if (results.size() > kMaxBranchValues) return false;
  for (const auto& r : results) {
    const Var* v = r.find(name);
    if (!v || v->is_array || v->value.unknown() || v->branch_values ||
        v->value.text.find(' ') == std::string::npos)
      return false;
  }
  return true;
}

// Every branch gives the variable a command line of its own ("python pretrain_gpt.py --tp 2 ..."), not
// options to add to one ("--tp 2 ..."): each is a launch, read on its own rather than merged.
bool ShellParser::launch_strings(const std::string& name, const std::vector<Env>& results) {
  if (!branch_values_possible(name, results)) return false;
  for (const auto& r : results) {
    std::string_view t = r.find(name)->value.text;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\n' || t.front() == '\t')) t.remove_prefix(1);
    auto end = t.find_first_of(" \n\t");
    if (end == std::string_view::npos || t.front() == '-') return false;
    std::string_view first = basename(t.substr(0, end));
    if (!first.ends_with(".py") && !starts_ranks(first)) return false;
  }
  return true;
}

// The options every branch agrees on, when each branch left the variable an options list.
std::optional<Var> ShellParser::merge_branch_values(const std::vector<Env>& results, const Var* before,
                                                    const std::string& name, const std::string& branches) {
  std::vector<const Var*> values;
  for (const auto& r : results) {
    const Var* v = r.find(name);
    if (!v) return std::nullopt;
    values.push_back(v);
  }
  return merge_option_lists(values, before, branches);
}

void ShellParser::redirected(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
  Redirects r;
  TSNode body = by_field<"body">(n);
  std::optional<ShellText> written_to;  // cat <<EOF > FILE, cat > FILE <<EOF
  for (TSNode c : NamedChildren(n)) {
    std::string_view ct = node_type(c);
    if (ct == "heredoc_redirect") {
      r.heredoc = heredoc_text(c, src, env, ctx);
      for (TSNode inner : NamedChildren(c))
        if (node_type(inner) == "file_redirect") written_to = redirect_target(inner, src, env, ctx);
    }
    if (ct == "file_redirect") written_to = redirect_target(c, src, env, ctx);
    if (ct == "herestring_redirect") r.herestring = true;
  }
  // A file the script writes from a here-document (a DeepSpeed config): later launches may name it.
  if (r.heredoc && written_to && !written_to->unknown() &&
      written_to->text.find(kUnknownByte) == std::string::npos && !ctx.in_loop) {
    written_files_[written_to->text] = *r.heredoc;
    ++unrepeatable_;
  }
  if (ts_node_is_null(body)) return;
  if (node_type(body) == "command") return command(body, src, env, ctx, r);
  walk(body, src, env, ctx, depth + 1);
}

// The file a `> FILE` redirect writes (not `>>`, `2>`, `<`).
std::optional<ShellText> ShellParser::redirect_target(TSNode redirect, const Source& src, Env& env,
                                                      Context& ctx) {
  std::string op;
  for (TSNode c : Children(redirect))
    if (!ts_node_is_named(c)) op += node_type(c);
  if (op != ">" && op != ">|") return std::nullopt;
  TSNode dest = by_field<"destination">(redirect);
  if (ts_node_is_null(dest)) return std::nullopt;
  return expand_joined(dest, src, env, ctx);
}

ShellText ShellParser::heredoc_text(TSNode redirect, const Source& src, Env& env, Context& ctx) {
  ShellText t;
  TSNode start{}, body{};
  bool have_body = false;
  for (TSNode c : NamedChildren(redirect)) {
    if (node_type(c) == "heredoc_start") start = c;
    if (node_type(c) == "heredoc_body") {
      body = c;
      have_body = true;
    }
  }
  if (!have_body) return t;
  std::string delim = ts_node_is_null(start) ? "" : text_of(start, src);
  bool quoted = delim.find_first_of("'\"\\") != std::string::npos;
  std::uint32_t pos = ts_node_start_byte(body), end = ts_node_end_byte(body);
  auto literal = [&](std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t i = from; i < to; ++i) {
      char c = src.text[i];
      // In an unquoted heredoc, \$ \` and \\ lose their backslash; the rest stays as written.
      if (!quoted && c == '\\' && i + 1 < to &&
          (src.text[i + 1] == '$' || src.text[i + 1] == '`' || src.text[i + 1] == '\\')) {
        ++i;
        c = src.text[i];
      }
      t.push(c, src.at(i));
    }
  };
  if (!quoted) {
    for (TSNode c : NamedChildren(body)) {
      literal(pos, expansion_start(c, src));
      t.append(expand_joined(c, src, env, ctx));
      pos = ts_node_end_byte(c);
    }
  }
  literal(pos, end);
  return t;
}

void ShellParser::declare(TSNode n, const Source& src, Env& env, Context& ctx) {
  std::string keyword;
  if (ts_node_child_count(n) > 0) keyword = node_type(ts_node_child(n, 0));
  bool exported = keyword == "export";
  for (TSNode c : NamedChildren(n)) {
    std::string_view ct = node_type(c);
    if (ct == "word" && text_of(c, src).find('x') != std::string::npos && text_of(c, src).starts_with("-"))
      exported = true;  // declare -x
    if (ct == "variable_assignment") assign(c, src, env, ctx, exported, true);
    if (ct == "variable_name" && exported) env.edit(text_of(c, src)).exported = true;
  }
}

void ShellParser::assign(TSNode n, const Source& src, Env& env, Context& ctx, bool exported, bool declared) {
  TSNode name_node = by_field<"name">(n);
  TSNode value = by_field<"value">(n);
  if (ts_node_is_null(name_node)) return;
  std::string name = text_of(name_node, src);
  if (node_type(name_node) == "subscript") return;  // A[3]=x: element updates are not tracked
  bool append = false;
  for (std::uint32_t i = 0; i < ts_node_child_count(n); ++i)
    if (node_type(ts_node_child(n, i)) == "+=") append = true;
  Var v;
  // As stored: a pending A="$A ..." (Var::appended_to) is made whole only where its whole value is read.
  const Var* existing = env.find_pending(name);
  std::shared_ptr<Var> pending_base;
  v.exported = exported || ctx.all_export || (existing && existing->exported);
  v.assigned_at = node_location(n, src);
  v.assigned_text = text_of(n, src);
  if (auto nl = v.assigned_text.find('\n'); nl != std::string::npos)
    v.assigned_text = v.assigned_text.substr(0, nl) + " ...";
  if (v.assigned_text.size() > 60) v.assigned_text = v.assigned_text.substr(0, 57) + "...";
  if (!ts_node_is_null(value) && node_type(value) == "array") {
    v.is_array = true;
    std::vector<ShellText> added;
    for (TSNode el : NamedChildren(value)) {
      if (node_type(el) == "comment") continue;
      for (auto& field : expand_fields(el, src, env, ctx)) {
        budget_.spend(field.text.size());
        added.push_back(std::move(field));
      }
    }
    if (append && existing) {
      // ARR+=(...) extends the array: take the old elements and joined value over (cloned only when
      // another scope still shares them) instead of rebuilding them, which made appends quadratic.
      Var& old = env.edit(name);
      v.elements = std::move(old.elements);
      v.value = std::move(old.value);
      existing = nullptr;
    }
    for (auto& e : added) {
      if (!v.elements.empty()) v.value.push(' ', {});
      v.value.append(e);
      v.elements.push_back(std::move(e));
    }
  } else {
    // A="$A ..." and A+="...": the old value is taken over (copied only when another scope still shares
    // it) rather than expanded into a new one, which made n appends cost n^2. While the rest is expanded
    // $A gives nothing, so this holds only where the value names A once, at its start (or not at all).
    std::string_view written =
        ts_node_is_null(value)
            ? std::string_view{}
            : std::string_view(src.text).substr(ts_node_start_byte(value),
                                                ts_node_end_byte(value) - ts_node_start_byte(value));
    int mentions = references_to(written, name);
    bool self_append = !append && existing && !existing->is_array && mentions == 1 &&
                       (written.starts_with("\"$" + name) || written.starts_with("\"${" + name + "}")) &&
                       references_to(written.substr(0, 3 + name.size()), name) == 1;
    bool take_over = existing && !existing->is_array && (self_append || (append && mentions == 0));
    // In a branch the old value is the script's too: the appended text is kept apart, after a pointer to
    // it (Var::appended_to), rather than copying the whole value into the branch.
    if (self_append && !ctx.in_loop && !ts_node_is_null(value) && !env.owns_whole(name)) {
      if (env.owns_pending(name)) {
        Var& old = env.edit_pending(name);
        pending_base = old.appended_to;
        v.value = std::move(old.value);
        old.value = ShellText{};
      } else if (existing->size() > 0) {
        pending_base = *env.raw_slot(name);
      }
    }
    if (pending_base) {
      // While the rest is expanded $A gives nothing, as with the value taken over below.
      Var emptied;
      emptied.exported = existing->exported;
      emptied.assigned_at = existing->assigned_at;
      emptied.assigned_text = existing->assigned_text;
      emptied.branch_values = existing->branch_values;
      env.set(name, std::move(emptied));
      existing = nullptr;
    } else if (take_over) {
      Var& old = env.edit_appending(name);
      v.value = std::move(old.value);
      v.option_keys = std::move(old.option_keys);
      old.value = ShellText{};
      existing = nullptr;
    } else if (append && existing) {
      v.value = env.find(name)->value;
    }
    if (!ts_node_is_null(value)) {
      ShellText t = expand_joined(value, src, env, ctx);
      t.forget_written();
      budget_.spend(t.text.size());
      if (!t.unknown() && !t.text.empty() && !take_over) {
        out_.literals.push_back({name, t.text, node_location(value, src)});
      }
      ShellText via_of;  // what the value used: as the whole expansion would have named it
      if (self_append) via_of.via = std::move(v.value.via);
      for (const auto& r : t.via) via_of.add_via(r);
      v.value.append_moved(std::move(t));
      v.value.via = std::move(via_of.via);
      if (node_type(value) == "arithmetic_expansion") size_expression(name, value, src, env, ctx);
      if (node_type(value) == "command_substitution") expr_size_expression(name, value, src, env);
    }
  }
  v.appended_to = std::move(pending_base);
  if (ctx.in_loop) {
    v.value = ShellText{};
    v.value.add_unknown("assigned in a loop");
    v.elements.clear();
    v.appended_to.reset();
    v.option_keys.index.reset();
  } else if (auto too_large = over_value_limit(v)) {
    v.value = ShellText{};
    v.value.add_unknown(*too_large);
    v.elements.clear();
    v.appended_to.reset();
    v.option_keys.index.reset();
  }
  (void)declared;
  env.set(name, std::move(v));
}

}  // namespace parlint::shell
