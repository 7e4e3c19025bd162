#include "parsers/shell/shell_parser.h"

#include "parsers/shell/shell_interpreter.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include <sys/stat.h>
#include <filesystem>
#include "lint/model/whitespace.h"
#include "parsers/shell/sbatch_submissions.h"
#include "parsers/shell/shell_grammar_workarounds.h"
#include "parsers/shell/shell_script_form.h"
#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::shell {

ParsedFile ShellParser::run() {
  Source src{std::string(files_[0].text->text()), {}, 0};
  Env env;
  Context ctx;
  std::error_code ec;
  auto self = std::filesystem::weakly_canonical(files_[0].path, ec);
  if (!ec) ctx.source_stack.push_back(self.string());  // a sourced file that sources us back stops here
  parse_and_walk(src, env, ctx, /*read_directives=*/true, /*report_errors=*/true);
  // Functions of sourced files the script never called are read at its end, as its own are.
  for (const KeptSource& kept : kept_sources_) walk_uncalled_functions(*kept.src, env, ctx);
  // What was read before stays: a launch sees only the lines above it. The rest is unread (PL903).
  if (budget_.exhausted())
    out_.unread.push_back(
        over_budget_region(*files_[0].text, budget_stop_ ? budget_stop_->line : 1 << 30, budget_));
  // Bash stops at the script's syntax error: a launch from that line on never runs.
  if (bash_stops_at_) {
    auto dropped = std::erase_if(out_.jobs, [&](const RawJob& job) {
      return job.range.valid() && job.range.start.line >= bash_stops_at_->line;
    });
    for (auto& e : out_.errors)
      if (dropped > 0 && e.range.start == *bash_stops_at_ && e.help.empty())
        e.help = "fix the syntax here: bash stops at this line, so parlint checks the " +
                 (dropped == 1 ? std::string("launch") : std::to_string(dropped) + " launches") +
                 " after it once bash can reach " + (dropped == 1 ? "it" : "them");
  }
  // A script that launches nothing but exports settings (a benchmark's config_<system>.sh) configures what
  // runs after it: what it leaves exported, for the configs that read the environment.
  if (out_.jobs.empty() && !runs_programs_ && !budget_.exhausted()) out_.exports = exported(env, Env());
  return std::move(out_);
}

// The variables `env` exports (and those `prefix` sets for one command, `TP=8 python train.py`), as a
// program started there sees them.
std::vector<ExportedVariable> ShellParser::exported(const Env& env, const Env& prefix) const {
  std::vector<ExportedVariable> out;
  auto take = [&](const std::string& name, const Var& v, bool exported) {
    if (!exported || v.is_array || out.size() >= kMaxExports) return;
    if (std::any_of(out.begin(), out.end(), [&](const ExportedVariable& e) { return e.name == name; }))
      return;
    ExportedVariable e;
    e.name = name;
    e.value = v.value.text;
    if (v.value.unknown()) e.unknown_reason = v.value.unknown_reasons.front();
    e.location = v.assigned_at;
    if (Location at = text_location(v.value); at.range.valid()) e.location = at;
    out.push_back(std::move(e));
  };
  prefix.for_each([&](const std::string& name, const Var& v) { take(name, v, true); });
  env.for_each([&](const std::string& name, const Var& v) { take(name, v, v.exported); });
  return out;
}

bool ShellParser::spend(std::uint64_t units, TSNode n, const Source& src) {
  if (budget_.spend(units)) return true;
  if (!budget_stop_) {
    Location loc = node_location(n, src);
    if (loc.path == out_.path && loc.range.valid()) budget_stop_ = loc.range.start;
  }
  return false;
}

