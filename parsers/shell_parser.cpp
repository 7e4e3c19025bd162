#include "parsers/shell_parser.h"
#include "parsers/source_files.h"

#include <sys/stat.h>
#include <tree_sitter/api.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "parsers/deepspeed_config.h"
#include "parsers/deepspeed_resources.h"
#include "parsers/sbatch_submissions.h"
#include "parsers/shell_grammar_workarounds.h"
#include "parsers/shell_option_merge.h"
#include "parsers/shell_script_form.h"
#include "parsers/shell_syntax_check.h"
#include "parsers/shell_text.h"
#include "parsers/shell_variables.h"
#include "parsers/slurm_options.h"
#include "parsers/sourced_path.h"
#include "parsers/training_args.h"
#include "parsers/tree_sitter_children.h"
#include "parsers/tree_sitter_fields.h"
#include "parsers/tree_sitter_languages.h"

namespace parlint {
namespace {

template <FieldName Name>
TSNode by_field(TSNode node) {
  return child_by_field<bash_language, Name>(node);
}

constexpr int kMaxNesting = 8;      // strings re-parsed as shell, sourced files
constexpr int kMaxTreeDepth = 400;  // syntax-tree levels walked (deeper input is reported, not walked)
constexpr std::size_t kMaxSourcedFileSize = 16u << 20;
constexpr std::size_t kMaxSyntaxErrors = 10;

struct TsTreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};

// A text to parse: a whole file, or a string or heredoc whose bytes map back into files.
struct Source {
  std::string text;
  ByteOrigins origin;  // empty: identity into `file`
  int file = 0;
  // A re-parsed string's run-time parts: each placeholder byte's offset and reason, when the string had
  // one reason per placeholder.
  std::vector<std::pair<std::uint32_t, std::string>> unknown_reasons = {};
  std::string reason_at(std::uint32_t b) const {
    auto it = std::lower_bound(unknown_reasons.begin(), unknown_reasons.end(), b,
                               [](const auto& r, std::uint32_t v) { return r.first < v; });
    if (it == unknown_reasons.end() || it->first != b) return "part of it is known only at run time";
    return it->second;
  }
  ByteOrigin at(std::uint32_t b) const {
    if (origin.empty()) return {file, b};
    if (b < origin.size()) return origin.at(b);
    return origin.back();
  }
};

using shell::Env;
using shell::Var;

struct Context {
  std::vector<Allocation> groups{Allocation{}};  // het-job groups; group 0 by default
  bool has_directives = false;
  bool under_srun = false;  // ranks started by srun (or by mpirun, see under_mpi)
  bool under_mpi = false;
  Allocation step;
  int nesting = 0;
  bool in_loop = false;
  bool all_export = false;
  std::vector<std::string> source_stack;
};

struct Redirects {
  std::optional<ShellText> heredoc;
  bool herestring = false;
};

// Node types are static strings owned by the grammar.
std::string_view node_type(TSNode n) {
  return ts_node_type(n);
}

std::string_view basename(std::string_view s) {
  auto slash = s.rfind('/');
  return slash == std::string_view::npos ? s : s.substr(slash + 1);
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  if (s.starts_with("+")) s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_python(std::string_view name) {
  return name == "python" || name == "python3" || (name.starts_with("python3.") && name.size() <= 10);
}

bool same_text(const Var& a, const Var& b) {
  if (a.value.unknown() || b.value.unknown() || a.is_array != b.is_array) return false;
  if (a.value.text != b.value.text) return false;
  if (a.elements.size() != b.elements.size()) return false;
  for (std::size_t i = 0; i < a.elements.size(); ++i)
    if (a.elements[i].text != b.elements[i].text || a.elements[i].unknown()) return false;
  return true;
}

// Commands that run the command after their options, and runners (containers, environments,
// profilers) whose command starts at the first launcher or interpreter among their arguments.
const std::set<std::string, std::less<>> kSimpleWrappers = {
    "exec", "time", "nohup", "stdbuf", "env", "nice", "ionice", "taskset", "numactl", "command", "builtin"};
const std::set<std::string, std::less<>> kScanWrappers = {
    "uv",          "poetry", "pixi",   "conda",  "micromamba", "pipenv", "apptainer",
    "singularity", "docker", "podman", "enroot", "nsys",       "ncu",    "srun-wrapper"};

class ShellParser {
 public:
  ShellParser(std::string_view path, const SourceText& main, const FileReader& reader) : reader_(reader) {
    files_.push_back({std::string(path), &main, nullptr});
    out_.path = std::string(path);
  }

  ParsedFile run() {
    Source src{std::string(files_[0].text->text()), {}, 0};
    Env env;
    Context ctx;
    std::error_code ec;
    auto self = std::filesystem::weakly_canonical(files_[0].path, ec);
    if (!ec) ctx.source_stack.push_back(self.string());  // a sourced file that sources us back stops here
    parse_and_walk(src, env, ctx, /*read_directives=*/true, /*report_errors=*/true);
    return std::move(out_);
  }

 private:
  struct File {
    std::string path;
    const SourceText* text;
    std::unique_ptr<SourceText> owned;
  };

  // ---- positions --------------------------------------------------------------------------------

  Location location(ByteOrigin a, ByteOrigin b_last) const {
    if (a.file < 0 || b_last.file != a.file) {
      if (a.file < 0) return {};
      b_last = a;
    }
    const File& f = files_[static_cast<std::size_t>(a.file)];
    SourcePosition start = f.text->position(a.offset);
    SourcePosition end = f.text->position(std::max(a.offset, b_last.offset) + 1);
    if (end.line != start.line) {
      // Keep single-line ranges where a span crosses a continuation: end at the start line's end.
      end = f.text->position(start.line, f.text->line(start.line).size());
      if (!(end > start)) end = {start.line, start.column + 1};
    }
    return {f.path, {start, end}};
  }

  Location node_location(TSNode n, const Source& src) const {
    std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e <= b) return location(src.at(b), src.at(b));
    return location(src.at(b), src.at(e - 1));
  }

  // The range of the bytes of `t` that were written in a file (first to last such byte on one line).
  Location text_location(const ShellText& t) const {
    if (t.written_known()) {
      if (Location l = location(t.written_first, t.written_last); l.range.valid()) return l;
    }
    ByteOrigin first{}, last{};
    t.origin.for_each_run([&](ByteOrigin o, std::uint32_t length) {
      if (o.file < 0) return;
      ByteOrigin run_last{o.file, o.offset + length - 1};
      if (first.file < 0) {
        first = o;
        last = run_last;
      } else if (o.file == first.file && run_last.offset > last.offset) {
        last = run_last;
      }
    });
    return location(first, last);
  }

  Word to_word(const ShellText& t) const {
    Word w;
    w.text = t.text;
    w.location = text_location(t);
    // A word split out of a string keeps the placeholder bytes of its run-time parts: it is unknown too.
    w.unknown = t.unknown() || t.text.find(kUnknownByte) != std::string::npos;
    if (w.unknown)
      w.unknown_reason =
          t.unknown_reasons.empty() ? "part of it is known only at run time" : t.unknown_reasons.front();
    w.weak = t.weak;
    w.weak_note = t.weak_note;
    w.written_at = t.via;
    return w;
  }

  // ---- parsing --------------------------------------------------------------------------------

  void parse_and_walk(const Source& src, Env& env, Context& ctx, bool read_directives, bool report_errors) {
    // The grammar reads a copy with the forms it lacks rewritten (same length); values come from src.
    std::string prepared;
    bool rewritten = needs_bash_grammar_workarounds(src.text);
    if (rewritten) prepared = prepare_for_bash_grammar(src.text);
    std::unique_ptr<TSTree, TsTreeDeleter> tree(parse_bash(rewritten ? prepared : src.text));
    if (!tree) return;
    if (ts_node_has_error(ts_tree_root_node(tree.get()))) {
      // The grammar could not read part of the text. It is the file's syntax error (PL900) only when
      // bash would refuse it too; otherwise it is parlint's limitation: the lines the grammar trips on
      // are left out for it, the rest is read, and the lines left out are reported as unread (PL903).
      bool in_string = !src.origin.empty();
      bool has_unknown = src.text.find(kUnknownByte) != std::string::npos;
      bool is_template = out_.path.ends_with(".j2") || src.text.find("{{") != std::string::npos ||
                         src.text.find("{%") != std::string::npos;
      std::optional<BashSyntaxError> bad;
      if (!is_template && !has_unknown) bad = find_bash_syntax_error(src.text);
      if (bad) {
        if (report_errors) report_syntax_error(*bad, src, in_string);
      } else {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> left_out =
            leave_out_unread_lines(rewritten ? prepared : (prepared = src.text), tree);
        if (report_errors) {
          std::string why =
              is_template ? "a template (Jinja {{ }} / {% %} placeholders are filled in before bash runs it)"
              : has_unknown ? "a string run as shell, built from values known only at run time"
                            : "valid bash that parlint's grammar (tree-sitter-bash) does not read";
          std::vector<Location> regions;
          for (auto [b, e] : left_out) regions.push_back(location(src.at(b), src.at(e > b ? e - 1 : b)));
          collect_error_regions(ts_tree_root_node(tree.get()), src, 0, regions);
          for (Location& loc : regions) {
            if (loc.path != out_.path || !loc.range.valid() || out_.unread.size() >= kMaxSyntaxErrors)
              continue;
            out_.unread.push_back({loc.range, why});
          }
        }
      }
    }
    TSNode root = ts_tree_root_node(tree.get());
    if (read_directives) read_sbatch_header(root, src, ctx);
    if (read_directives && src.file == 0 && src.origin.empty()) note_script_form(root, src);
    walk_children(root, src, env, ctx, 0);
  }

  // PL108 / PL109: an #SBATCH line after the first command, a backslash that does not continue.
  void note_script_form(TSNode root, const Source& src) {
    for (const auto& m : find_script_form_mistakes(root, src.text)) {
      ScriptFormNote note;
      note.kind = m.kind;
      note.range = location(src.at(m.begin), src.at(m.end > m.begin ? m.end - 1 : m.begin)).range;
      note.text = m.text;
      note.other_line = location(src.at(m.other), src.at(m.other)).range.start.line;
      out_.script_form.push_back(std::move(note));
    }
  }

  static TSTree* parse_bash(const std::string& text) {
    return ts_parser_parse_string(thread_bash_parser(), nullptr, text.data(),
                                  static_cast<std::uint32_t>(text.size()));
  }

  void report_syntax_error(const BashSyntaxError& bad, const Source& src, bool in_string) {
    if (src.text.empty() || out_.errors.size() >= kMaxSyntaxErrors) return;
    std::uint32_t at = static_cast<std::uint32_t>(std::min(bad.offset, src.text.size() - 1));
    Location loc = location(src.at(at), src.at(at));
    if (!loc.range.valid()) return;
    std::string msg = "shell syntax error: " + bad.message + (in_string ? " (in a string run as shell)" : "");
    if (loc.path != out_.path) msg += " in " + loc.path;
    out_.errors.push_back({loc.range, std::move(msg), ""});
  }

  // How much of a tree the grammar could not read: bytes under ERROR nodes plus MISSING nodes.
  static std::size_t error_weight(TSNode n, int depth) {
    if (depth > kMaxTreeDepth) return 1;
    if (ts_node_is_error(n)) return 1 + ts_node_end_byte(n) - ts_node_start_byte(n);
    if (ts_node_is_missing(n)) return 1;
    std::size_t w = 0;
    for (TSNode child : Children(n))
      if (ts_node_has_error(child)) w += error_weight(child, depth + 1);
    return w;
  }

  static std::optional<std::uint32_t> first_error_byte(TSNode n, int depth) {
    if (depth > kMaxTreeDepth) return std::nullopt;
    if (ts_node_is_error(n) || ts_node_is_missing(n)) return ts_node_start_byte(n);
    for (TSNode child : Children(n))
      if (ts_node_has_error(child)) return first_error_byte(child, depth + 1);
    return std::nullopt;
  }

  // Valid bash the grammar does not read: the line where its first error starts is blanked for the
  // grammar (a trailing continuation kept) while that reads more of the text, a bounded number of times.
  // Returns the byte ranges blanked.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> leave_out_unread_lines(
      std::string& grammar_text, std::unique_ptr<TSTree, TsTreeDeleter>& tree) const {
    constexpr int kMaxLinesLeftOut = 8;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> left_out;
    std::size_t weight = error_weight(ts_tree_root_node(tree.get()), 0);
    for (int k = 0; k < kMaxLinesLeftOut && weight > 0; ++k) {
      auto b = first_error_byte(ts_tree_root_node(tree.get()), 0);
      if (!b || *b >= grammar_text.size()) break;
      std::size_t line_start = *b == 0 ? std::string::npos : grammar_text.rfind('\n', *b - 1);
      line_start = line_start == std::string::npos ? 0 : line_start + 1;
      std::size_t line_end = grammar_text.find('\n', line_start);
      if (line_end == std::string::npos) line_end = grammar_text.size();
      std::string candidate = grammar_text;
      std::size_t keep_from = line_end;
      while (keep_from > line_start && (candidate[keep_from - 1] == '\r' || candidate[keep_from - 1] == '\\'))
        --keep_from;
      bool blanked_any = false;
      for (std::size_t i = line_start; i < keep_from; ++i)
        if (candidate[i] != ' ' && candidate[i] != '\t') candidate[i] = ' ', blanked_any = true;
      if (!blanked_any) break;
      std::unique_ptr<TSTree, TsTreeDeleter> retry(parse_bash(candidate));
      if (!retry) break;
      std::size_t w = error_weight(ts_tree_root_node(retry.get()), 0);
      if (w >= weight) break;
      weight = w;
      grammar_text = std::move(candidate);
      tree = std::move(retry);
      left_out.push_back({static_cast<std::uint32_t>(line_start), static_cast<std::uint32_t>(keep_from)});
    }
    return left_out;
  }

