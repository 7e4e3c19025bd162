#include "parsers/yaml/omegaconf.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "lint/model/whitespace.h"

namespace parlint {
namespace {

constexpr int kMaxInterpolationDepth = 32;

// Index just past the `}` that closes the `${` at `open`, or npos.
std::size_t matching_close(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '{') {
      ++depth;
      ++i;
    } else if (s[i] == '}') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

// Splits resolver arguments on top-level commas.
std::vector<std::string_view> split_args(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '{' || s[i] == '[') ++depth;
    if (s[i] == '}' || s[i] == ']') --depth;
    if (s[i] == ',' && depth == 0) {
      out.push_back(trim_whitespace(s.substr(begin, i - begin)));
      begin = i + 1;
    }
  }
  out.push_back(trim_whitespace(s.substr(begin)));
  return out;
}

bool is_shell_style_name(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  bool upper = false;
  for (char c : s) {
    if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '_'))
      return false;
    upper |= std::isupper(static_cast<unsigned char>(c)) != 0;
  }
  return upper;
}

std::string parent_of(std::string_view path) {
  auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string() : std::string(path.substr(0, dot));
}

}  // namespace

Value scalar_value(std::string_view raw, bool quoted) {
  std::string_view s = trim_whitespace(raw);
  if (!quoted) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL" || s == "None")
      return Value::null();
    if (s == "true" || s == "True" || s == "TRUE") return Value::boolean(true);
    if (s == "false" || s == "False" || s == "FALSE") return Value::boolean(false);
  }
  std::string_view digits = s;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size()) return Value::integer(v);
  return Value::string(std::string(s));
}

InterpolationResult OmegaConfResolver::resolve(std::string_view raw, std::string_view at) {
  stack_.clear();
  return resolve_depth(raw, at, 0);
}

InterpolationResult OmegaConfResolver::resolve_depth(std::string_view raw, std::string_view at, int depth) {
  std::string_view s = trim_whitespace(raw);
  if (depth > kMaxInterpolationDepth) return {Value::unknown("interpolation nested too deeply"), {}};
  std::size_t open = s.find("${");
  // A quoted resolver argument is the string inside the quotes (${oc.env:CP_COMM_TYPE,'a2a'} is a2a).
  if (depth > 0 && s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front() &&
      s.find(s.front(), 1) == s.size() - 1)
    return {Value::string(std::string(s.substr(1, s.size() - 2))), {}};
  if (open == std::string_view::npos) return {scalar_value(s, false), {}};
  std::size_t close = matching_close(s, open);
  if (close == std::string_view::npos) return {Value::unknown("unterminated interpolation"), {}};
  if (open != 0 || close != s.size()) {
    // Text around an interpolation makes a string; its exact content does not matter to any rule.
    return {Value::unknown("string built from an interpolation"), {}};
  }
  return resolve_expression(s.substr(2, s.size() - 3), at, depth + 1);
}

