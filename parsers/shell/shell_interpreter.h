#pragma once
// The shell parser's interpreter, shared by the files that implement it (not a public interface: the
// rest of parlint calls parse_shell() in shell_parser.h). One class, one file per concern:
//   shell_parser.cpp      positions, parsing with the grammar, syntax errors, #SBATCH headers
//   shell_statements.cpp  statements, branches, redirections, assignments
//   shell_expansion.cpp   words, quoting, parameter expansion, arithmetic, SLURM variables
//   shell_commands.cpp    commands: srun/salloc/sbatch, shells, eval, source, read, wrappers
//   shell_launchers.cpp   torchrun, deepspeed, mpirun and python launch options
//   shell_job_assembly.cpp  a launch -> a RawJob (allocation, launcher facts, training arguments)
#include <tree_sitter/api.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/parsed_file.h"
#include "lint/model/source_files.h"
#include "lint/model/source_text.h"
#include "lint/model/word.h"
#include "lint/model/work_budget.h"
#include "parsers/adapter/launch_adapter.h"
#include "parsers/args/deepspeed_resources.h"
#include "parsers/args/slurm_options.h"
#include "parsers/args/training_args.h"
#include "parsers/shell/shell_syntax_check.h"
#include "parsers/shell/shell_text.h"
#include "parsers/shell/shell_variables.h"
#include "parsers/shell/uncalled_function_memo.h"
#include "parsers/tree_sitter/tree_cache.h"
#include "parsers/tree_sitter/tree_sitter_fields.h"
#include "parsers/tree_sitter/tree_sitter_languages.h"
#include "parsers/tree_sitter/tree_sitter_tree.h"

namespace parlint::shell {

template <FieldName Name>
inline TSNode by_field(TSNode node) {
  return child_by_field<bash_language, Name>(node);
}

constexpr std::size_t kMaxBranchValues = 8;  // branch values kept for a launch string ($APP)
constexpr int kMaxNesting = 8;               // strings re-parsed as shell, sourced files
constexpr int kMaxTreeDepth = 400;  // syntax-tree levels walked (deeper input is reported, not walked)
constexpr std::size_t kMaxSourcedFileSize = 16u << 20;
constexpr std::size_t kMaxSyntaxErrors = 10;
// What the work budget charges (lint/model/work_budget.h): a syntax node walked, and each byte of text parsed
// or built by expansion.
constexpr std::uint64_t kNodeUnits = 128;
constexpr std::uint64_t kParseByteUnits = 16;  // a byte of text the grammar parses
// A launch read into a job (its options, allocation, environment and settings facts) and each word of it.
constexpr std::uint64_t kLaunchUnits = 8192;
// A word built by expansion (its text, origins and reasons).
constexpr std::uint64_t kFieldUnits = 64;
// A branch's copy of the variables merged back, per variable it may have changed.
constexpr std::uint64_t kBranchUnits = 1024;
// A variable's value past these sizes is not followed (A="$A $A" doubles it at each line, as bash would):
// it becomes unknown, so what it would have set is not checked rather than guessed.
constexpr std::size_t kMaxValueBytes = 256u << 10;
constexpr std::size_t kMaxArrayElements = 1024;
constexpr std::size_t kMaxExports = 512;  // variables an environment file hands on (ParsedFile::exports)

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
class StateHash;

struct Context {
  std::vector<Allocation> groups{Allocation{}};  // het-job groups; group 0 by default
  bool has_directives = false;
  bool sizes_allocation = false;  // an #SBATCH directive sizes the job (nodes, tasks, GPUs, partition, ...)
  bool under_srun = false;        // ranks started by srun (or by mpirun, see under_mpi)
  bool under_mpi = false;
  Allocation step;
  int nesting = 0;
  bool in_loop = false;
  bool all_export = false;
  std::vector<std::string> source_stack;
  // A file sourced here that could not be read ("env.sh (line 3)"): it may export any variable.
  std::optional<std::string> unread_source;
  // The command is read with the value one branch gave a launch string ($APP, eval "$CMD"): which one.
  std::string branch;
};

struct Redirects {
  std::optional<ShellText> heredoc;
  bool herestring = false;
};

// Node types are static strings owned by the grammar.
inline std::string_view node_type(TSNode n) {
  return ts_node_type(n);
}

inline std::string_view basename(std::string_view s) {
  auto slash = s.rfind('/');
  return slash == std::string_view::npos ? s : s.substr(slash + 1);
}

inline std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  if (s.starts_with("+")) s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

inline bool is_python(std::string_view name) {
  return name == "python" || name == "python3" || (name.starts_with("python3.") && name.size() <= 10);
}

// A command that starts training ranks or a training script: a launcher or the interpreter.
inline bool starts_ranks(std::string_view name) {
  return name == "torchrun" || is_python(name) || name == "deepspeed" || name == "srun";
}

// Commands that run the command after their options, and runners (containers, environments,
// profilers) whose command starts at the first launcher or interpreter among their arguments.
inline const std::set<std::string, std::less<>> kSimpleWrappers = {
    "exec", "time", "nohup", "stdbuf", "env", "nice", "ionice", "taskset", "numactl", "command", "builtin"};
inline const std::set<std::string, std::less<>> kScanWrappers = {
    "uv",          "poetry", "pixi",   "conda",  "micromamba", "pipenv", "apptainer",
    "singularity", "docker", "podman", "enroot", "nsys",       "ncu",    "srun-wrapper"};

class ShellParser {
 public:
  ShellParser(std::string_view path, const SourceText& main, const LaunchAdapters& adapters,
              const FileReader& reader, WorkBudget& budget, TreeCache* trees = nullptr,
              UncalledFunctionMemo* uncalled = nullptr)
      : adapters_(adapters), reader_(reader), budget_(budget), trees_(trees), uncalled_(uncalled) {
    files_.push_back({std::string(path), &main, nullptr});
    out_.path = std::string(path);
  }