  // The ERROR and MISSING nodes, each widened to whole lines.
  void collect_error_regions(TSNode n, const Source& src, int depth, std::vector<Location>& out) const {
    if (out.size() >= kMaxSyntaxErrors || depth > kMaxTreeDepth) return;
    if (ts_node_is_error(n) || ts_node_is_missing(n)) {
      std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
      Location first = location(src.at(b), src.at(b));
      Location last = location(src.at(e > b ? e - 1 : b), src.at(e > b ? e - 1 : b));
      if (!first.range.valid()) return;
      if (last.path == first.path && last.range.start.line > first.range.start.line)
        first.range.end = {last.range.start.line, last.range.end.column};
      out.push_back(std::move(first));
      return;
    }
    for (TSNode child : Children(n))
      if (ts_node_has_error(child)) collect_error_regions(child, src, depth + 1, out);
  }

  // #SBATCH lines before the first command (sbatch ignores later ones).
  void read_sbatch_header(TSNode root, const Source& src, Context& ctx) {
    std::optional<std::pair<std::string, Location>> placeholder_directive;
    for (TSNode c : NamedChildren(root)) {
      if (node_type(c) != "comment") break;
      std::uint32_t b = ts_node_start_byte(c), e = ts_node_end_byte(c);
      std::string_view text(src.text.data() + b, e - b);
      if (!text.starts_with("#SBATCH")) continue;
      std::vector<Word> words = directive_words(src, b + 7, e);
      if (words.empty()) continue;
      ctx.has_directives = true;
      if (words[0].text == "hetjob" || words[0].text == "packjob") {
        ctx.groups.emplace_back();
        continue;
      }
      parse_slurm_options(words, ctx.groups.back(), Origin::kSbatchDirective, "#SBATCH ", false);
      for (const Word& w : words)
        if (!placeholder_directive && (w.text.starts_with("<") || w.text.ends_with(">")))
          placeholder_directive = std::make_pair(w.text, w.location);
    }
    // A template's placeholder among the directives (#SBATCH <SLURM OPTIONS> --nodes=128) may request
    // GPUs: their count is unknown, not absent.
    if (placeholder_directive && !ctx.groups.front().gpus_per_node) {
      Fact f;
      f.key = Key::kGpusPerNode;
      f.value = Value::unknown("a placeholder in the #SBATCH lines (" + placeholder_directive->first +
                               ") may request them");
      f.location = placeholder_directive->second;
      f.origin = Origin::kSbatchDirective;
      f.spelling = "#SBATCH " + placeholder_directive->first;
      ctx.groups.front().gpus_per_node = std::move(f);
    }
    // Submitted elsewhere with its own node count, the header's is not what runs.
    Allocation& a = ctx.groups.front();
    if (src.file == 0 && a.nodes && a.nodes->value.is_known() && ctx.groups.size() == 1) {
      if (auto by = find_submission_with_nodes(files_[0].path, reader_)) {
        a.nodes->value =
            Value::unknown("sbatch " + by->option + " in " + by->path + ":" + std::to_string(by->line) +
                           " overrides this #SBATCH --nodes when it submits the script");
      }
    }
  }

