// Shell words expanded as bash would, statically: quoting, parameter expansion (${A:-b}, arrays,
// substrings), command substitution, arithmetic and the variables SLURM sets.
#include "parsers/shell/shell_interpreter.h"

#include "lint/model/size_expression.h"

#include <algorithm>
#include <charconv>

#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::shell {

std::vector<ShellText> ShellParser::expand_fields(TSNode n, const Source& src, Env& env, Context& ctx) {
  Fields f;
  expand_into(n, src, env, ctx, f, false);
  f.finish();
  // A word written directly (not produced whole by an array) is located where it is written.
  if (f.done.size() == 1 && !produced_by_array(n, src)) {
    std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    f.done[0].written_first = src.at(b);
    f.done[0].written_last = src.at(e > b ? e - 1 : b);
  }
  return std::move(f.done);
}

// "${A[@]}" (alone, in a string or in a concatenation) produces words that were written elsewhere.
bool ShellParser::produced_by_array(TSNode n, const Source& src) const {
  std::string_view t = node_type(n);
  if (t == "expansion") return is_all_elements(n, src);
  if (t == "concatenation" || t == "string") {
    for (TSNode child : NamedChildren(n))
      if (produced_by_array(child, src)) return true;
  }
  return false;
}

// Expands a node as one string (assignment values, "-c" strings, here-documents).
ShellText ShellParser::expand_joined(TSNode n, const Source& src, Env& env, Context& ctx) {
  Fields f;
  f.joined = true;
  expand_into(n, src, env, ctx, f, true);
  f.finish();
  if (f.words == 0) return ShellText{};
  // Where one word was written says nothing of where several joined were.
  if (f.words > 1) f.current.forget_written();
  return std::move(f.current);
}

void ShellParser::literal_word(const Source& src, std::uint32_t b, std::uint32_t e, ShellText& t) {
  for (std::uint32_t i = b; i < e; ++i) {
    // Plain bytes of a file's own text (their origins follow one another) are taken up to the next one
    // handled below, in one go.
    if (src.origin.empty()) {
      std::uint32_t j = i;
      while (j < e && src.text[j] != '\\' && src.text[j] != '$' && src.text[j] != kUnknownByte) ++j;
      if (j > i) {
        t.push_run(std::string_view(src.text).substr(i, j - i), src.at(i));
        i = j - 1;
        continue;
      }
    }
    char c = src.text[i];
    if (c == '\\' && i + 1 < e) {
      ++i;
      if (src.text[i] == '\n') continue;  // line continuation
      c = src.text[i];
    } else if (c == '$' && i + 1 < e &&
               (std::isalpha(static_cast<unsigned char>(src.text[i + 1])) || src.text[i + 1] == '_' ||
                src.text[i + 1] == '{')) {
      // An expansion the grammar left inside a plain word ($A/x_$B.log splits after x_): its value
      // is not read, so it is known only at run time.
      std::uint32_t j = i + 1;
      if (src.text[j] == '{') {
        while (j < e && src.text[j] != '}') ++j;
        if (j < e) ++j;
      } else {
        while (j < e && (std::isalnum(static_cast<unsigned char>(src.text[j])) || src.text[j] == '_')) ++j;
      }
      t.add_unknown("an expansion (" + std::string(src.text.substr(i, j - i)) + ") known only at run time");
      i = j - 1;
      continue;
    } else if (c == kUnknownByte) {
      t.push(c, src.at(i));
      t.unknown_reasons.push_back(src.reason_at(i));
      continue;
    }
    t.push(c, src.at(i));
  }
}

// tree-sitter-bash starts an `expansion` inside a string at the blank before it ("$X ${B[*]}" gives
// " ${B[*]}"), and the blank was lost between the two values: the text before the `$` is the string's own.
std::uint32_t ShellParser::expansion_start(TSNode c, const Source& src) {
  std::uint32_t b = ts_node_start_byte(c), e = ts_node_end_byte(c);
  std::string_view type = node_type(c);
  if (type != "expansion" && type != "simple_expansion" && type != "command_substitution" &&
      type != "arithmetic_expansion")
    return b;
  std::uint32_t at = b;
  while (at < e && (src.text[at] == ' ' || src.text[at] == '\t' || src.text[at] == '\n')) ++at;
  return at < e && (src.text[at] == '$' || src.text[at] == '`') ? at : b;
}