  ParsedFile run();

 private:
  struct File {
    std::string path;
    const SourceText* text;
    std::unique_ptr<SourceText> owned;
  };

  // ---- positions (shell_parser.cpp) -----------------------------------------------------------------------

  Location location(ByteOrigin a, ByteOrigin b_last) const;

  Location node_location(TSNode n, const Source& src) const;

  // The range of the bytes of `t` that were written in a file (first to last such byte on one line).
  Location text_location(const ShellText& t) const;

  Word to_word(const ShellText& t) const;

  // ---- parsing (shell_parser.cpp) -------------------------------------------------------------------------

  void parse_and_walk(const Source& src, Env& env, Context& ctx, bool read_directives, bool report_errors);

  // PL108 / PL109: an #SBATCH line after the first command, a backslash that does not continue.
  void note_script_form(TSNode root, const Source& src);

  static TSTree* parse_bash(const std::string& text);
  // The tree of `text`, the grammar's copy of `src`: the main file's is reparsed from its last tree when
  // the caller keeps trees (the language server), strings run as shell are parsed afresh.
  TsTree parse_grammar_text(const Source& src, const std::string& text);

  void report_syntax_error(const BashSyntaxError& bad, const Source& src, bool in_string);

  // How much of a tree the grammar could not read: bytes under ERROR nodes plus MISSING nodes.
  static std::size_t error_weight(TSNode n, int depth);

  static std::optional<std::uint32_t> first_error_byte(TSNode n, int depth);

  // Valid bash the grammar does not read: the line where its first error starts is blanked for the
  // grammar (a trailing continuation kept) while that reads more of the text, a bounded number of times.
  // Returns the byte ranges blanked.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> leave_out_unread_lines(std::string& grammar_text,
                                                                              TsTree& tree) const;