  // Splits a directive into words (quotes removed), stopping at a trailing comment.
  std::vector<Word> directive_words(const Source& src, std::uint32_t b, std::uint32_t e) const {
    std::vector<Word> words;
    std::uint32_t i = b;
    while (i < e) {
      while (i < e && (src.text[i] == ' ' || src.text[i] == '\t')) ++i;
      if (i >= e || src.text[i] == '#') break;
      ShellText t;
      std::uint32_t start = i;
      char quote = 0;
      while (i < e && (quote || (src.text[i] != ' ' && src.text[i] != '\t'))) {
        char c = src.text[i];
        if (!quote && (c == '"' || c == '\''))
          quote = c;
        else if (quote && c == quote)
          quote = 0;
        else
          t.push(c, src.at(i));
        ++i;
      }
      Word w;
      w.text = t.text;
      w.location = location(src.at(start), src.at(i - 1));
      words.push_back(std::move(w));
    }
    return words;
  }

  // ---- statements ------------------------------------------------------------------------------

  void walk_children(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
    for (TSNode child : NamedChildren(n)) walk(child, src, env, ctx, depth + 1);
  }

  void walk(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
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
      Env local = env;
      Context inner = ctx;
      if (!ts_node_is_null(body)) walk(body, src, local, inner, depth + 1);
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

  std::string text_of(TSNode n, const Source& src) const {
    return src.text.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }

  void set_unknown(Env& env, const std::string& name, std::string reason, Location where) {
    Var v;
    v.value.add_unknown(std::move(reason));
    v.assigned_at = std::move(where);
    if (const Var* old = env.find(name)) v.exported = old->exported;
    env.set(name, std::move(v));
  }

  // if / elif / else and case: each branch on its own copy of the variables; afterwards a variable
  // keeps its value only when every branch (and falling through) agrees.
  void branches(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
    std::vector<Env> results;
    bool has_default = false;
    std::string_view type = node_type(n);
    Env then_env = env;
    bool any_then = false;
    NamedChildren children(n);
    for (TSNode c : children) {
      const char* field = children.field_name();
      std::string_view ct = node_type(c);
      if (type == "if_statement") {
        if (field && std::string_view(field) == "condition") {
          walk(c, src, env, ctx, depth + 1);  // conditions run before any branch
          continue;
        }
        if (ct == "elif_clause" || ct == "else_clause") {
          Env branch = env;
          walk_clause(c, src, branch, ctx, depth);
          results.push_back(std::move(branch));
          if (ct == "else_clause") has_default = true;
          continue;
        }
        any_then = true;
        walk(c, src, then_env, ctx, depth + 1);
      } else if (ct == "case_item") {
        Env branch = env;
        TSNode value = by_field<"value">(c);
        if (!ts_node_is_null(value) && text_of(value, src) == "*") has_default = true;
        walk_clause(c, src, branch, ctx, depth);
        results.push_back(std::move(branch));
      }
    }
    if (type == "if_statement") results.insert(results.begin(), any_then ? then_env : env);
    if (!has_default) results.push_back(env);
    merge_branches(env, results, node_location(n, src));
  }

  void walk_clause(TSNode clause, const Source& src, Env& env, Context& ctx, int depth) {
    NamedChildren children(clause);
    for (TSNode child : children) {
      const char* field = children.field_name();
      if (field && (std::string_view(field) == "value" || std::string_view(field) == "condition")) continue;
      walk(child, src, env, ctx, depth + 1);
    }
  }

  void merge_branches(Env& env, const std::vector<Env>& results, const Location& where) {
    std::set<std::string> names;  // only the names some branch set or erased can differ
    for (const auto& r : results) r.changed_since(env, names);
    for (const auto& name : names) {
      const std::shared_ptr<Var>* first = nullptr;
      bool agree = true, untouched = true;
      const std::shared_ptr<Var>* before = env.slot(name);
      for (const auto& r : results) {
        const std::shared_ptr<Var>* here = r.slot(name);
        if (!here) {
          agree = false;
          break;
        }
        if (!before || here->get() != before->get()) untouched = false;
        if (!first)
          first = here;
        else if (first->get() != here->get() && !same_text(**first, **here))
          agree = false;
      }
      if (agree && untouched) continue;  // no branch changed it
      std::string branches = "the branches at line " + std::to_string(where.range.start.line);
      if (agree && first) {
        env.share(name, *first);
      } else if (auto merged = merge_branch_values(results, name, branches)) {
        env.set(name, std::move(*merged));
      } else {
        set_unknown(env, name, "assigned differently in " + branches, where);
      }
    }
  }

  // The options every branch agrees on, when each branch left the variable an options list.
  static std::optional<Var> merge_branch_values(const std::vector<Env>& results, const std::string& name,
                                                const std::string& branches) {
    std::vector<const Var*> values;
    for (const auto& r : results) {
      const Var* v = r.find(name);
      if (!v) return std::nullopt;
      values.push_back(v);
    }
    return merge_option_lists(values, branches);
  }

  void redirected(TSNode n, const Source& src, Env& env, Context& ctx, int depth) {
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
        written_to->text.find(kUnknownByte) == std::string::npos && !ctx.in_loop)
      written_files_[written_to->text] = *r.heredoc;
    if (ts_node_is_null(body)) return;
    if (node_type(body) == "command") return command(body, src, env, ctx, r);
    walk(body, src, env, ctx, depth + 1);
  }

  // The file a `> FILE` redirect writes (not `>>`, `2>`, `<`).
  std::optional<ShellText> redirect_target(TSNode redirect, const Source& src, Env& env, Context& ctx) {
    std::string op;
    for (TSNode c : Children(redirect))
      if (!ts_node_is_named(c)) op += node_type(c);
    if (op != ">" && op != ">|") return std::nullopt;
    TSNode dest = by_field<"destination">(redirect);
    if (ts_node_is_null(dest)) return std::nullopt;
    return expand_joined(dest, src, env, ctx);
  }