void ShellParser::double_quoted(const Source& src, std::uint32_t b, std::uint32_t e, ShellText& t) {
  for (std::uint32_t i = b; i < e; ++i) {
    if (src.origin.empty()) {  // plain bytes of a file's own text in one go, as in literal_word
      std::uint32_t j = i;
      while (j < e && src.text[j] != '\\') ++j;
      if (j > i) {
        t.push_run(std::string_view(src.text).substr(i, j - i), src.at(i));
        i = j - 1;
        continue;
      }
    }
    char c = src.text[i];
    if (c == '\\' && i + 1 < e) {
      char next = src.text[i + 1];
      if (next == '\n') {
        ++i;
        continue;
      }
      // Inside "...", only \$ \` \" \\ lose their backslash; \$ stays a literal $ for an inner shell.
      if (next == '$' || next == '`' || next == '"' || next == '\\') {
        ++i;
        c = next;
      }
    }
    t.push(c, src.at(i));
  }
}

void ShellParser::expand_into(TSNode n, const Source& src, Env& env, Context& ctx, Fields& f, bool joined) {
  DepthGuard guard(expansion_depth_);
  if (expansion_depth_ > kMaxExpansionDepth) {
    ShellText t;
    t.add_unknown("expansions nested too deeply to follow");
    f.add(t, false);
    return;
  }
  std::string_view type = node_type(n);
  std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (type == "word" || type == "number" || type == "extglob_pattern" || type == "brace_expression" ||
      type == "special_variable_name" || type == "variable_name" || type == "test_operator") {
    ShellText t;
    literal_word(src, b, e, t);
    f.add(t, false);
    return;
  }
  if (type == "raw_string") {
    ShellText t;
    for (std::uint32_t i = b + 1; i + 1 < e; ++i) t.push(src.text[i], src.at(i));
    f.add(t, false);
    return;
  }
  if (type == "ansi_c_string") {
    ShellText t;
    for (std::uint32_t i = b + 2; i + 1 < e; ++i) {
      char c = src.text[i];
      if (c == '\\' && i + 2 < e) {
        char x = src.text[++i];
        c = x == 'n' ? '\n' : x == 't' ? '\t' : x;
      }
      t.push(c, src.at(i));
    }
    f.add(t, false);
    return;
  }
  if (type == "string" || type == "translated_string") {
    ShellText t;
    std::uint32_t pos = b + (type == "string" ? 1 : 2);
    std::uint32_t stop = e > b ? e - 1 : e;
    for (TSNode c : NamedChildren(n)) {
      std::string_view ct = node_type(c);
      if (ct == "string_content") continue;  // covered by the gaps below
      double_quoted(src, pos, expansion_start(c, src), t);
      const Var* array = ct == "expansion" && is_all_elements(c, src) ? lookup_var(c, src, env) : nullptr;
      if (array && !array->is_array) array = nullptr;  // "${S[@]}" of a string is the string
      if (array && !joined && all_elements_index(c, src) == '@') {
        // "${A[@]}": one field per element, even inside quotes (so bash -c "cmd ${A[@]}" runs only
        // the text up to the first element's end, and the rest become $0, $1, ... as in bash).
        f.add(t, false);
        t = ShellText{};
        for (std::size_t k = 0; k < array->elements.size(); ++k) {
          if (k) f.finish();
          f.add(array->elements[k], false);
        }
      } else if (array) {
        // "${A[*]}", or any "${A[@]}" where one string is made: the elements joined by a blank.
        for (std::size_t k = 0; k < array->elements.size(); ++k) {
          if (k) t.push(' ', {});
          t.append(array->elements[k]);
        }
      } else {
        t.append_moved(expand_value(c, src, env, ctx));
      }
      pos = ts_node_end_byte(c);
    }
    double_quoted(src, pos, stop, t);
    f.add(std::move(t));
    return;
  }
  if (type == "simple_expansion" || type == "expansion") {
    if (type == "expansion" && is_all_elements(n, src)) {
      const Var* var = lookup_var(n, src, env);
      if (var && var->is_array) {
        for (std::size_t k = 0; k < var->elements.size(); ++k) {
          f.add(var->elements[k], true);
          if (!joined) f.finish();
        }
        return;
      }
    }
    ShellText v = expand_value(n, src, env, ctx);
    // An unquoted expansion of a multi-word value splits into words; its pieces keep their origin.
    f.add(v, true);
    return;
  }
  if (type == "concatenation") {
    for (TSNode child : NamedChildren(n)) expand_into(child, src, env, ctx, f, joined);
    return;
  }
  if (type == "arithmetic_expansion") {
    ShellText t;
    std::optional<std::int64_t> v;
    std::string reason;
    if (ts_node_named_child_count(n) > 0) v = arith(ts_node_named_child(n, 0), src, env, ctx, t, reason);
    if (v) {
      for (char c : std::to_string(*v)) t.push(c, src.at(b));
      t.text.shrink_to_fit();
    } else {
      t.add_unknown(reason.empty() ? "arithmetic on values known only at run time" : reason);
    }
    f.add(t, false);
    return;
  }
  if (type == "command_substitution" || type == "process_substitution") {
    ShellText t;
    t.add_unknown(command_output_reason(text_of(n, src)));
    f.add(t, false);
    return;
  }
  ShellText t;
  literal_word(src, b, e, t);
  f.add(t, false);
}