  // Variables assigned on the lines left out for the grammar (a line bash refuses, or one the grammar does
  // not read) become unknown where the line stood: what follows never sees a stale value or a default.
  struct UnreadAssignment {
    std::uint32_t offset;
    std::string name;
    std::string reason;
    Location where;
    std::string text;  // the line as written, for "TP=<size> set here"
  };
  std::vector<UnreadAssignment> unread_assignments(
      const Source& src, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& left_out,
      std::string_view why) const;
  void apply_unread_assignments(std::uint32_t before, Env& env);
  std::vector<UnreadAssignment> unread_assignments_;  // of the source being walked, by offset
  std::optional<SourcePosition> bash_stops_at_;       // the script's own syntax error: nothing after it runs
  // Shell functions of the source being walked: their bodies run where they are called, on the caller's
  // variables (`setup() { TP=32; }; setup`); one never called is read on its own, on a copy of the
  // variables as the source leaves them.
  struct ShellFunction {
    TSNode body;
    const Source* src;
    int calls = 0;
    std::optional<std::set<std::string>> locals;  // its local / declare names, found at its first call
  };
  std::map<std::string, ShellFunction> functions_;
  // One reading of a sourced file whose only effects were on the variables: what it changed, to be
  // done again without reading the file when it is sourced again with the same variables in scope. A
  // file sourced K times from a file sourced K times (environment files that source each other) was
  // read K^depth times, and an eight-deep fan-out ran out of the budget from K=6.
  struct SourcedRead {
    std::uint64_t incoming = 0;  // the variables and context in scope (state_fingerprint)
    std::vector<std::pair<std::string, std::shared_ptr<Var>>> changed;  // null: unset
    bool all_export = false;
    std::optional<std::string> unread_source;
    bool runs_programs = false;
  };
  // A sourced file, read and parsed once however often it is sourced: its text and tree outlive the
  // `source` (the script that sourced it can call its functions), and one file index serves every
  // reading, so values it sets are alike each time.
  struct KeptSource {
    std::unique_ptr<Source> src;
    TsTree tree;
    std::vector<SourcedRead> reads;
  };
  std::deque<KeptSource> kept_sources_;  // a deque: reading one may keep more, and it is read in place
  std::map<std::string, std::size_t> kept_by_path_;  // canonical path -> kept_sources_ index
  static constexpr std::size_t kMaxKeptSources = 256;
  static constexpr std::size_t kMaxReadsKept = 16;  // per file: distinct states it was sourced in
  // Counts that change when a reading does more than set variables (then it is not replayed).
  int functions_defined_ = 0, functions_called_ = 0;
  std::uint64_t state_fingerprint(const Env& env, const Context& ctx) const;
  static void hash_context(StateHash& h, const Context& ctx);
  void read_sourced(KeptSource& kept, Env& env, Context& ctx, Context& inner);
  std::set<std::string> running_functions_;  // a function that calls itself is not followed
  std::vector<ExportedVariable> exported(const Env& env, const Env& prefix) const;
  // Whether the script runs a command other than those that set variables (only_sets_variables).
  bool runs_programs_ = false;
  static bool only_sets_variables(std::string_view name);
  static constexpr int kMaxCallsPerFunction = 8;  // past it, a call changes nothing parlint reads
  // Runs a function called by name; false when `name` is no function of this source to follow.
  bool call_function(const std::string& name, const Source& src, Env& env, Context& ctx);
  void walk_uncalled_functions(const Source& src, const Env& env, Context& ctx);
  // ---- the language server's memo of uncalled functions (shell_uncalled_functions.cpp) ----
  // Steps whose effects a replayed walk could not repeat (a file read, a string run as shell, a file
  // written from a here-document): a walk that took one is not kept.
  mutable std::uint64_t unrepeatable_ = 0;
  const TSTree* main_tree_ = nullptr;  // the main file's tree while its uncalled functions are walked
  struct UncalledWalkState;
  UncalledWalkState uncalled_walk_state() const;
  struct UncalledWalkKey {
    UncalledFunctionMemo::Key key;  // the state, the body's subtree and its lines as written
    int first_line = 0, last_line = 0;
  };
  bool memo_usable(const Source& src) const;
  std::uint64_t uncalled_walks_hash(const Context& ctx) const;
  UncalledWalkKey uncalled_walk_key(const std::string& name, const ShellFunction& fn, const Source& src,
                                    const Env& local, std::uint64_t state) const;
  static std::uint64_t every_variable_hash(const Env& env);
  bool replay_uncalled_walk(std::vector<UncalledFunctionMemo::Walk>& walks, const Env& env,
                            const UncalledWalkKey& key);
  // Walks a never-called function on `local`, a copy of `outer`; with a `key`, keeps the walk in the memo
  // when a replay can repeat its effects (returns whether it was kept).
  bool walk_uncalled_function(const std::string& name, ShellFunction& fn, const Source& src, const Env& outer,
                              Env local, Context& ctx, const UncalledWalkKey* key);
  // The arms a `case` on a constant took, with the note that says so: a word written inside one is a
  // value chosen among the arms' (RelatedLocation::choice). Bounded: past it, no more are noted.
  struct ChosenArm {
    ByteOrigin first, last;  // the arm's first and last bytes
    RelatedLocation note;
  };
  std::vector<ChosenArm> chosen_arms_;
  static constexpr std::size_t kMaxChosenArms = 64;
  static constexpr std::size_t kMaxPassedOptions = 512;    // options of one launch kept for its entry script
  static constexpr std::size_t kMaxDeadBranchNames = 256;  // names a branch that does not run assigns
  std::size_t next_unread_ = 0;