  ShellText heredoc_text(TSNode redirect, const Source& src, Env& env, Context& ctx) {
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
        literal(pos, ts_node_start_byte(c));
        t.append(expand_joined(c, src, env, ctx));
        pos = ts_node_end_byte(c);
      }
    }
    literal(pos, end);
    return t;
  }

  // ---- assignments -----------------------------------------------------------------------------

  void declare(TSNode n, const Source& src, Env& env, Context& ctx) {
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

  void assign(TSNode n, const Source& src, Env& env, Context& ctx, bool exported, bool declared) {
    TSNode name_node = by_field<"name">(n);
    TSNode value = by_field<"value">(n);
    if (ts_node_is_null(name_node)) return;
    std::string name = text_of(name_node, src);
    if (node_type(name_node) == "subscript") return;  // A[3]=x: element updates are not tracked
    bool append = false;
    for (std::uint32_t i = 0; i < ts_node_child_count(n); ++i)
      if (node_type(ts_node_child(n, i)) == "+=") append = true;
    Var v;
    const Var* existing = env.find(name);
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
        for (auto& field : expand_fields(el, src, env, ctx)) added.push_back(std::move(field));
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
      if (append && existing) v.value = existing->value;
      if (!ts_node_is_null(value)) {
        ShellText t = expand_joined(value, src, env, ctx);
        t.forget_written();
        v.value.append(t);
        v.value.via = t.via;
        if (!t.unknown() && !t.text.empty()) {
          out_.literals.push_back({name, t.text, node_location(value, src)});
          if (node_type(value) == "arithmetic_expansion") size_expression(name, value, src, env, ctx);
        } else if (node_type(value) == "arithmetic_expansion") {
          size_expression(name, value, src, env, ctx);
        }
      }
    }
    if (ctx.in_loop) {
      v.value = ShellText{};
      v.value.add_unknown("assigned in a loop");
      v.elements.clear();
    }
    (void)declared;
    env.set(name, std::move(v));
  }

  // ---- expansion -------------------------------------------------------------------------------

  // Builds the fields one word expands to: unquoted expansions split on blanks, "${A[@]}" gives one
  // field per element, quoted text never splits.
  struct Fields {
    std::vector<ShellText> done;
    ShellText current;
    bool started = false;
    void add(const ShellText& t, bool split) {
      if (!split) {
        current.append(t);
        started = true;
        return;
      }
      // Each run-time part's reason goes with the field that holds its placeholder byte, when the text
      // has one reason per placeholder (it was built by add_unknown); otherwise all go to the first field.
      bool per_byte = t.unknown_reasons.size() ==
                      static_cast<std::size_t>(std::count(t.text.begin(), t.text.end(), kUnknownByte));
      current.merge_meta(t, !per_byte);
      std::size_t next_reason = 0;
      for (std::size_t i = 0; i < t.text.size(); ++i) {
        char c = t.text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
          if (started) finish();
          continue;
        }
        if (c == kUnknownByte && per_byte)
          current.unknown_reasons.push_back(t.unknown_reasons[next_reason++]);
        current.push(c, t.origin.at(i));
        started = true;
      }
    }
    void finish() {
      if (started) done.push_back(std::move(current));
      current = ShellText{};
      started = false;
    }
  };

  std::vector<ShellText> expand_fields(TSNode n, const Source& src, Env& env, Context& ctx) {
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
  bool produced_by_array(TSNode n, const Source& src) const {
    std::string_view t = node_type(n);
    if (t == "expansion") return is_all_elements(n, src);
    if (t == "concatenation" || t == "string") {
      for (TSNode child : NamedChildren(n))
        if (produced_by_array(child, src)) return true;
    }
    return false;
  }

  // Expands a node as one string (assignment values, "-c" strings, here-documents).
  ShellText expand_joined(TSNode n, const Source& src, Env& env, Context& ctx) {
    Fields f;
    expand_into(n, src, env, ctx, f, true);
    f.finish();
    ShellText out;
    for (std::size_t i = 0; i < f.done.size(); ++i) {
      if (i) out.push(' ', {});
      out.append(f.done[i]);
    }
    return out;
  }

  void literal_word(const Source& src, std::uint32_t b, std::uint32_t e, ShellText& t) {
    for (std::uint32_t i = b; i < e; ++i) {
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

  void double_quoted(const Source& src, std::uint32_t b, std::uint32_t e, ShellText& t) {
    for (std::uint32_t i = b; i < e; ++i) {
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

  // Bounds recursion through nested expansions (${A:-${B:-...}}) so hostile input cannot exhaust the stack.
  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(++d) {}
    ~DepthGuard() { --depth; }
  };
  static constexpr int kMaxExpansionDepth = 100;

  void expand_into(TSNode n, const Source& src, Env& env, Context& ctx, Fields& f, bool joined) {
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
        double_quoted(src, pos, ts_node_start_byte(c), t);
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
          t.append(expand_value(c, src, env, ctx));
        }
        pos = ts_node_end_byte(c);
      }
      double_quoted(src, pos, stop, t);
      f.add(t, false);
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
      t.add_unknown("the output of a command (" + abbreviate(text_of(n, src)) + ")");
      f.add(t, false);
      return;
    }
    ShellText t;
    literal_word(src, b, e, t);
    f.add(t, false);
  }

  static std::string abbreviate(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
  }

  bool is_all_elements(TSNode expansion, const Source& src) const {
    return all_elements_index(expansion, src) != 0;
  }
  // '@' for ${A[@]}, '*' for ${A[*]}, else 0.
  char all_elements_index(TSNode expansion, const Source& src) const {
    for (TSNode c : NamedChildren(expansion)) {
      if (node_type(c) != "subscript") continue;
      TSNode index = by_field<"index">(c);
      if (ts_node_is_null(index)) return 0;
      std::string idx = text_of(index, src);
      return idx == "@" || idx == "*" ? idx[0] : 0;
    }
    return 0;
  }

  const Var* lookup_var(TSNode expansion, const Source& src, Env& env) const {
    for (TSNode c : NamedChildren(expansion)) {
      if (node_type(c) == "subscript") {
        TSNode name = by_field<"name">(c);
        if (ts_node_is_null(name)) return nullptr;
        return env.find(text_of(name, src));
      }
    }
    return nullptr;
  }

  static void add_via(ShellText& t, const Var& var) {
    if (var.assigned_at.in_file()) t.via.push_back({var.assigned_at, var.assigned_text + " set here"});
  }

  // The value of $X / ${X...} as one string.
  ShellText expand_value(TSNode n, const Source& src, Env& env, Context& ctx) {
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
      } else if (!ts_node_is_named(c) && ct != "${" && ct != "}" && ct != "$" && !name.empty() &&
                 op.empty()) {
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
          d.weak_note =
              "with the fallback ${" + name + op + d.text + "} (no #SBATCH resources in this script)";
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
    out.add_unknown("$" + name + " is not set in this script");
    return out;
  }

  // SLURM's own variables resolve to the allocation this launch runs in.
  std::optional<ShellText> slurm_variable(const std::string& name, Context& ctx, bool& weak) {
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
  std::optional<std::int64_t> arith(TSNode n, const Source& src, Env& env, Context& ctx, ShellText& meta,
                                    std::string& reason, int depth = 0) {
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
          auto s = text_of(n, src).starts_with("SLURM_") ? slurm_variable(text_of(n, src), ctx, weak)
                                                         : std::nullopt;
          if (!s) {
            reason = text_of(n, src) + " is not set in this script";
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

  void collect_product_vars(TSNode n, const Source& src, std::vector<std::string>& vars, bool in_product,
                            int depth = 0) {
    if (depth > 64) return;
    std::string_view type = node_type(n);
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

  void size_expression(const std::string& target, TSNode arith_node, const Source& src, Env& env, Context&) {
    auto target_key = key_for_variable_name(target);
    if (!target_key ||
        (*target_key != Key::kNodes && *target_key != Key::kGpusPerNode && *target_key != Key::kWorldSize))
      return;
    std::vector<std::string> vars;
    if (ts_node_named_child_count(arith_node) > 0)
      collect_product_vars(ts_node_named_child(arith_node, 0), src, vars, false);
    SizeExpression e;
    e.location = node_location(arith_node, src);
    e.target = target;
    e.target_key = *target_key;
    e.text = text_of(arith_node, src);
    for (const auto& v : vars)
      if (auto k = key_for_variable_name(v);
          k && *k != Key::kNodes && *k != Key::kGpusPerNode && *k != Key::kWorldSize) {
        e.factors.push_back(*k);
        const Var* var = env.find(v);
        e.factor_values.push_back(var && !var->is_array && !var->value.unknown() ? parse_int(var->value.text)
                                                                                 : std::nullopt);
      }
    if (!e.factors.empty()) out_.size_expressions.push_back(std::move(e));
  }

  // ---- commands --------------------------------------------------------------------------------

  void command(TSNode n, const Source& src, Env& env, Context& ctx, Redirects redirects) {
    std::vector<ShellText> words;
    Env overlay;
    bool skip_arguments = launches_nothing(n, src);
    std::uint32_t previous_end = 0;
    for (TSNode c : NamedChildren(n)) {
      std::string_view ct = node_type(c);
      if (ct == "variable_assignment") {
        Env tmp = env;
        assign(c, src, tmp, ctx, true, false);
        TSNode nm = by_field<"name">(c);
        if (!ts_node_is_null(nm)) {
          if (const auto* assigned = tmp.slot(text_of(nm, src))) overlay.share(text_of(nm, src), *assigned);
        }
        continue;
      }
      if (ct == "herestring_redirect") {
        redirects.herestring = true;
        continue;
      }
      if (ct == "file_redirect" || ct == "heredoc_redirect" || ct == "comment") continue;
      if (ct == "command_name")
        c = ts_node_named_child(c, 0);
      else if (skip_arguments)
        continue;
      // Arguments with no blank between them are one word to bash, even where the grammar splits
      // them in two ($A/x_$B.log).
      bool glued = !words.empty() && ts_node_start_byte(c) == previous_end;
      previous_end = ts_node_end_byte(c);
      auto fields = expand_fields(c, src, env, ctx);
      for (std::size_t k = 0; k < fields.size(); ++k) {
        if (k == 0 && glued) {
          words.back().append(fields[0]);
          words.back().forget_written();
        } else {
          words.push_back(std::move(fields[k]));
        }
      }
    }
    if (words.empty() || skip_arguments) return;
    Location where = node_location(n, src);
    handle_words(words, 0, where, redirects, env, overlay, ctx);
  }

  // Parses `text` as shell and walks it: bash -c strings, eval, here-documents fed to a shell.
  void reparse(const ShellText& text, Env& env, Context& ctx, bool read_directives) {
    if (ctx.nesting >= kMaxNesting) return;
    Source inner;
    inner.text = text.text;
    inner.origin = text.origin;
    inner.file = -1;
    if (!text.unknown_reasons.empty() &&
        text.unknown_reasons.size() ==
            static_cast<std::size_t>(std::count(text.text.begin(), text.text.end(), kUnknownByte))) {
      std::size_t k = 0;
      for (std::uint32_t b = 0; b < text.text.size(); ++b)
        if (text.text[b] == kUnknownByte) inner.unknown_reasons.emplace_back(b, text.unknown_reasons[k++]);
    }
    Context c = ctx;
    ++c.nesting;
    Env local = env;
    parse_and_walk(inner, local, c, read_directives, true);
  }

  // Most commands of a launch script (echo, mkdir, scontrol, seq, ...) launch nothing and change no
  // variable. When a command's name is written out literally, is none of the names handle_words reads,
  // and expanding its arguments cannot assign (${X:=v}) or run anything ($(...), `...`, <(...)), its
  // arguments are not expanded at all: expansion, with an origin for every byte, was most of the cost
  // of reading a script's set-up code.
  bool launches_nothing(TSNode command, const Source& src) const {
    TSNode name_node = by_field<"name">(command);
    if (ts_node_is_null(name_node) || ts_node_named_child_count(name_node) != 1) return false;
    TSNode word = ts_node_named_child(name_node, 0);
    if (node_type(word) != "word") return false;
    std::string_view text(src.text.data() + ts_node_start_byte(word),
                          ts_node_end_byte(word) - ts_node_start_byte(word));
    if (text.find_first_of("$\\\"'`=") != std::string_view::npos || handled_command(basename(text)))
      return false;
    std::string_view all(src.text.data() + ts_node_start_byte(command),
                         ts_node_end_byte(command) - ts_node_start_byte(command));
    if (all.find('`') != std::string_view::npos || all.find("$(") != std::string_view::npos ||
        all.find("<(") != std::string_view::npos || all.find(">(") != std::string_view::npos)
      return false;
    for (auto open = all.find("${"); open != std::string_view::npos; open = all.find("${", open + 2)) {
      auto close = all.find('}', open);
      if (all.substr(open, close == std::string_view::npos ? close : close - open).find('=') !=
          std::string_view::npos)
        return false;
    }
    return true;
  }

  // Every command name handle_words acts on (keep the two in step).
  static bool handled_command(std::string_view name) {
    static const std::set<std::string, std::less<>> kNames = {
        "srun",   "salloc", "sbatch", "bash", "sh",       "zsh",       "dash",   "eval",
        "source", ".",      "read",   "set",  "torchrun", "deepspeed", "mpirun", "mpiexec"};
    return kNames.contains(name) || kSimpleWrappers.contains(name) || kScanWrappers.contains(name) ||
           is_python(name);
  }

  void handle_words(std::vector<ShellText>& w, std::size_t i, const Location& where,
                    const Redirects& redirects, Env& env, Env& overlay, Context& ctx) {
    // Leading NAME=value words (after `env`) set the command's environment.
    while (i < w.size()) {
      auto eq = w[i].text.find('=');
      if (eq == std::string::npos || eq == 0 ||
          !std::all_of(w[i].text.begin(), w[i].text.begin() + static_cast<long>(eq),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        break;
      Var v;
      v.value.text = w[i].text.substr(eq + 1);
      v.value.origin = w[i].origin.slice(eq + 1);
      v.value.unknown_reasons = w[i].unknown_reasons;
      v.exported = true;
      v.assigned_at = text_location(w[i]);
      v.assigned_text = w[i].text;
      overlay.set(w[i].text.substr(0, eq), v);
      ++i;
    }
    if (i >= w.size()) return;
    std::string name(basename(w[i].text));
    if (name == "srun") {
      Allocation step = ctx.under_srun ? ctx.step : ctx.groups[0];
      std::vector<Word> opts;
      for (std::size_t k = i + 1; k < w.size(); ++k) opts.push_back(to_word(w[k]));
      for (const auto& o : opts)
        if (o.text.starts_with("--het-group=")) {
          auto g = parse_int(std::string_view(o.text).substr(12));
          if (g && *g >= 0 && static_cast<std::size_t>(*g) < ctx.groups.size())
            step = ctx.groups[static_cast<std::size_t>(*g)];
        }
      std::size_t used = parse_slurm_options(opts, step, Origin::kLauncherFlag, "srun ", true);
      Context c = ctx;
      c.under_srun = true;
      c.under_mpi = false;
      c.step = step;
      return handle_words(w, i + 1 + used, where, redirects, env, overlay, c);
    }
    if (name == "salloc") {
      std::vector<Word> opts;
      for (std::size_t k = i + 1; k < w.size(); ++k) opts.push_back(to_word(w[k]));
      std::size_t used = parse_slurm_options(opts, ctx.groups[0], Origin::kLauncherFlag, "salloc ", true);
      ctx.has_directives = true;
      return handle_words(w, i + 1 + used, where, redirects, env, overlay, ctx);
    }
    if (name == "sbatch") {
      if (!redirects.heredoc) return;  // submitting another file: read with cross-file resolution
      Context c;
      c.nesting = ctx.nesting;
      std::vector<Word> opts;
      for (std::size_t k = i + 1; k < w.size(); ++k) opts.push_back(to_word(w[k]));
      parse_slurm_options(opts, c.groups[0], Origin::kLauncherFlag, "sbatch ", true);
      c.has_directives = true;
      Env local = env;
      return reparse(*redirects.heredoc, local, c, true);
    }
    if (name == "bash" || name == "sh" || name == "zsh" || name == "dash") {
      for (std::size_t k = i + 1; k < w.size(); ++k) {
        if (w[k].text == "-c" && k + 1 < w.size()) return reparse(w[k + 1], env, ctx, false);
        if (!w[k].text.starts_with("-")) return;  // a script file
      }
      if (redirects.heredoc) reparse(*redirects.heredoc, env, ctx, false);
      return;
    }
    if (name == "eval") {
      ShellText joined;
      for (std::size_t k = i + 1; k < w.size(); ++k) {
        if (k > i + 1) joined.push(' ', {});
        joined.append(w[k]);
      }
      return reparse(joined, env, ctx, false);
    }
    if (name == "source" || name == ".") return source_file(w, i, env, ctx);
    if (name == "read") return read_command(w, i, redirects, env);
    if (name == "set") {
      for (std::size_t k = i + 1; k < w.size(); ++k)
        if (w[k].text.starts_with("-") && w[k].text.find('a') != std::string::npos) ctx.all_export = true;
      return;
    }
    if (kSimpleWrappers.contains(name)) {
      std::size_t k = i + 1;
      while (k < w.size() && w[k].text.starts_with("-")) ++k;
      if (name == "taskset" && k < w.size()) ++k;  // its CPU list
      return handle_words(w, k, where, redirects, env, overlay, ctx);
    }
    if (kScanWrappers.contains(name)) {
      // Container and environment runners: the command starts at the first launcher or interpreter.
      for (std::size_t k = i + 1; k < w.size(); ++k) {
        std::string_view b = basename(w[k].text);
        if (b == "torchrun" || is_python(b) || b == "bash" || b == "sh" || b == "deepspeed" || b == "srun")
          return handle_words(w, k, where, redirects, env, overlay, ctx);
      }
      return;
    }
    if (name == "torchrun") return torchrun(w, i + 1, where, env, overlay, ctx);
    if (name == "deepspeed") return deepspeed(w, i + 1, where, env, overlay, ctx);
    if (name == "mpirun" || name == "mpiexec") return mpirun(w, i + 1, where, redirects, env, overlay, ctx);
    if (is_python(name)) return python(w, i + 1, where, env, overlay, ctx);
  }

  void read_command(std::vector<ShellText>& w, std::size_t i, const Redirects& redirects, Env& env) {
    std::vector<std::size_t> names;
    for (std::size_t k = i + 1; k < w.size(); ++k) {
      const std::string& t = w[k].text;
      if (t == "-d" || t == "-p" || t == "-a" || t == "-n" || t == "-N" || t == "-t" || t == "-u") {
        ++k;
        continue;
      }
      if (!t.starts_with("-")) names.push_back(k);
    }
    for (std::size_t idx = 0; idx < names.size(); ++idx) {
      std::string var = w[names[idx]].text;
      Var v;
      v.assigned_at = text_location(w[names[idx]]);
      v.assigned_text = "read " + var;
      if (redirects.heredoc && names.size() == 1) {
        v.value = *redirects.heredoc;  // read -r -d '' CMD <<EOF ... EOF
      } else {
        v.value.add_unknown(redirects.herestring ? "read from a string at run time (IFS=... read ... <<<)"
                                                 : "read from input at run time");
      }
      env.set(var, std::move(v));
    }
  }

  void source_file(std::vector<ShellText>& w, std::size_t i, Env& env, Context& ctx) {
    if (i + 1 >= w.size() || ctx.nesting >= kMaxNesting) return;
    namespace fs = std::filesystem;
    std::string arg = w[i + 1].text;
    if (w[i + 1].unknown() || arg.find(kUnknownByte) != std::string::npos) {
      // source "${SCRIPT_DIR}/${VARIANT}/params.sh": the one file on disk that fits, if there is one.
      auto found = resolve_sourced_path(arg, kUnknownByte, fs::path(files_[0].path).parent_path().string());
      if (!found) return;
      arg = *found;
    }
    std::vector<fs::path> candidates;
    fs::path p(arg);
    if (p.is_absolute()) {
      candidates.push_back(p);
    } else {
      candidates.push_back(fs::path(files_[0].path).parent_path() / p);
      candidates.push_back(p);
    }
    for (const auto& c : candidates) {
      std::error_code ec;
      fs::path canon = fs::weakly_canonical(c, ec);
      if (ec) continue;
      std::string key = canon.string();
      if (std::find(ctx.source_stack.begin(), ctx.source_stack.end(), key) != ctx.source_stack.end()) return;
      auto read = reader_.read(key, kMaxSourcedFileSize);
      if (!read) continue;
      std::string text = std::move(*read);
      auto owned = std::make_unique<SourceText>(text);
      const SourceText* ptr = owned.get();
      files_.push_back({c.lexically_normal().string(), ptr, std::move(owned)});
      Source s{std::string(ptr->text()), {}, static_cast<int>(files_.size() - 1)};
      Context inner = ctx;
      ++inner.nesting;
      inner.source_stack.push_back(key);
      std::unique_ptr<TSTree, TsTreeDeleter> tree(ts_parser_parse_string(
          thread_bash_parser(), nullptr, s.text.data(), static_cast<std::uint32_t>(s.text.size())));
      if (tree) walk_children(ts_tree_root_node(tree.get()), s, env, inner, 0);  // assignments flow back
      ctx.all_export = inner.all_export;
      return;
    }
  }

  // ---- launchers -------------------------------------------------------------------------------

  struct Launch {
    LaunchKind kind = LaunchKind::kPython;
    std::vector<Fact> launcher_facts;
    std::size_t entry = 0;  // index of the script (or -m module) word
    bool module = false;
  };

  Fact launcher_fact(Key key, Value v, const ShellText& flag, const ShellText* value, std::string spelling) {
    Fact f;
    f.key = key;
    f.value = std::move(v);
    Location a = text_location(flag);
    Location b = value ? text_location(*value) : a;
    f.location = (a.path == b.path && a.range.start.line == b.range.start.line && b.range.end >= a.range.end)
                     ? Location{a.path, {a.range.start, b.range.end}}
                     : a;
    f.origin = Origin::kLauncherFlag;
    f.spelling = std::move(spelling);
    if (value) {
      f.written_at = value->via;
      f.weak = value->weak;
      f.weak_note = value->weak_note;
    }
    return f;
  }

  static Value count_of(const ShellText& t, bool allow_range) {
    if (t.unknown()) return Value::unknown(t.unknown_reasons.front());
    std::string_view s = t.text;
    if (allow_range) {
      if (auto colon = s.find(':'); colon != std::string_view::npos) {
        auto lo = parse_int(s.substr(0, colon)), hi = parse_int(s.substr(colon + 1));
        if (lo && hi && *lo == *hi) return Value::integer(*lo);
        return Value::unknown("an elastic node range (" + std::string(s) + ")");
      }
    }
    if (auto v = parse_int(s)) return Value::integer(*v);
    if (s == "gpu" || s == "auto")
      return Value::unknown("one process per visible GPU (" + std::string(s) + ")");
    return Value::unknown("not a number (" + std::string(s) + ")");
  }

  void torchrun(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env, Env& overlay,
                Context& ctx) {
    static const std::set<std::string> kNoValue = {"--standalone", "--no_python", "--no-python", "--run_path",
                                                   "--run-path",   "-m",          "--module"};
    Launch l;
    l.kind = LaunchKind::kTorchrun;
    std::size_t k = i;
    for (; k < w.size(); ++k) {
      const std::string& t = w[k].text;
      if (!t.starts_with("-")) break;
      if (t == "-m" || t == "--module") {
        l.module = true;
        continue;
      }
      std::string opt = t, value_text;
      const ShellText* value = nullptr;
      ShellText inline_value;
      if (auto eq = t.find('='); eq != std::string::npos) {
        opt = t.substr(0, eq);
        inline_value.text = t.substr(eq + 1);
        inline_value.origin = w[k].origin.slice(eq + 1);
        inline_value.unknown_reasons = w[k].unknown_reasons;
        inline_value.via = w[k].via;
        inline_value.weak = w[k].weak;
        inline_value.weak_note = w[k].weak_note;
        value = &inline_value;
      } else if (!kNoValue.count(t) && k + 1 < w.size()) {
        value = &w[++k];
      }
      std::string spelled = opt;
      std::replace(opt.begin(), opt.end(), '_', '-');
      const ShellText& flag_word = w[k - (value == &inline_value || !value ? 0 : 1)];
      if (opt == "--nproc-per-node" && value)
        l.launcher_facts.push_back(launcher_fact(Key::kNprocPerNode, count_of(*value, false), flag_word,
                                                 value, "torchrun " + spelled));
      else if (opt == "--nnodes" && value)
        l.launcher_facts.push_back(
            launcher_fact(Key::kNnodes, count_of(*value, true), flag_word, value, "torchrun --nnodes"));
      else if (opt == "--standalone")
        l.launcher_facts.push_back(
            launcher_fact(Key::kNnodes, Value::integer(1), w[k], nullptr, "torchrun --standalone"));
    }
    if (k >= w.size()) return;
    l.entry = k;
    emit(l, w, where, env, overlay, ctx);
  }

  // deepspeed [--num_nodes N] [--num_gpus G] [--hostfile F | --include H:S@...] script.py args
  // (deepspeed/launcher/runner.py): the hostfile's hosts (or --include's), the first N of them, G GPUs
  // each; every GPU of a host whose slots are not named; this host alone when there is no hostfile.
  void deepspeed(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env, Env& overlay,
                 Context& ctx) {
    static const std::set<std::string> kNoValue = {"--module",
                                                   "--no_python",
                                                   "--no_local_rank",
                                                   "--no_ssh",
                                                   "--no_ssh_check",
                                                   "--force_multi",
                                                   "--save_pid",
                                                   "--elastic_training",
                                                   "--bind_cores_to_rank",
                                                   "-q",
                                                   "--quiet"};
    Launch l;
    l.kind = LaunchKind::kTorchrun;
    std::size_t k = i;
    struct Option {
      const ShellText* flag = nullptr;
      const ShellText* value = nullptr;
      ShellText inline_value;
    };
    Option gpus, nodes, hostfile, include, exclude;
    ShellText* launcher = i > 0 ? &w[i - 1] : nullptr;
    for (; k < w.size() && w[k].text.starts_with("-"); ++k) {
      auto eq = w[k].text.find('=');
      std::string opt = w[k].text.substr(0, eq);
      if (kNoValue.contains(opt)) {
        if (opt == "--module") l.module = true;
        continue;
      }
      Option* o = opt == "--num_gpus" || opt == "--num_accelerators" ? &gpus
                  : opt == "--num_nodes"                             ? &nodes
                  : opt == "--hostfile" || opt == "-H"               ? &hostfile
                  : opt == "--include" || opt == "-i"                ? &include
                  : opt == "--exclude" || opt == "-e"                ? &exclude
                                                                     : nullptr;
      Option ignored;
      if (!o) o = &ignored;
      o->flag = &w[k];
      o->value = nullptr;
      if (eq != std::string::npos) {
        o->inline_value = w[k];
        o->inline_value.text.erase(0, eq + 1);
        o->inline_value.origin = w[k].origin.slice(eq + 1);
        o->value = &o->inline_value;
      } else if (k + 1 < w.size()) {
        o->value = &w[++k];
      }
    }
    if (k >= w.size()) return;
    auto fact = [&](Key key, Value v, const Option& o, std::string spelling) {
      const ShellText* value = o.value == &o.inline_value ? nullptr : o.value;
      Fact f = launcher_fact(key, std::move(v), *o.flag, value, std::move(spelling));
      if (!value && o.value) {
        f.written_at = o.value->via;
        f.weak = o.value->weak;
      }
      return f;
    };
    std::optional<std::vector<DeepspeedHost>> hosts;  // the pool: the hostfile's hosts, filtered
    std::string pool_note;
    if (include.value) {
      if (!include.value->unknown()) hosts = parse_deepspeed_include(include.value->text);
      pool_note = "deepspeed --include";
    } else if (hostfile.value && !hostfile.value->unknown()) {
      hosts = read_deepspeed_hostfile(hostfile.value->text, pool_note);
    }
    std::optional<int> slots = hosts ? uniform_slots(*hosts) : std::nullopt;
    std::string pool = include.value ? "--include" : "the hostfile";
    if (gpus.value) {
      l.launcher_facts.push_back(fact(Key::kNprocPerNode, count_of(*gpus.value, false), gpus,
                                      "deepspeed " + gpus.flag->text.substr(0, gpus.flag->text.find('='))));
    } else if (slots && !exclude.value) {
      const Option& from = include.value ? include : hostfile;
      l.launcher_facts.push_back(
          fact(Key::kNprocPerNode, Value::integer(*slots), from, "GPUs per host in " + pool));
    } else if (launcher) {
      std::string why = exclude.value ? "deepspeed takes the GPUs --exclude leaves"
                        : hosts && std::any_of(hosts->begin(), hosts->end(),
                                               [](const DeepspeedHost& h) { return !h.slots; })
                            ? "deepspeed takes every GPU of a host --include names without slots"
                        : hosts         ? "the hosts deepspeed takes do not all give the same number of GPUs"
                        : hostfile.flag ? "deepspeed takes the GPUs its hostfile names (" + pool_note + ")"
                        : include.flag  ? "deepspeed takes the GPUs --include names"
                                        : "deepspeed starts one rank per GPU of the host (no --num_gpus)";
      l.launcher_facts.push_back(launcher_fact(Key::kNprocPerNode, Value::unknown(why), *launcher, nullptr,
                                               "deepspeed without --num_gpus"));
    }
    if (hosts && !exclude.value) {
      const Option& from = include.value ? include : hostfile;
      Value count = Value::integer(static_cast<std::int64_t>(hosts->size()));
      std::string spelling = "hosts in " + pool;
      if (nodes.value && !include.value) {
        // The first N hosts of the hostfile.
        Value n = count_of(*nodes.value, false);
        if (auto v = n.as_int(); v && *v > 0 && *v < static_cast<std::int64_t>(hosts->size())) {
          l.launcher_facts.push_back(fact(Key::kNnodes, n, nodes, "deepspeed --num_nodes"));
        } else if (!n.is_known()) {
          l.launcher_facts.push_back(fact(Key::kNnodes, n, nodes, "deepspeed --num_nodes"));
        } else {
          l.launcher_facts.push_back(fact(Key::kNnodes, count, from, spelling));
        }
      } else {
        l.launcher_facts.push_back(fact(Key::kNnodes, count, from, spelling));
      }
    } else if (nodes.value) {
      l.launcher_facts.push_back(
          fact(Key::kNnodes, count_of(*nodes.value, false), nodes, "deepspeed --num_nodes"));
    } else if (launcher) {
      bool any_pool = hostfile.flag || include.flag || exclude.flag;
      l.launcher_facts.push_back(
          any_pool
              ? launcher_fact(Key::kNnodes,
                              Value::unknown(exclude.flag ? "deepspeed runs on the hosts --exclude leaves"
                                                          : "deepspeed runs on the hosts of its hostfile"),
                              *launcher, nullptr, "deepspeed --hostfile")
              : launcher_fact(Key::kNnodes, Value::integer(1), *launcher, nullptr,
                              "deepspeed's default --num_nodes=1 (no hostfile: this host only)"));
    }
    l.entry = k;
    emit(l, w, where, env, overlay, ctx);
  }

  // The hosts of a deepspeed hostfile: where the launch runs is not known, so it is looked up next to
  // the script, then as written. `note` says which file was read, or why none was.
  std::optional<std::vector<DeepspeedHost>> read_deepspeed_hostfile(const std::string& path,
                                                                    std::string& note) {
    std::string found;
    auto text = read_beside_script(path, found);
    if (!text) {
      note = "not found: " + path;
      return std::nullopt;
    }
    auto hosts = parse_deepspeed_hostfile(*text);
    note = hosts ? "read " + found : "deepspeed refuses " + found + ": not host slots=N lines";
    return hosts;
  }

  // A file a launch names (a hostfile, a DeepSpeed config): where the launch runs is not known, so it is
  // looked up next to the script, then as written. `found` is the path read.
  std::optional<std::string> read_beside_script(const std::string& path, std::string& found) {
    namespace fs = std::filesystem;
    fs::path p(path);
    std::vector<fs::path> candidates;
    if (!p.is_absolute()) candidates.push_back(fs::path(files_[0].path).parent_path() / p);
    candidates.push_back(p);
    for (const auto& c : candidates) {
      found = c.lexically_normal().string();
      if (auto text = reader_.read(found, 1u << 20)) return text;
    }
    return std::nullopt;
  }

  // mpirun -np N [-N per-node] cmd: MPI starts the ranks itself, like srun.
  void mpirun(std::vector<ShellText>& w, std::size_t i, const Location& where, const Redirects& redirects,
              Env& env, Env& overlay, Context& ctx) {
    static const std::set<std::string> kWithValue = {
        "-x",        "-H",       "--host",    "-host", "--hostfile", "-hostfile", "--map-by", "-map-by",
        "--bind-to", "-bind-to", "--rank-by", "-wdir", "--wdir",     "-envlist",  "--prefix", "-genv"};
    Context c = ctx;
    c.under_srun = true;  // every rank is started by the MPI launcher
    c.under_mpi = true;
    c.step = ctx.groups[0];
    std::size_t k = i;
    for (; k < w.size() && w[k].text.starts_with("-"); ++k) {
      const std::string& opt = w[k].text;
      if ((opt == "-np" || opt == "-n" || opt == "--np" || opt == "-c") && k + 1 < w.size()) {
        c.step.ntasks =
            launcher_fact(Key::kWorldSize, count_of(w[k + 1], false), w[k], &w[k + 1], "mpirun " + opt);
        ++k;
      } else if ((opt == "-N" || opt == "--npernode" || opt == "-npernode") && k + 1 < w.size()) {
        c.step.ntasks_per_node =
            launcher_fact(Key::kNtasksPerNode, count_of(w[k + 1], false), w[k], &w[k + 1], "mpirun " + opt);
        ++k;
      } else if (opt == "-mca" || opt == "--mca" || opt == "-gmca") {
        k += 2;
      } else if ((opt == "-x" || opt == "-genv") && k + 1 < w.size()) {
        // Open MPI's -x NAME=VALUE (MPICH's -genv NAME VALUE) sets the variable for every rank; -x NAME
        // passes this shell's value on.
        const ShellText& arg = w[k + 1];
        auto eq = arg.text.find('=');
        std::string name = opt == "-genv" || eq == std::string::npos ? arg.text : arg.text.substr(0, eq);
        if (opt == "-genv" && k + 2 < w.size()) {
          set_for_ranks(overlay, name, w[k + 2], 0);
          ++k;
        } else if (eq != std::string::npos) {
          set_for_ranks(overlay, name, arg, eq + 1);
        } else if (const Var* current = env.find(name)) {
          Var v = *current;
          v.exported = true;
          overlay.set(name, v);
        }
        ++k;
      } else if (kWithValue.count(opt)) {
        ++k;
      }
    }
    handle_words(w, k, where, redirects, env, overlay, c);
  }

  // A variable a launcher sets for the processes it starts, from `NAME=VALUE` text at `from`.
  void set_for_ranks(Env& overlay, const std::string& name, const ShellText& text, std::size_t from) {
    Var v;
    v.value.text = text.text.substr(from);
    v.value.origin = text.origin.slice(static_cast<std::uint32_t>(from));
    v.value.unknown_reasons = text.unknown_reasons;
    v.exported = true;
    v.assigned_at = text_location(text);
    v.assigned_text = text.text;
    overlay.set(name, v);
  }

  void python(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env, Env& overlay,
              Context& ctx) {
    std::size_t k = i;
    for (; k < w.size(); ++k) {
      const std::string& t = w[k].text;
      if (t == "-m") {
        if (k + 1 >= w.size()) return;
        const std::string& mod = w[k + 1].text;
        if (mod == "torch.distributed.run" || mod == "torch.distributed.launch")
          return torchrun(w, k + 2, where, env, overlay, ctx);
        Launch l;
        l.entry = k + 1;
        l.module = true;
        l.kind = ctx.under_srun ? LaunchKind::kSrunNative : LaunchKind::kPython;
        return emit(l, w, where, env, overlay, ctx);
      }
      if (t == "-c") return;  // inline code is not a training entry point we can read
      if (t == "-W" || t == "-X") {
        ++k;
        continue;
      }
      if (!t.starts_with("-")) break;
    }
    if (k >= w.size()) return;
    Launch l;
    l.entry = k;
    l.kind = ctx.under_srun ? LaunchKind::kSrunNative : LaunchKind::kPython;
    emit(l, w, where, env, overlay, ctx);
  }

  std::optional<Fact> env_fact(Key key, const std::string& name, Env& env, Env& overlay, Context& ctx) {
    const Var* v = overlay.find(name);
    if (!v) {
      const Var* e = env.find(name);
      if (e && (e->exported || ctx.all_export)) v = e;
    }
    if (!v) return std::nullopt;
    Fact f;
    f.key = key;
    f.value =
        v->value.unknown() ? Value::unknown(v->value.unknown_reasons.front()) : hydra_value(v->value.text);
    f.location = v->assigned_at;
    f.origin = Origin::kEnv;
    f.spelling = name;
    f.written_at = v->value.via;
    return f;
  }

  // A training run, not a CPU helper (tools/preprocess_data.py, MLPerf's log and mount checkers): a
  // distributed launcher, training settings among the arguments, or a training entry point's name.
  // --deepspeed_config FILE: a file the script wrote from a here-document, else the file next to the
  // script (or as written).
  void deepspeed_config(const std::vector<Word>& args, RawJob& job) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string_view t = args[i].text;
      std::string name(t.substr(0, t.find('=')));
      if (name != "--deepspeed_config" && name != "--deepspeed-config") continue;
      const Word* value = t.find('=') != std::string_view::npos ? &args[i]
                          : i + 1 < args.size()                 ? &args[i + 1]
                                                                : nullptr;
      if (!value || value->unknown) {
        job.notes.push_back(
            "the DeepSpeed config is known only at run time; its ZeRO stage and batch sizes are unknown");
        return;
      }
      std::string path = value == &args[i] ? std::string(t.substr(t.find('=') + 1)) : value->text;
      std::optional<std::string> text;
      std::string shown = path;
      if (auto it = written_files_.find(path); it != written_files_.end()) {
        // Values filled in at run time become '?', which deepspeed_config_facts reads as unknown.
        std::string body = it->second.text;
        std::replace(body.begin(), body.end(), kUnknownByte, '?');
        text = std::move(body);
        shown += " (written by this script)";
      } else {
        std::string found;
        text = read_beside_script(path, found);
      }
      if (!text) {
        job.notes.push_back("the DeepSpeed config " + path +
                            " was not found; its ZeRO stage and batch sizes are unknown");
        return;
      }
      for (auto& f : deepspeed_config_facts(*text, value->location, shown)) job.facts.push_back(std::move(f));
      job.notes.push_back("read the DeepSpeed config " + shown);
      return;
    }
  }

  // verl's Hydra overrides as parlint reads them: actor_rollout_ref.actor.megatron.X=V (and its
  // override_transformer_config.X) is the Megatron-Core field X; trainer.nnodes / n_gpus_per_node are the
  // GPUs Ray gets; the rest are verl's own keys and are left out.
  static std::vector<Word> verl_overrides(const std::vector<Word>& args) {
    std::vector<Word> out;
    for (const Word& a : args) {
      std::string_view t = a.text;
      while (t.starts_with("+")) t.remove_prefix(1);
      Word w = a;
      bool keep = false;
      for (std::string_view prefix : {"actor_rollout_ref.actor.megatron.override_transformer_config.",
                                      "actor_rollout_ref.actor.megatron."})
        if (t.starts_with(prefix) && t.find('.', prefix.size()) > t.find('=')) {
          w.text = std::string(t.substr(prefix.size()));
          keep = true;
          break;
        }
      if (t.starts_with("trainer.nnodes="))
        w.text = "trainer.num_nodes=" + std::string(t.substr(15)), keep = true;
      if (t.starts_with("trainer.n_gpus_per_node="))
        w.text = "trainer.devices=" + std::string(t.substr(24)), keep = true;
      if (t.starts_with("actor_rollout_ref.model.path="))
        w.text = "--hf-model=" + std::string(t.substr(29)), keep = true;
      if (keep) out.push_back(std::move(w));
    }
    return out;
  }

  static bool training_launch(const Launch& l, std::string_view entry, const TrainingArgs& ta) {
    if (l.kind == LaunchKind::kTorchrun) return true;
    // Data preparation and conversion scripts read a recipe or model flags but run on CPUs.
    std::string_view script = basename(entry);
    if (entry.find("data_preprocess/") != std::string_view::npos ||
        entry.find("/preprocess") != std::string_view::npos)
      return false;
    for (std::string_view word : {"prepare", "preprocess", "pack_data", "packed_data", "convert", "download",
                                  "tokenize", "tokenizer", "export_", "merge_mp", "checkpoint_util"})
      if (script.find(word) != std::string_view::npos) return false;
    if (ta.megatron_flags || ta.hydra_overrides || ta.recipe || ta.lightning_trainer || ta.deepspeed ||
        !ta.facts.empty())
      return true;
    for (std::string_view word :
         {"train", "pretrain", "finetune", "fine_tune", "sft", "run_recipe", "megatron_"})
      if (script.find(word) != std::string_view::npos) return true;
    return false;
  }

  void emit(const Launch& l, std::vector<ShellText>& w, const Location& where, Env& env, Env& overlay,
            Context& ctx) {
    std::string entry = w[l.entry].text;
    std::vector<Word> args;
    for (std::size_t k = l.entry + 1; k < w.size(); ++k) args.push_back(to_word(w[k]));
    // verl (python -m verl.trainer.main_ppo ...): a Ray driver that starts the workers itself; its Hydra
    // overrides are verl's own keys, with the Megatron-Core fields under actor_rollout_ref.actor.megatron.
    bool ray_driver = l.module && entry.starts_with("verl.");
    if (ray_driver) args = verl_overrides(args);
    TrainingArgs ta = parse_training_args(args);

    RawJob job;
    job.range = where.range;
    // Text known only at run time is a placeholder byte inside the parser; never in a job's name.
    // ${dir}/../../pretrain_gpt.py: the folder is known only at run time, the script is not.
    std::string_view script = basename(entry);
    job.description = script.empty() || script.find(kUnknownByte) != std::string_view::npos
                          ? std::string("launch of a script known only at run time")
                          : std::string(script) + " launch";
    if (!l.module && !w[l.entry].unknown() && entry.ends_with(".py")) job.entry_script = entry;
    if (ta.recipe && !ta.recipe->unknown) job.recipe = ta.recipe->text;
    if (ta.model && !ta.model->unknown) job.model = ta.model->text;
    for (auto& c : ta.config_files)
      if (!c.unknown) job.config_files.push_back(std::move(c));
    job.under_srun = ctx.under_srun;
    job.under_slurm = ctx.has_directives || (ctx.under_srun && !ctx.under_mpi);
    job.gpu_entry_point = training_launch(l, entry, ta);
    job.launch = l.kind;
    if (ray_driver) {
      job.launch = LaunchKind::kNone;  // one driver process; Ray places the workers on the GPUs
      job.framework = Framework::kVerl;
      job.description = entry + " (verl, Ray)";
      job.notes.push_back(
          "verl starts its workers through Ray: the GPUs are trainer.nnodes x trainer.n_gpus_per_node");
    }
    if (l.kind == LaunchKind::kPython && ta.lightning_trainer) job.launch = LaunchKind::kLightning;
    std::string_view base = basename(entry);
    if (base.starts_with("pretrain_") || ta.megatron_flags)
      job.framework = ta.deepspeed ? Framework::kMegatronDeepSpeed : Framework::kMegatronLM;
    if (base.find("run_recipe") != std::string_view::npos || ta.recipe)
      job.framework = Framework::kMegatronBridge;
    if (base.starts_with("megatron_") && base.find("nemo") == std::string_view::npos)
      job.framework = Framework::kNemo1;

    Allocation a = ctx.under_srun ? ctx.step : ctx.groups[0];
    derive_gpus_per_node(a);
    // srun --ntasks counts the ranks only when srun starts them; under torchrun it counts the agents.
    if (l.kind == LaunchKind::kTorchrun) a.ntasks.reset();
    if (!ray_driver) {
      for (const auto* f : {&a.nodes, &a.gpus_per_node, &a.ntasks_per_node, &a.ntasks})
        if (*f) job.facts.push_back(**f);
      for (const auto& f : l.launcher_facts) job.facts.push_back(f);
    }
    for (auto f : ta.facts) {
      // On a launch, trainer.num_nodes / trainer.devices are what the framework starts, not the allocation.
      if (!ray_driver && f.origin == Origin::kOverride && f.key == Key::kNodes) f.key = Key::kNnodes;
      if (!ray_driver && f.origin == Origin::kOverride && f.key == Key::kGpusPerNode)
        f.key = Key::kNprocPerNode;
      job.facts.push_back(std::move(f));
    }
    if (job.framework == Framework::kMegatronDeepSpeed) deepspeed_config(args, job);
    for (auto c : ta.conflicts) job.conflicts.push_back(std::move(c));
    job.unrecognized = std::move(ta.unrecognized);
    for (Key key : {Key::kCudaDeviceMaxConnections, Key::kNemoHome, Key::kHfHome})
      if (auto f = env_fact(key, std::string(key_name(key)), env, overlay, ctx))
        job.facts.push_back(std::move(*f));
    out_.jobs.push_back(std::move(job));
  }

  std::vector<File> files_;
  std::map<std::string, ShellText> written_files_;  // files the script writes from a here-document
  const FileReader& reader_;                        // every file the script refers to is read through it
  ParsedFile out_;
  bool deep_reported_ = false;
  int expansion_depth_ = 0;
};

}  // namespace

ParsedFile parse_shell(std::string_view path, const SourceText& source, const FileReader& reader) {
  ShellParser parser(path, source, reader);
  return parser.run();
}

}  // namespace parlint