InterpolationResult OmegaConfResolver::resolve_expression(std::string_view expr, std::string_view at,
                                                          int depth) {
  expr = trim_whitespace(expr);
  auto colon = expr.find(':');
  bool is_resolver =
      colon != std::string_view::npos && expr.substr(0, colon).find("${") == std::string_view::npos;
  if (!is_resolver) return resolve_path(expr, at, depth);

  std::string_view name = trim_whitespace(expr.substr(0, colon));
  std::string_view args_text = expr.substr(colon + 1);
  // ${oc.env:TP,8}, ${env:TP,8} (OmegaConf before 2.1) and ${TP:8} (a variable's name as the resolver): the
  // environment's value, else the default. Without a default the value is the environment's alone.
  if (name == "oc.env" || name == "env" || is_shell_style_name(name)) {
    auto args = split_args(args_text);
    std::string variable(trim_whitespace(name == "oc.env" || name == "env" ? args[0] : name));
    std::optional<std::string_view> fallback;
    if (name == "oc.env" || name == "env") {
      if (args.size() > 1) fallback = args[1];
    } else {
      fallback = args_text;
    }
    // The launch's environment sets it: its value, as OmegaConf reads an environment string.
    if (environment_)
      for (const ExportedVariable& e : *environment_) {
        if (e.name != variable) continue;
        if (!e.unknown_reason.empty())
          return {Value::unknown(variable + " is exported as " + e.unknown_reason),
                  {e.location},
                  {},
                  {e.location}};
        return {scalar_value(e.value, false), {e.location}, {}, {e.location}};
      }
    if (!fallback) return {Value::unknown("read from environment variable " + variable + " at run time"), {}};
    InterpolationResult d = resolve_depth(*fallback, at, depth + 1);
    if (d.value.is_unknown() || d.value.kind() == Value::Kind::kNull) {
      d.value = Value::unknown("read from environment variable " + variable + " at run time");
      return d;
    }
    d.weak_note = "with the default " + variable + "=" + d.value.to_string() + " of ${" + std::string(name) +
                  ":" + std::string(trim_whitespace(args_text)) + "}, unless the environment sets " +
                  variable;
    return d;
  }
  // ${oc.decode:...}: the string parsed as a YAML value, as scalar_value already reads it.
  if (name == "oc.decode") return resolve_depth(args_text, at, depth + 1);
  // Resolvers training programs register for themselves (floor_div, ceil_div: integer division).
  static constexpr std::string_view kArithmetic[] = {"multiply",     "add",          "subtract",
                                                     "divide_floor", "divide_ceil",  "floor_div",
                                                     "ceil_div",     "floor_divide", "sum"};
  if (std::find(std::begin(kArithmetic), std::end(kArithmetic), name) == std::end(kArithmetic))
    return {Value::unknown("resolver ${" + std::string(name) + ":...} is evaluated at run time"), {}};

  InterpolationResult out{Value::null(), {}};
  std::vector<std::int64_t> nums;
  for (std::string_view arg : split_args(args_text)) {
    InterpolationResult r = resolve_depth(arg, at, depth + 1);
    out.via.insert(out.via.end(), r.via.begin(), r.via.end());
    out.environment.insert(out.environment.end(), r.environment.begin(), r.environment.end());
    auto v = r.value.as_int();
    if (!v) {
      out.value = r.value.is_unknown() ? r.value : Value::unknown("resolver argument is not an integer");
      return out;
    }
    nums.push_back(*v);
  }
  if (nums.empty()) return {Value::unknown("resolver without arguments"), out.via};
  std::int64_t acc = nums[0];
  for (std::size_t i = 1; i < nums.size(); ++i) {
    std::int64_t b = nums[i];
    if (name == "multiply") {
      if (__builtin_mul_overflow(acc, b, &acc)) return {Value::unknown("arithmetic overflow"), out.via};
    } else if (name == "add" || name == "sum") {
      if (__builtin_add_overflow(acc, b, &acc)) return {Value::unknown("arithmetic overflow"), out.via};
    } else if (name == "subtract") {
      if (__builtin_sub_overflow(acc, b, &acc)) return {Value::unknown("arithmetic overflow"), out.via};
    } else {
      if (b == 0) return {Value::unknown("division by zero"), out.via};
      bool ceil = name == "divide_ceil" || name == "ceil_div";
      std::int64_t q = acc / b;
      if (ceil && q * b != acc && ((acc < 0) == (b < 0))) ++q;
      acc = q;
    }
  }
  out.value = Value::integer(acc);
  return out;
}

InterpolationResult OmegaConfResolver::resolve_path(std::string_view ref, std::string_view at, int depth) {
  ref = trim_whitespace(ref);
  std::string absolute;
  if (ref.starts_with('.')) {
    // ${.x} is a sibling of the value's own key; each further dot climbs one level.
    std::string base = parent_of(at);
    std::size_t dots = 0;
    while (dots < ref.size() && ref[dots] == '.') ++dots;
    for (std::size_t i = 1; i < dots; ++i) base = parent_of(base);
    std::string_view rest = ref.substr(dots);
    absolute = base.empty() ? std::string(rest) : base + "." + std::string(rest);
  } else {
    absolute = std::string(ref);
  }
  if (std::find(stack_.begin(), stack_.end(), absolute) != stack_.end())
    return {Value::unknown("cyclic interpolation through ${" + absolute + "}"), {}};

  std::optional<Target> target = lookup_(absolute);
  if (!target) {
    if (is_shell_style_name(ref))
      return {Value::unknown("${" + std::string(ref) + "} is filled in outside this file"), {}};
    return {Value::unknown("${" + std::string(ref) + "} refers to a key not in this file"), {}};
  }
  InterpolationResult out;
  stack_.push_back(absolute);
  if (has_interpolation(target->raw)) {
    out = resolve_depth(target->raw, target->path, depth + 1);
  } else {
    out.value = scalar_value(target->raw, target->quoted);
  }
  stack_.pop_back();
  out.via.insert(out.via.begin(), target->location);
  return out;
}

}  // namespace parlint