  // The ERROR and MISSING nodes, each widened to whole lines.
  void error_regions(TSNode root, const Source& src, std::vector<Location>& out) const;

  // #SBATCH lines before the first command (sbatch ignores later ones).
  void read_sbatch_header(TSNode root, const Source& src, Context& ctx);

  // Splits a directive into words (quotes removed), stopping at a trailing comment.
  std::vector<Word> directive_words(const Source& src, std::uint32_t b, std::uint32_t e) const;

  // ---- statements (shell_statements.cpp) ------------------------------------------------------------------

  void walk_children(TSNode n, const Source& src, Env& env, Context& ctx, int depth);

  void walk(TSNode n, const Source& src, Env& env, Context& ctx, int depth);

  // Charges `units` of work; once the budget is spent, remembers the first line of the main file left
  // unread (at `n`) and returns false.
  bool spend(std::uint64_t units, TSNode n, const Source& src);

  std::string text_of(TSNode n, const Source& src) const;

  void set_unknown(Env& env, const std::string& name, std::string reason, Location where);

  // How many times `text` expands $name or ${name...}.
  static int references_to(std::string_view text, const std::string& name);

  // Why a value is too large to follow (kMaxValueBytes, kMaxArrayElements), if it is.
  static std::optional<std::string> over_value_limit(const Var& v);

  // if / elif / else and case: each branch on its own copy of the variables; afterwards a variable
  // keeps its value only when every branch (and falling through) agrees.
  void branches(TSNode n, const Source& src, Env& env, Context& ctx, int depth);

  void walk_clause(TSNode clause, const Source& src, Env& env, Context& ctx, int depth);

  // The arm a `case` takes when its subject is a known constant and every pattern up to the match is
  // plain text or a glob (MODEL_SCALE="800M"; case "$MODEL_SCALE" in 800M) ...): that arm's node, or a
  // null node when no arm matches; nullopt when it cannot be told before run time.
  std::optional<TSNode> constant_case_arm(TSNode n, const Source& src, Env& env, Context& ctx);
  std::optional<TSNode> constant_if_branch(TSNode n, const Source& src, Env& env, Context& ctx);
  std::optional<bool> constant_test(TSNode test, const Source& src, Env& env, Context& ctx);
  // Walks the one branch constants decide, if they decide one; false when every branch may run.
  bool take_constant_branch(TSNode n, const Source& src, Env& env, Context& ctx, int depth);
  bool is_exit(TSNode statement, const Source& src) const;
  bool clause_exits(TSNode clause, const Source& src, bool skip_test) const;
  void assigned_names(TSNode n, const Source& src, std::set<std::string>& out, int depth) const;

  // `fallthrough`: when an if with no elif or else runs no branch ("the if at line 3 (...) is false"), for
  // a variable that only its branch sets.
  // `labels` names each branch for findings (written out only when a launch string needs it).
  void merge_branches(Env& env, std::vector<Env> results, const Location& where, std::string_view fallthrough,
                      const std::function<std::vector<std::string>()>& labels, std::string_view tests = {});
  // Whether an if's tests read the script's positional arguments ($1, "$@", $#, or a variable holding one).
  static bool tests_script_arguments(std::string_view tests, Env& env);
  static std::string unset_in_tests(std::string_view tests, Env& env);
  static bool expands_only_set_variables(std::string_view text, Env& env);
  static std::string_view expansion_name(std::string_view text, std::size_t dollar);

  static bool alike(Var& a, Var& b);
  static void keep_branch_values(Env& env, const std::string& name, const std::vector<Env>& results,
                                 const std::vector<std::string>& labels);
  static bool launch_strings(const std::string& name, const std::vector<Env>& results);
  static bool branch_values_possible(const std::string& name, const std::vector<Env>& results);
  // The options every branch agrees on, when each branch left the variable an options list.
  static std::optional<Var> merge_branch_values(const std::vector<Env>& results, const Var* before,
                                                const std::string& name, const std::string& branches);