Location ShellParser::location(ByteOrigin a, ByteOrigin b_last) const {
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

Location ShellParser::node_location(TSNode n, const Source& src) const {
  std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (e <= b) return location(src.at(b), src.at(b));
  return location(src.at(b), src.at(e - 1));
}

// The range of the bytes of `t` that were written in a file (first to last such byte on one line).
Location ShellParser::text_location(const ShellText& t) const {
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

Word ShellParser::to_word(const ShellText& t) const {
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
  w.empty_when = t.empty_when;
  // Written inside an arm a constant `case` took (a split word loses the via of the string it came from).
  if (!chosen_arms_.empty()) {
    ByteOrigin first = t.written_first;
    if (first.file < 0)
      t.origin.for_each_run([&](ByteOrigin o, std::uint32_t) {
        if (first.file < 0 && o.file >= 0) first = o;
      });
    for (const auto& arm : chosen_arms_)
      if (first.file >= 0 && first.file == arm.first.file && first.offset >= arm.first.offset &&
          first.offset <= arm.last.offset &&
          std::none_of(w.written_at.begin(), w.written_at.end(),
                       [&](const RelatedLocation& r) { return r.choice; }))
        w.written_at.push_back(arm.note);
  }
  return w;
}

// The slot on the line that holds `offset`, when bash's complaint is about one: `<words>` starting a word
// (after `=`, a blank or a quote) holding a letter and no shell operator — what templates leave for the user
// (`<YOUR_HF_TOKEN>`, `<Specify path>`, `<TP size for your model>`).
static std::optional<std::string> placeholder_slot(std::string_view text, std::size_t offset) {
  std::size_t begin = text.rfind('\n', offset);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  std::size_t end = std::min(text.find('\n', offset), text.size());
  std::string_view line = text.substr(begin, end - begin);
  for (std::size_t i = line.find('<'); i != std::string_view::npos; i = line.find('<', i + 1)) {
    if (i > 0 && line[i - 1] != '=' && line[i - 1] != ' ' && line[i - 1] != '\t' && line[i - 1] != '"')
      continue;
    std::size_t close = line.find('>', i + 1);
    if (close == std::string_view::npos || close == i + 1) continue;
    std::string_view inner = line.substr(i + 1, close - i - 1);
    bool letters = false, words = inner.front() != ' ' && inner.back() != ' ';
    for (char c : inner) {
      if (std::isalpha(static_cast<unsigned char>(c)))
        letters = true;
      else if (!std::isdigit(static_cast<unsigned char>(c)) &&
               std::string_view("<>$`;|&\\\n").find(c) != std::string_view::npos)
        words = false;
    }
    if (letters && words) return std::string(line.substr(i, close - i + 1));
  }
  return std::nullopt;
}

void ShellParser::parse_and_walk(const Source& src, Env& env, Context& ctx, bool read_directives,
                                 bool report_errors) {
  // The grammar reads a copy with the forms it lacks rewritten (same length); values come from src.
  if (!budget_.spend(kParseByteUnits * src.text.size())) return;
  std::string prepared;
  bool rewritten = needs_bash_grammar_workarounds(src.text);
  if (rewritten) prepared = prepare_for_bash_grammar(src.text);
  TsTree tree = parse_grammar_text(src, rewritten ? prepared : src.text);
  if (!tree) return;
  std::vector<UnreadAssignment> unread;
  if (ts_node_has_error(ts_tree_root_node(tree.get()))) {
    // The grammar could not read part of the text. It is the file's syntax error (PL900) only when
    // bash would refuse it too; otherwise it is parlint's limitation (PL903). Either way the lines the
    // grammar trips on are left out for it and the rest is read: bash would stop at a line it refuses,
    // but the user means the rest, and a placeholder line must not turn the launch below into defaults.
    bool in_string = !src.origin.empty();
    bool has_unknown = src.text.find(kUnknownByte) != std::string::npos;
    bool is_template = out_.path.ends_with(".j2") || src.text.find("{{") != std::string::npos ||
                       src.text.find("{%") != std::string::npos;
    std::optional<BashSyntaxError> bad;
    // Lines that hold a slot for the user to fill in (`HF_TOKEN=<YOUR_HF_TOKEN>`, `--load <path>`): bash
    // refuses them as they stand, but the file is a template meant to be edited, not a broken script.
    std::vector<std::pair<std::size_t, std::string>> slots;  // line start offset, the slot
    if (!is_template && !has_unknown) {
      bad = find_bash_syntax_error(src.text);
      std::string blanked;
      while (bad && slots.size() < kMaxSyntaxErrors) {
        std::string_view text = blanked.empty() ? std::string_view(src.text) : std::string_view(blanked);
        auto slot = placeholder_slot(text, bad->offset);
        if (!slot) break;
        if (blanked.empty()) blanked = src.text;
        std::size_t begin = blanked.rfind('\n', bad->offset);
        begin = begin == std::string::npos ? 0 : begin + 1;
        std::size_t end = std::min(blanked.find('\n', bad->offset), blanked.size());
        std::fill(blanked.begin() + static_cast<std::ptrdiff_t>(begin),
                  blanked.begin() + static_cast<std::ptrdiff_t>(end), ' ');
        slots.emplace_back(begin, *slot);
        bad = find_bash_syntax_error(blanked);
      }
    }
    if (bad && report_errors) report_syntax_error(*bad, src, in_string);
    if (!rewritten) prepared = src.text;
    // The grammar reads the file without its slot lines (blanked, same length), as if they were filled in.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> slot_lines;
    for (const auto& slot : slots) {
      std::size_t at = slot.first, end = std::min(prepared.find('\n', at), prepared.size());
      std::fill(prepared.begin() + static_cast<std::ptrdiff_t>(at),
                prepared.begin() + static_cast<std::ptrdiff_t>(end), ' ');
      slot_lines.emplace_back(static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(end));
    }
    if (!slots.empty()) {
      TsTree retry(parse_bash(prepared));
      if (retry) tree = std::move(retry);
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> left_out =
        ts_node_has_error(ts_tree_root_node(tree.get()))
            ? leave_out_unread_lines(prepared, tree)
            : std::vector<std::pair<std::uint32_t, std::uint32_t>>{};
    std::string why = is_template
                          ? "a template (Jinja {{ }} / {% %} placeholders are filled in before bash runs it)"
                      : has_unknown ? "a string run as shell, built from values known only at run time"
                                    : "valid bash that parlint's grammar (tree-sitter-bash) does not read";
    unread = unread_assignments(src, left_out,
                                bad ? "a line bash refuses (syntax error)" : "a line parlint could not read");
    if (!slot_lines.empty()) {
      auto on_slots =
          unread_assignments(src, slot_lines, "a placeholder line, refused by bash until it is filled in");
      unread.insert(unread.end(), on_slots.begin(), on_slots.end());
      std::sort(unread.begin(), unread.end(),
                [](const UnreadAssignment& a, const UnreadAssignment& b) { return a.offset < b.offset; });
    }
    if (report_errors && !bad) {
      std::vector<Location> regions;
      for (auto [b, e] : left_out) {
        // `VOCAB=<Specify path>/vocab.json` is valid bash (two redirections) the grammar does not read: a
        // slot to fill in all the same.
        if (auto slot = placeholder_slot(src.text, b)) {
          slots.emplace_back(b, *slot);
          continue;
        }
        regions.push_back(location(src.at(b), src.at(e > b ? e - 1 : b)));
      }
      error_regions(ts_tree_root_node(tree.get()), src, regions);
      for (Location& loc : regions) {
        if (loc.path != out_.path || !loc.range.valid() || out_.unread.size() >= kMaxSyntaxErrors) continue;
        out_.unread.push_back({loc.range, why});
      }
    }
    // Slots in file order, each reported once.
    std::sort(slots.begin(), slots.end());
    if (report_errors)
      for (const auto& [at, slot] : slots) {
        std::size_t end = std::min(src.text.find('\n', at), src.text.size());
        Location loc = location(src.at(at), src.at(end > at ? end - 1 : at));
        if (loc.path != out_.path || !loc.range.valid() || out_.unread.size() >= kMaxSyntaxErrors) continue;
        out_.unread.push_back(
            {loc.range,
             "a placeholder to fill in (" + slot + "): the script runs as meant only once it is replaced",
             "replace " + slot + " with the value; the settings on this line are checked then"});
      }
  }
  TSNode root = ts_tree_root_node(tree.get());
  if (read_directives) read_sbatch_header(root, src, ctx);
  if (read_directives && src.file == 0 && src.origin.empty()) note_script_form(root, src);
  // A string run as shell or a sourced file is walked inside this one: each has its own left-out lines.
  auto saved = std::exchange(unread_assignments_, std::move(unread));
  auto saved_next = std::exchange(next_unread_, 0);
  walk_children(root, src, env, ctx, 0);
  // The memo of uncalled functions names nodes of this tree in its keys.
  const TSTree* outer = std::exchange(main_tree_, src.file == 0 && src.origin.empty() ? tree.get() : nullptr);
  walk_uncalled_functions(src, env, ctx);
  main_tree_ = outer;
  apply_unread_assignments(UINT32_MAX, env);
  unread_assignments_ = std::move(saved);
  next_unread_ = saved_next;
}

// The variable a left-out line assigns: `NAME=...`, `NAME+=...`, `NAME[i]=...`, after `export`,
// `declare -x`, `local`, `readonly` or `typeset`.
static std::optional<std::string> assigned_name(std::string_view line) {
  auto skip_blanks = [&] {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  };
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  skip_blanks();
  for (std::string_view kw : {"export", "declare", "local", "readonly", "typeset"}) {
    if (line.starts_with(kw) && line.size() > kw.size() &&
        (line[kw.size()] == ' ' || line[kw.size()] == '\t')) {
      line.remove_prefix(kw.size());
      skip_blanks();
      while (line.starts_with("-")) {
        while (!line.empty() && line.front() != ' ' && line.front() != '\t') line.remove_prefix(1);
        skip_blanks();
      }
      break;
    }
  }
  std::size_t n = 0;
  while (n < line.size() && ident(line[n])) ++n;
  if (n == 0 || std::isdigit(static_cast<unsigned char>(line[0]))) return std::nullopt;
  std::string_view rest = line.substr(n);
  if (rest.starts_with("[")) {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(close + 1);
  }
  if (!rest.starts_with("=") && !rest.starts_with("+=")) return std::nullopt;
  return std::string(line.substr(0, n));
}

std::vector<ShellParser::UnreadAssignment> ShellParser::unread_assignments(
    const Source& src, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& left_out,
    std::string_view why) const {
  std::vector<UnreadAssignment> found;
  for (auto [b, e] : left_out) {
    if (e <= b || e > src.text.size()) continue;
    auto name = assigned_name(std::string_view(src.text).substr(b, e - b));
    if (!name) continue;
    Location where = location(src.at(b), src.at(e - 1));
    std::string reason =
        "set on " +
        (where.range.valid() ? "line " + std::to_string(where.range.start.line) : std::string("a line")) +
        ", " + std::string(why);
    std::string text = abbreviate(std::string(trim_whitespace(std::string_view(src.text).substr(b, e - b))));
    found.push_back({b, std::move(*name), std::move(reason), std::move(where), std::move(text)});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return found;
}

void ShellParser::apply_unread_assignments(std::uint32_t before, Env& env) {
  while (next_unread_ < unread_assignments_.size() && unread_assignments_[next_unread_].offset < before) {
    UnreadAssignment& a = unread_assignments_[next_unread_++];
    set_unknown(env, a.name, a.reason, a.where);
    env.edit(a.name).assigned_text = a.text;
  }
}

// PL108 / PL109: an #SBATCH line after the first command, a backslash that does not continue.
void ShellParser::note_script_form(TSNode root, const Source& src) {
  for (const auto& m : find_script_form_mistakes(root, src.text)) {
    ScriptFormNote note;
    note.kind = m.kind;
    note.range = location(src.at(m.begin), src.at(m.end > m.begin ? m.end - 1 : m.begin)).range;
    note.text = m.text;
    note.other_line = location(src.at(m.other), src.at(m.other)).range.start.line;
    out_.script_form.push_back(std::move(note));
  }
}

TSTree* ShellParser::parse_bash(const std::string& text) {
  return ts_parser_parse_string(thread_bash_parser(), nullptr, text.data(),
                                static_cast<std::uint32_t>(text.size()));
}

TsTree ShellParser::parse_grammar_text(const Source& src, const std::string& text) {
  if (trees_ && src.file == 0 && src.origin.empty())
    return trees_->parse(thread_bash_parser(), out_.path, text);
  return TsTree(parse_bash(text));
}

void ShellParser::report_syntax_error(const BashSyntaxError& bad, const Source& src, bool in_string) {
  if (src.text.empty() || out_.errors.size() >= kMaxSyntaxErrors) return;
  std::uint32_t at = static_cast<std::uint32_t>(std::min(bad.offset, src.text.size() - 1));
  Location loc = location(src.at(at), src.at(at));
  if (!loc.range.valid()) return;
  std::string msg = "shell syntax error: " + bad.message + (in_string ? " (in a string run as shell)" : "");
  if (loc.path != out_.path) msg += " in " + loc.path;
  // The script's own error (not one in a sourced file, whose `source` fails alone, nor in a string run
  // as shell, whose command fails alone) stops bash there.
  if (src.file == 0 && src.origin.empty() && !in_string && loc.path == out_.path && !bash_stops_at_)
    bash_stops_at_ = loc.range.start;
  out_.errors.push_back({loc.range, std::move(msg), ""});
}

// How much of a tree the grammar could not read: bytes under ERROR nodes plus MISSING nodes.
std::size_t ShellParser::error_weight(TSNode n, int depth) {
  if (depth > kMaxTreeDepth) return 1;
  if (ts_node_is_error(n)) return 1 + ts_node_end_byte(n) - ts_node_start_byte(n);
  if (ts_node_is_missing(n)) return 1;
  std::size_t w = 0;
  for (TSNode child : Children(n))
    if (ts_node_has_error(child)) w += error_weight(child, depth + 1);
  return w;
}

std::optional<std::uint32_t> ShellParser::first_error_byte(TSNode n, int depth) {
  if (depth > kMaxTreeDepth) return std::nullopt;
  if (ts_node_is_error(n) || ts_node_is_missing(n)) return ts_node_start_byte(n);
  for (TSNode child : Children(n))
    if (ts_node_has_error(child)) return first_error_byte(child, depth + 1);
  return std::nullopt;
}

// Valid bash the grammar does not read: the line where its first error starts is blanked for the
// grammar (a trailing continuation kept) while that reads more of the text, a bounded number of times.
// Returns the byte ranges blanked.
std::vector<std::pair<std::uint32_t, std::uint32_t>> ShellParser::leave_out_unread_lines(
    std::string& grammar_text, TsTree& tree) const {
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
    TsTree retry(parse_bash(candidate));
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
void ShellParser::error_regions(TSNode root, const Source& src, std::vector<Location>& out) const {
  for (TSNode n : error_nodes(root, kMaxSyntaxErrors, kMaxTreeDepth)) {
    if (out.size() >= kMaxSyntaxErrors) return;
    std::uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    Location first = location(src.at(b), src.at(b));
    Location last = location(src.at(e > b ? e - 1 : b), src.at(e > b ? e - 1 : b));
    if (!first.range.valid()) continue;
    if (last.path == first.path && last.range.start.line > first.range.start.line)
      first.range.end = {last.range.start.line, last.range.end.column};
    out.push_back(std::move(first));
  }
}

namespace {
// Whether an sbatch option sizes or places the job (nodes, tasks, GPUs, memory, partition), as opposed to
// naming it (--job-name, --time, --output, --account, --mail-*).
bool sizes_job(std::string_view option) {
  if (auto eq = option.find('='); eq != std::string_view::npos) option = option.substr(0, eq);
  if (option.size() > 2 && option[0] == '-' && option[1] != '-') option = option.substr(0, 2);  // -N8
  if (option.starts_with("--gpus") || option.starts_with("--mem") || option.starts_with("--ntasks") ||
      option.starts_with("--cpus"))
    return true;
  for (std::string_view o : {"-N", "--nodes", "-n", "-G", "--gres", "--exclusive", "-c", "--nodelist", "-w",
                             "--partition", "-p", "--constraint", "-C"})
    if (option == o) return true;
  return false;
}
}  // namespace

// #SBATCH lines before the first command (sbatch ignores later ones).
void ShellParser::read_sbatch_header(TSNode root, const Source& src, Context& ctx) {
  std::optional<std::pair<std::string, Location>> placeholder_directive;
  for (TSNode c : NamedChildren(root)) {
    if (node_type(c) != "comment") break;
    std::uint32_t b = ts_node_start_byte(c), e = ts_node_end_byte(c);
    std::string_view text(src.text.data() + b, e - b);
    if (!text.starts_with("#SBATCH")) continue;
    std::vector<Word> words = directive_words(src, b + 7, e);
    if (words.empty()) continue;
    ctx.has_directives = true;
    // A header of names and times only leaves the job's size to the sbatch command line that submits it
    // (a submitter's `sbatch -N 8 --gpus-per-node=8`, llmb-run).
    for (const Word& w : words)
      if (w.text.starts_with("-") && sizes_job(w.text)) ctx.sizes_allocation = true;
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
std::vector<Word> ShellParser::directive_words(const Source& src, std::uint32_t b, std::uint32_t e) const {
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

}  // namespace parlint::shell

namespace parlint {

ParsedFile parse_shell(std::string_view path, const SourceText& source, const LaunchAdapters& adapters,
                       const FileReader& reader, WorkBudget* budget, TreeCache* trees,
                       UncalledFunctionMemo* uncalled) {
  WorkBudget own;
  shell::ShellParser parser(path, source, adapters, reader, budget ? *budget : own, trees, uncalled);
  return parser.run();
}

}  // namespace parlint