std::string ShellParser::abbreviate(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

bool ShellParser::is_all_elements(TSNode expansion, const Source& src) const {
  return all_elements_index(expansion, src) != 0;
}

// '@' for ${A[@]}, '*' for ${A[*]}, else 0.
char ShellParser::all_elements_index(TSNode expansion, const Source& src) const {
  for (TSNode c : NamedChildren(expansion)) {
    if (node_type(c) != "subscript") continue;
    TSNode index = by_field<"index">(c);
    if (ts_node_is_null(index)) return 0;
    std::string idx = text_of(index, src);
    return idx == "@" || idx == "*" ? idx[0] : 0;
  }
  return 0;
}

const Var* ShellParser::lookup_var(TSNode expansion, const Source& src, Env& env) const {
  for (TSNode c : NamedChildren(expansion)) {
    if (node_type(c) == "subscript") {
      TSNode name = by_field<"name">(c);
      if (ts_node_is_null(name)) return nullptr;
      return env.find(text_of(name, src));
    }
  }
  return nullptr;
}

void ShellParser::add_via(ShellText& t, const Var& var) {
  if (var.assigned_at.in_file()) t.via.push_back({var.assigned_at, var.assigned_text + " set here"});
}

// The value of $X / ${X...} as one string.
ShellText ShellParser::expand_value(TSNode n, const Source& src, Env& env, Context& ctx) {
  DepthGuard guard(expansion_depth_);
  if (expansion_depth_ > kMaxExpansionDepth) {
    ShellText t;
    t.add_unknown("expansions nested too deeply to follow");
    return t;
  }
  std::string_view type = node_type(n);
  if (type != "simple_expansion" && type != "expansion") return expand_joined(n, src, env, ctx);
  std::string name, op;
  TSNode operand{};
  bool has_operand = false, length = false, subscript = false;
  std::uint32_t count = ts_node_child_count(n);
  for (std::uint32_t i = 0; i < count; ++i) {
    TSNode c = ts_node_child(n, i);
    std::string_view ct = node_type(c);
    if (ct == "variable_name" || ct == "special_variable_name") {
      if (name.empty()) name = text_of(c, src);
    } else if (ct == "subscript") {
      TSNode nm = by_field<"name">(c);
      if (!ts_node_is_null(nm)) name = text_of(nm, src);
      subscript = true;
    } else if (ct == "#" && name.empty()) {
      length = true;
    } else if (!ts_node_is_named(c) && ct != "${" && ct != "}" && ct != "$" && !name.empty() && op.empty()) {
      op = ct;
    } else if (ts_node_is_named(c) && !name.empty() && !has_operand) {
      operand = c;
      has_operand = true;
    }
  }
  ShellText out;
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || name == "@" || name == "*" ||
      name == "#") {
    out.add_unknown("a positional argument of the script ($" + name + ")");
    return out;
  }
  if (length) {
    out.add_unknown("the length of $" + name);
    return out;
  }
  const Var* var = env.find(name);
  if (var && var->branch_values && branch_values_read_.empty())
    branch_values_read_.emplace_back(name, var->branch_values);
  bool is_set = var != nullptr;
  bool is_empty = var && !var->value.unknown() && var->value.text.empty();
  bool slurm_weak = false;
  std::optional<ShellText> slurm;
  if (!var && name.starts_with("SLURM_")) slurm = slurm_variable(name, ctx, slurm_weak);

  auto operand_text = [&]() { return has_operand ? expand_joined(operand, src, env, ctx) : ShellText{}; };
  if (op == ":-" || op == "-" || op == ":=" || op == "=") {
    bool use_default = op.starts_with(":") ? (!is_set || is_empty) : !is_set;
    if (slurm && !slurm->unknown()) use_default = false;
    if (use_default) {
      if (slurm && !slurm_weak) {
        return *slurm;  // inside an allocation the variable is set, even if we cannot tell its value
      }
      ShellText d = operand_text();
      if (slurm_weak) {
        d.weak = true;
        d.weak_note = "with the fallback ${" + name + op + d.text + "} (no #SBATCH resources in this script)";
      }
      if (op == ":=" || op == "=") {
        Var nv;
        nv.value = d;
        nv.assigned_at = node_location(n, src);
        nv.assigned_text = text_of(n, src);
        env.set(name, nv);
      }
      return d;
    }
  } else if (op == ":+" || op == "+") {
    if (!is_set && !slurm) return out;
    if (var && var->value.unknown()) {
      out.add_unknown(var->value.unknown_reasons.front());
      return out;
    }
    return operand_text();
  } else if (!op.empty()) {
    out.add_unknown("${" + name + op + "...} transforms the value at run time");
    return out;
  }
  if (var) {
    ShellText v = subscript && var->is_array && !var->elements.empty() ? var->elements[0] : var->value;
    if (var->is_array && !subscript && !var->elements.empty()) v = var->elements[0];
    v.forget_written();
    add_via(v, *var);
    return v;
  }
  if (slurm) return *slurm;
  // A sourced file parlint could not read may set it: say so, not only "not set".
  out.add_unknown(
      "$" + name + " is not set in this script" +
      (ctx.unread_source ? "; " + *ctx.unread_source + ", sourced but not read, may set it" : ""));
  return out;
}