  void redirected(TSNode n, const Source& src, Env& env, Context& ctx, int depth);

  // The file a `> FILE` redirect writes (not `>>`, `2>`, `<`).
  std::optional<ShellText> redirect_target(TSNode redirect, const Source& src, Env& env, Context& ctx);

  ShellText heredoc_text(TSNode redirect, const Source& src, Env& env, Context& ctx);

  // ---- assignments (shell_statements.cpp) -----------------------------------------------------------------

  void declare(TSNode n, const Source& src, Env& env, Context& ctx);

  void assign(TSNode n, const Source& src, Env& env, Context& ctx, bool exported, bool declared);

  // ---- expansion (shell_expansion.cpp) --------------------------------------------------------------------

  // Builds the fields one word expands to: unquoted expansions split on blanks, "${A[@]}" gives one
  // field per element, quoted text never splits.
  // The words an expansion produces, as bash splits them; or, for a value expanded as one string
  // (`joined`), those words joined by single blanks, built in place rather than as words to join.
  struct Fields {
    std::vector<ShellText> done;
    ShellText current;
    bool started = false;
    bool joined = false;
    bool blank_pending = false;  // joined: a word ended; the next one starts after a blank
    std::size_t words = 0;       // joined: how many words `current` holds

    void add(const ShellText& t, bool split) {
      if (!split) {
        open();
        current.append(t);
        return;
      }
      // Each run-time part's reason goes with the field that holds its placeholder byte, when the text
      // has one reason per placeholder (it was built by add_unknown); otherwise all go to the first field.
      bool per_byte = t.unknown_reasons.size() ==
                      static_cast<std::size_t>(std::count(t.text.begin(), t.text.end(), kUnknownByte));
      current.merge_meta(t, !per_byte);
      std::size_t next_reason = 0;
      const std::string& text = t.text;
      // Word by word, each copied with its origins in one go (a long value splits into many words).
      for (std::size_t i = 0; i < text.size();) {
        if (is_blank(text[i])) {
          if (started) finish();
          ++i;
          continue;
        }
        std::size_t j = i;
        while (j < text.size() && !is_blank(text[j])) ++j;
        open();
        if (per_byte)
          for (std::size_t k = i; k < j; ++k)
            if (text[k] == kUnknownByte) current.unknown_reasons.push_back(t.unknown_reasons[next_reason++]);
        current.append_slice(t, i, j);
        i = j;
      }
    }
    // Quoted text, taken over: a long value expanded inside quotes is not copied once more.
    void add(ShellText&& t) {
      open();
      current.append_moved(std::move(t));
    }
    void finish() {
      if (joined) {
        if (started) {
          ++words;
          blank_pending = true;
        }
        started = false;
        return;
      }
      if (started) {
        WorkMeter::charge(kFieldUnits);
        done.push_back(std::move(current));
      }
      current = ShellText{};
      started = false;
    }