// SLURM's own variables resolve to the allocation this launch runs in.
std::optional<ShellText> ShellParser::slurm_variable(const std::string& name, Context& ctx, bool& weak) {
  const Allocation& a = ctx.under_srun ? ctx.step : ctx.groups[0];
  const std::optional<Fact>* src = nullptr;
  if (name == "SLURM_NNODES" || name == "SLURM_JOB_NUM_NODES")
    src = &a.nodes;
  else if (name == "SLURM_GPUS_PER_NODE" || name == "SLURM_GPUS_ON_NODE")
    src = &a.gpus_per_node;
  else if (name == "SLURM_NTASKS_PER_NODE" || name == "SLURM_TASKS_PER_NODE")
    src = &a.ntasks_per_node;
  else if (name == "SLURM_NTASKS")
    src = &a.ntasks;
  else
    return std::nullopt;
  ShellText t;
  bool in_slurm = ctx.has_directives || ctx.under_srun;
  if (*src && (*src)->value.as_int()) {
    std::string s = std::to_string(*(*src)->value.as_int());
    for (char c : s) t.push(c, {});
    t.via.push_back({(*src)->location, (*src)->spelling + " requests it"});
    return t;
  }
  if (name == "SLURM_NTASKS" && a.nodes && a.ntasks_per_node && a.nodes->value.as_int() &&
      a.ntasks_per_node->value.as_int()) {
    for (char c : std::to_string(*a.nodes->value.as_int() * *a.ntasks_per_node->value.as_int()))
      t.push(c, {});
    t.via.push_back({a.nodes->location, a.nodes->spelling + " requests it"});
    return t;
  }
  if (*src && (*src)->value.is_unknown()) {
    t.add_unknown("$" + name + ": " + (*src)->value.unknown_reason());
    return t;
  }
  weak = !in_slurm;
  t.add_unknown("$" + name + " is set by SLURM at run time, and " +
                (in_slurm ? std::string("this script's directives do not fix it")
                          : std::string("this script has no #SBATCH resources")));
  return t;
}

// $(( ... )) on known integers; records the variables multiplied for PL103's expression form.
std::optional<std::int64_t> ShellParser::arith(TSNode n, const Source& src, Env& env, Context& ctx,
                                               ShellText& meta, std::string& reason, int depth) {
  if (depth > 64) return std::nullopt;
  std::string_view type = node_type(n);
  if (type == "number") return parse_int(text_of(n, src));
  if (type == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
    return arith(ts_node_named_child(n, 0), src, env, ctx, meta, reason, depth + 1);
  if (type == "variable_name" || type == "simple_expansion" || type == "expansion") {
    ShellText v;
    if (type == "variable_name") {
      const Var* found = env.find(text_of(n, src));
      if (!found) {
        bool weak = false;
        auto s =
            text_of(n, src).starts_with("SLURM_") ? slurm_variable(text_of(n, src), ctx, weak) : std::nullopt;
        if (!s) {
          reason =
              text_of(n, src) + " is not set in this script" +
              (ctx.unread_source ? "; " + *ctx.unread_source + ", sourced but not read, may set it" : "");
          return std::nullopt;
        }
        v = *s;
      } else {
        v = found->value;
        add_via(v, *found);
      }
    } else {
      v = expand_value(n, src, env, ctx);
    }
    meta.merge_meta(v);
    if (v.unknown()) {
      reason = v.unknown_reasons.front();
      return std::nullopt;
    }
    return parse_int(v.text);
  }
  if (type == "unary_expression" && ts_node_child_count(n) == 2) {
    auto x = arith(ts_node_child(n, 1), src, env, ctx, meta, reason, depth + 1);
    std::string_view op = node_type(ts_node_child(n, 0));
    if (!x) return std::nullopt;
    if (op == "-") return -*x;
    if (op == "+") return *x;
    return std::nullopt;
  }
  if (type == "binary_expression") {
    TSNode l = by_field<"left">(n), r = by_field<"right">(n);
    TSNode o = by_field<"operator">(n);
    if (ts_node_is_null(l) || ts_node_is_null(r) || ts_node_is_null(o)) return std::nullopt;
    auto a = arith(l, src, env, ctx, meta, reason, depth + 1);
    auto b = arith(r, src, env, ctx, meta, reason, depth + 1);
    if (!a || !b) return std::nullopt;
    std::string_view op = node_type(o);
    std::int64_t out = 0;
    if (op == "+") return __builtin_add_overflow(*a, *b, &out) ? std::nullopt : std::optional(out);
    if (op == "-") return __builtin_sub_overflow(*a, *b, &out) ? std::nullopt : std::optional(out);
    if (op == "*") return __builtin_mul_overflow(*a, *b, &out) ? std::nullopt : std::optional(out);
    if ((op == "/" || op == "%") && *b == 0) {
      reason = "division by zero";
      return std::nullopt;
    }
    if (op == "/") return *a / *b;
    if (op == "%") return *a % *b;
    return std::nullopt;
  }
  reason = "arithmetic parlint does not evaluate";
  return std::nullopt;
}

void ShellParser::collect_product_vars(TSNode n, const Source& src, std::vector<std::string>& vars,
                                       bool in_product, int depth) {
  if (depth > 64) return;
  std::string_view type = node_type(n);
  // (TP > EP ? TP : EP) picks one of its operands (a max or a min), it does not multiply them.
  if (type == "ternary_expression") return;
  if (type == "variable_name" && in_product) vars.push_back(text_of(n, src));
  if ((type == "simple_expansion" || type == "expansion") && in_product) {
    for (TSNode child : NamedChildren(n))
      if (node_type(child) == "variable_name") vars.push_back(text_of(child, src));
    return;
  }
  bool product = in_product;
  if (type == "binary_expression") {
    TSNode o = by_field<"operator">(n);
    std::string_view op = ts_node_is_null(o) ? "" : node_type(o);
    product = op == "*" || ((op == "/" || op == "%") && in_product);
    if (op == "*" || op == "/") {
      // In a/b only the numerator multiplies: NODES=$(( TP*PP*EP / 8 )).
      TSNode l = by_field<"left">(n);
      if (!ts_node_is_null(l)) collect_product_vars(l, src, vars, true, depth + 1);
      if (op == "*") {
        TSNode r = by_field<"right">(n);
        if (!ts_node_is_null(r)) collect_product_vars(r, src, vars, true, depth + 1);
      }
      return;
    }
  }
  for (TSNode child : NamedChildren(n))
    collect_product_vars(child, src, vars, product && type != "binary_expression", depth + 1);
}

void ShellParser::size_expression(const std::string& target, TSNode arith_node, const Source& src, Env& env,
                                  Context&) {
  if (!key_for_variable_name(target)) return;
  std::vector<std::string> vars;
  if (ts_node_named_child_count(arith_node) > 0)
    collect_product_vars(ts_node_named_child(arith_node, 0), src, vars, false);
  std::vector<ProductOperand> operands;
  for (const auto& v : vars) operands.push_back({v, int_value_of(v, env)});
  if (auto e = size_expression_of(target, operands, node_location(arith_node, src), text_of(arith_node, src)))
    out_.size_expressions.push_back(std::move(*e));
}

// NODES=$(expr $TP \* $PP \* $EP / 8): the operands next to a `*` before the first `/` or `%`.
void ShellParser::expr_size_expression(const std::string& target, TSNode substitution, const Source& src,
                                       Env& env) {
  if (!key_for_variable_name(target) || ts_node_named_child_count(substitution) != 1) return;
  TSNode command = ts_node_named_child(substitution, 0);
  if (node_type(command) != "command") return;
  TSNode name = by_field<"name">(command);
  if (ts_node_is_null(name) || text_of(name, src) != "expr") return;
  std::vector<std::string> words;  // operands ("" for a literal) and operators, as written
  std::vector<bool> is_operator;
  for (TSNode arg : NamedChildren(command)) {
    if (node_type(arg) == "command_name") continue;
    std::string t = text_of(arg, src);
    if (t == "\\*" || t == "'*'" || t == "\"*\"" || t == "*" || t == "/" || t == "%" || t == "+" ||
        t == "-") {
      words.push_back(t == "/" || t == "%" ? "/" : t == "+" || t == "-" ? "+" : "*");
      is_operator.push_back(true);
      continue;
    }
    std::string var;
    if (node_type(arg) == "simple_expansion" || node_type(arg) == "expansion")
      for (TSNode child : NamedChildren(arg))
        if (node_type(child) == "variable_name") var = text_of(child, src);
    words.push_back(var);
    is_operator.push_back(false);
  }
  std::vector<ProductOperand> operands;
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (is_operator[k]) {
      if (words[k] == "/") break;  // in a/b only the numerator multiplies
      continue;
    }
    bool multiplied = (k > 0 && is_operator[k - 1] && words[k - 1] == "*") ||
                      (k + 1 < words.size() && is_operator[k + 1] && words[k + 1] == "*");
    if (multiplied && !words[k].empty()) operands.push_back({words[k], int_value_of(words[k], env)});
  }
  if (auto e =
          size_expression_of(target, operands, node_location(substitution, src), text_of(substitution, src)))
    out_.size_expressions.push_back(std::move(*e));
}