   private:
    static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }
    void open() {
      if (joined && blank_pending && !started) {
        current.push(' ', {});
        blank_pending = false;
      }
      started = true;
    }
  };

  std::vector<ShellText> expand_fields(TSNode n, const Source& src, Env& env, Context& ctx);

  // "${A[@]}" (alone, in a string or in a concatenation) produces words that were written elsewhere.
  bool produced_by_array(TSNode n, const Source& src) const;

  // Expands a node as one string (assignment values, "-c" strings, here-documents).
  ShellText expand_joined(TSNode n, const Source& src, Env& env, Context& ctx);

  void literal_word(const Source& src, std::uint32_t b, std::uint32_t e, ShellText& t);

  void double_quoted(const Source& src, std::uint32_t b, std::uint32_t e, ShellText& t);

  // Where an expansion inside a string or here-document really starts (after blanks the grammar gives it).
  static std::uint32_t expansion_start(TSNode c, const Source& src);

  // Bounds recursion through nested expansions (${A:-${B:-...}}) so hostile input cannot exhaust the stack.
  struct DepthGuard {
    int& depth;
    explicit DepthGuard(int& d) : depth(++d) {}
    ~DepthGuard() { --depth; }
  };
  static constexpr int kMaxExpansionDepth = 100;

  void expand_into(TSNode n, const Source& src, Env& env, Context& ctx, Fields& f, bool joined);

  static std::string abbreviate(std::string s);

  bool is_all_elements(TSNode expansion, const Source& src) const;
  // '@' for ${A[@]}, '*' for ${A[*]}, else 0.
  char all_elements_index(TSNode expansion, const Source& src) const;

  const Var* lookup_var(TSNode expansion, const Source& src, Env& env) const;

  static void add_via(ShellText& t, const Var& var);

  // The value of $X / ${X...} as one string.
  ShellText expand_value(TSNode n, const Source& src, Env& env, Context& ctx);

  // SLURM's own variables resolve to the allocation this launch runs in.
  std::optional<ShellText> slurm_variable(const std::string& name, Context& ctx, bool& weak);

  // $(( ... )) on known integers; records the variables multiplied for PL103's expression form.
  std::optional<std::int64_t> arith(TSNode n, const Source& src, Env& env, Context& ctx, ShellText& meta,
                                    std::string& reason, int depth = 0);

  void collect_product_vars(TSNode n, const Source& src, std::vector<std::string>& vars, bool in_product,
                            int depth = 0);

  void size_expression(const std::string& target, TSNode arith_node, const Source& src, Env& env, Context&);
  void expr_size_expression(const std::string& target, TSNode substitution, const Source& src, Env& env);
  std::optional<std::int64_t> int_value_of(const std::string& name, Env& env) const;

  // ---- commands (shell_commands.cpp) ----------------------------------------------------------------------

  void command(TSNode n, const Source& src, Env& env, Context& ctx, Redirects redirects);

  // A training flag with no value (PL900: the entry point's argparse refuses the command line).
  void report_missing_values(const std::vector<MissingValue>& missing, std::string_view script);

  // Parses `text` as shell and walks it: bash -c strings, eval, here-documents fed to a shell.
  void reparse(const ShellText& text, Env& env, Context& ctx, bool read_directives);

  // Most commands of a launch script (echo, mkdir, scontrol, seq, ...) launch nothing and change no
  // variable. When a command's name is written out literally, is none of the names handle_words reads,
  // and expanding its arguments cannot assign (${X:=v}) or run anything ($(...), `...`, <(...)), its
  // arguments are not expanded at all: expansion, with an origin for every byte, was most of the cost
  // of reading a script's set-up code.
  bool launches_nothing(TSNode command, const Source& src) const;

  // Every command name handle_words acts on (keep the two in step).
  // The words of one command, from its name (w[i]) on, and where it runs.
  struct CommandWords {
    std::vector<ShellText>& w;
    std::size_t i;
    const Location& where;
    const Redirects& redirects;
    Env& env;
    Env& overlay;
    Context& ctx;
  };
  using CommandHandler = void (ShellParser::*)(const CommandWords&);
  static const std::map<std::string, CommandHandler, std::less<>>& command_table();
  bool handled_command(std::string_view name) const;
  void run_rest(const CommandWords& c, std::size_t k, Context& ctx);
  // The words after the command's name (the first `limit` of them), as Words.
  std::vector<Word> words_after(const CommandWords& c, std::size_t limit = SIZE_MAX) const;
  std::size_t slurm_options_before_command(const CommandWords& c, Allocation& alloc,
                                           std::string_view prefix) const;
  void srun_command(const CommandWords& c);
  void salloc_command(const CommandWords& c);
  void sbatch_command(const CommandWords& c);
  void shell_command(const CommandWords& c);
  void eval_command(const CommandWords& c);
  void source_command(const CommandWords& c);
  void read_builtin(const CommandWords& c);
  void set_builtin(const CommandWords& c);
  void simple_wrapper(const CommandWords& c);
  void scan_wrapper(const CommandWords& c);
  void torchrun_command(const CommandWords& c);
  void framework_launcher(const CommandWords& c, const RankLauncher& launcher);
  void deepspeed_command(const CommandWords& c);
  void mpirun_command(const CommandWords& c);
  void ray_command(const CommandWords& c);
  static std::vector<std::pair<std::string_view, std::string_view>> json_string_pairs(std::string_view json);

  void handle_words(std::vector<ShellText>& w, std::size_t i, const Location& where,
                    const Redirects& redirects, Env& env, Env& overlay, Context& ctx);

  void read_command(std::vector<ShellText>& w, std::size_t i, const Redirects& redirects, Env& env);

  void source_file(std::vector<ShellText>& w, std::size_t i, Env& env, Context& ctx);

  // ---- launchers (shell_launchers.cpp and shell_job_assembly.cpp) -----------------------------------------

  struct Launch {
    LaunchKind kind = LaunchKind::kPython;
    std::vector<Fact> launcher_facts;
    std::size_t entry = 0;  // index of the script (or -m module) word
    bool module = false;
    // The command that started it when that is a framework's own CLI (`megatron sft|pt|rlhf`: the entry
    // is the subcommand).
    std::string program;
  };

  Fact launcher_fact(Key key, Value v, const ShellText& flag, const ShellText* value, std::string spelling);

  static Value count_of(const ShellText& t, bool allow_range);

  void torchrun(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env, Env& overlay,
                Context& ctx);

  // deepspeed [--num_nodes N] [--num_gpus G] [--hostfile F | --include H:S@...] script.py args
  // (deepspeed/launcher/runner.py): the hostfile's hosts (or --include's), the first N of them, G GPUs
  // each; every GPU of a host whose slots are not named; this host alone when there is no hostfile.
  void deepspeed(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env, Env& overlay,
                 Context& ctx);

  // The hosts of a deepspeed hostfile: where the launch runs is not known, so it is looked up next to
  // the script, then as written. `note` says which file was read, or why none was.
  std::optional<std::vector<DeepspeedHost>> read_deepspeed_hostfile(const std::string& path,
                                                                    std::string& note);

  // A file a launch names (a hostfile, a DeepSpeed config): where the launch runs is not known, so it is
  // looked up next to the script, then as written. `found` is the path read.
  std::optional<std::string> read_beside_script(const std::string& path, std::string& found) const;

  // mpirun -np N [-N per-node] cmd: MPI starts the ranks itself, like srun.
  void mpirun(std::vector<ShellText>& w, std::size_t i, const Location& where, const Redirects& redirects,
              Env& env, Env& overlay, Context& ctx);

  // A variable a launcher sets for the processes it starts, from `NAME=VALUE` text at `from`.
  void set_for_ranks(Env& overlay, const std::string& name, const ShellText& text, std::size_t from);

  void python(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env, Env& overlay,
              Context& ctx);

  std::optional<Fact> env_fact(Key key, const std::string& name, Env& env, Env& overlay, Context& ctx);

  // A training run, not a CPU helper (tools/preprocess_data.py, MLPerf's log and mount checkers): a
  // distributed launcher, training settings among the arguments, or a training entry point's name.
  // The files a launch names, as the framework adapters read them.
  struct ScriptFiles final : LaunchFiles {
    explicit ScriptFiles(const ShellParser& p) : parser(p) {}
    std::optional<std::string> read(const std::string& path, std::string& shown) const override;
    const ShellParser& parser;
  };

  static bool training_launch(const Launch& l, std::string_view entry, const TrainingArgs& ta);
  static std::string command_output_reason(std::string_view text);

  void emit(const Launch& l, std::vector<ShellText>& w, const Location& where, Env& env, Env& overlay,
            Context& ctx);
  // One job of a launch: `role` as the framework that claims the launch builds it (`adapter`, null when
  // none does), or the launch's own arguments read as the entry point reads them.
  void emit_job(const Launch& l, std::vector<ShellText>& w, const Location& where, Env& env, Env& overlay,
                Context& ctx, const std::vector<Word>& args, RoleLaunch role, const LaunchAdapter* adapter);

  std::vector<File> files_;
  std::map<std::string, ShellText> written_files_;  // files the script writes from a here-document
  const LaunchAdapters& adapters_;             // the frameworks a launch may belong to (parsers/frameworks)
  const FileReader& reader_;                   // every file the script refers to is read through it
  WorkBudget& budget_;                         // what reading this file (and what it sources) may cost
  TreeCache* trees_;                           // the main file's last tree, to reparse an edit from (or null)
  UncalledFunctionMemo* uncalled_;             // the last lints' walks of uncalled functions (or null)
  std::optional<SourcePosition> budget_stop_;  // the first line of the main file not read for it
  ParsedFile out_;
  // Launch strings chosen by branch that the words being expanded read ($APP): name and values.
  std::vector<std::pair<std::string, std::shared_ptr<const std::vector<BranchValue>>>> branch_values_read_;
  bool deep_reported_ = false;
  int expansion_depth_ = 0;
};

}  // namespace parlint::shell