// Why a command's output is unknown, naming what it counts where that is a common run-time fact: the GPUs
// of the node that runs the script (nvidia-smi -L | wc -l, nvidia-smi --list-gpus, nvidia-smi
// --query-gpu=... | wc -l), the nodes of the allocation (scontrol show hostnames | wc -l).
std::string ShellParser::command_output_reason(std::string_view text) {
  std::string shown = abbreviate(std::string(text));
  bool counts_lines = text.find("wc -l") != std::string_view::npos;
  if (text.find("nvidia-smi") != std::string_view::npos &&
      (counts_lines || text.find("--list-gpus") != std::string_view::npos ||
       text.find("count") != std::string_view::npos))
    return "the GPUs of the node that runs the script, counted at run time (" + shown + ")";
  if (text.find("CUDA_VISIBLE_DEVICES") != std::string_view::npos &&
      (counts_lines || text.find("tr ") != std::string_view::npos ||
       text.find("awk") != std::string_view::npos))
    return "the GPUs CUDA_VISIBLE_DEVICES lists when the script runs (" + shown + ")";
  if (text.find("scontrol show hostname") != std::string_view::npos && counts_lines)
    return "the nodes of the allocation, counted at run time (" + shown + ")";
  return "the output of a command (" + shown + ")";
}

std::optional<std::int64_t> ShellParser::int_value_of(const std::string& name, Env& env) const {
  const Var* var = env.find(name);
  return var && !var->is_array && !var->value.unknown() ? parse_int(var->value.text) : std::nullopt;
}

}  // namespace parlint::shell
