// Simple commands: the environment prefix, srun/salloc/sbatch allocations, shells and eval (re-parsed),
// source, read, set -a, and the wrappers that run another command.
#include "parsers/shell/shell_interpreter.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include <filesystem>
#include "parsers/shell/shell_state_hash.h"
#include "parsers/shell/sourced_path.h"
#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint::shell {

void ShellParser::command(TSNode n, const Source& src, Env& env, Context& ctx, Redirects redirects) {
  // A call of one of the script's functions runs its body here.
  if (!functions_.empty())
    if (TSNode name = by_field<"name">(n); !ts_node_is_null(name))
      if (call_function(text_of(name, src), src, env, ctx)) return;
  if (!runs_programs_) {
    TSNode name = by_field<"name">(n);
    runs_programs_ = ts_node_is_null(name) || !only_sets_variables(text_of(name, src));
  }
  std::vector<ShellText> words;
  Env overlay;
  bool skip_arguments = launches_nothing(n, src);
  std::uint32_t previous_end = 0;
  auto outer_reads = std::exchange(branch_values_read_, {});
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
    std::uint64_t built = 0;
    for (const auto& f : fields) built += f.text.size();
    if (!spend(built, c, src)) {
      branch_values_read_ = std::move(outer_reads);
      return;
    }
    for (std::size_t k = 0; k < fields.size(); ++k) {
      if (k == 0 && glued) {
        words.back().append(fields[0]);
        words.back().forget_written();
      } else {
        words.push_back(std::move(fields[k]));
      }
    }
  }
  auto reads = std::exchange(branch_values_read_, std::move(outer_reads));
  // A launch string chosen by branch ($APP, eval "$CMD"): the command once with each branch's value.
  if (!reads.empty() && ctx.branch.empty() && !skip_arguments) {
    const auto& [name, values] = reads.front();
    for (const BranchValue& b : *values) {
      Env chosen = env;
      Var v = *b.value;
      chosen.set(name, std::move(v));
      Context c = ctx;
      c.branch = b.branch;
      command(n, src, chosen, c, redirects);
    }
    return;
  }
  if (words.empty() || skip_arguments) return;
  Location where = node_location(n, src);
  handle_words(words, 0, where, redirects, env, overlay, ctx);
}

// Commands an environment file runs to compute and set its variables, and nothing else: a script of
// only these (and assignments) launches nothing and configures what runs after it (ParsedFile::exports).
bool ShellParser::only_sets_variables(std::string_view name) {
  static constexpr std::string_view kSetters[] = {
      "export", "declare", "typeset", "readonly", "local",   "source",   ".",        "set",
      "unset",  "echo",    "printf",  "true",     "false",   ":",        "test",     "[",
      "[[",     "shopt",   "alias",   "basename", "dirname", "readlink", "realpath", "sed",
      "expr",   "return",  "exit",    "shift",    "let",     "cd",       "pwd"};
  return std::find(std::begin(kSetters), std::end(kSetters), name) != std::end(kSetters);
}

// Parses `text` as shell and walks it: bash -c strings, eval, here-documents fed to a shell.
void ShellParser::reparse(const ShellText& text, Env& env, Context& ctx, bool read_directives) {
  ++unrepeatable_;
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
bool ShellParser::launches_nothing(TSNode command, const Source& src) const {
  TSNode name_node = by_field<"name">(command);
  if (ts_node_is_null(name_node) || ts_node_named_child_count(name_node) != 1) return false;
  TSNode word = ts_node_named_child(name_node, 0);
  if (node_type(word) != "word") return false;
  std::string_view text(src.text.data() + ts_node_start_byte(word),
                        ts_node_end_byte(word) - ts_node_start_byte(word));
  if (text.find_first_of("$\\\"'`=") != std::string_view::npos || handled_command(basename(text)))
    return false;
  // A script or program by path (./bind.sh, /opt/bin/wrap) may run the launch its arguments hold.
  if (text.ends_with(".sh") || text.find('/') != std::string_view::npos) return false;
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

// The commands the interpreter acts on, by name; every other command launches nothing (python3.X names
// are matched by is_python). launches_nothing() reads the same table.
const std::map<std::string, ShellParser::CommandHandler, std::less<>>& ShellParser::command_table() {
  static const std::map<std::string, CommandHandler, std::less<>> table = [] {
    std::map<std::string, CommandHandler, std::less<>> t{
        {"srun", &ShellParser::srun_command},         {"salloc", &ShellParser::salloc_command},
        {"sbatch", &ShellParser::sbatch_command},     {"bash", &ShellParser::shell_command},
        {"sh", &ShellParser::shell_command},          {"zsh", &ShellParser::shell_command},
        {"dash", &ShellParser::shell_command},        {"eval", &ShellParser::eval_command},
        {"source", &ShellParser::source_command},     {".", &ShellParser::source_command},
        {"read", &ShellParser::read_builtin},         {"set", &ShellParser::set_builtin},
        {"torchrun", &ShellParser::torchrun_command}, {"deepspeed", &ShellParser::deepspeed_command},
        {"mpirun", &ShellParser::mpirun_command},     {"mpiexec", &ShellParser::mpirun_command},
        {"ray", &ShellParser::ray_command},
    };
    for (const auto& name : kSimpleWrappers) t.emplace(name, &ShellParser::simple_wrapper);
    for (const auto& name : kScanWrappers) t.emplace(name, &ShellParser::scan_wrapper);
    return t;
  }();
  return table;
}

bool ShellParser::handled_command(std::string_view name) const {
  return command_table().contains(name) || is_python(name) || adapters_.rank_launcher(name);
}

void ShellParser::handle_words(std::vector<ShellText>& w, std::size_t i, const Location& where,
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
  std::string_view name = basename(w[i].text);
  CommandWords c{w, i, where, redirects, env, overlay, ctx};
  if (auto it = command_table().find(name); it != command_table().end()) return (this->*(it->second))(c);
  if (is_python(name)) return python(w, i + 1, where, env, overlay, ctx);
  if (const RankLauncher* launcher = adapters_.rank_launcher(name)) return framework_launcher(c, *launcher);
  // A wrapper script of the user's (./bind.sh ${LOCAL_RANK} ${APP}, ${launch_with_binding} $APP): it runs
  // the launch its arguments hold — torchrun, or python with a script or -m — which is still that launch.
  const bool wrapper =
      w[i].unknown() || w[i].text.ends_with(".sh") || w[i].text.find('/') != std::string::npos;
  if (!wrapper) return;
  for (std::size_t k = i + 1; k + 1 < w.size(); ++k) {
    std::string_view b = basename(w[k].text);
    if (w[k].unknown() || b.find(' ') != std::string_view::npos) continue;
    const std::string& next = w[k + 1].text;
    if (b == "torchrun" || (is_python(b) && (next.ends_with(".py") || next == "-m" || next == "-u")))
      return run_rest(c, k, ctx);
  }
}

// ray job submit [options] -- command: Ray runs the command as the job's driver, which starts its
// workers on the Ray cluster itself (how many is the driver's own setting, read by its framework adapter).
// The variables of --runtime-env-json's env_vars are the workers' environment.
void ShellParser::ray_command(const CommandWords& c) {
  if (c.i + 2 >= c.w.size() || c.w[c.i + 1].text != "job" || c.w[c.i + 2].text != "submit") return;
  for (std::size_t k = c.i + 3; k < c.w.size(); ++k) {
    const ShellText& t = c.w[k];
    if (t.text == "--") return run_rest(c, k + 1, c.ctx);
    std::string_view json;
    if (t.text.starts_with("--runtime-env-json=")) json = std::string_view(t.text).substr(19);
    if (t.text == "--runtime-env-json" && k + 1 < c.w.size()) json = c.w[k + 1].text;
    for (auto [name, value] : json_string_pairs(json)) {
      Var v;
      v.value.text = std::string(value);
      v.exported = true;
      v.assigned_at = text_location(t);
      v.assigned_text = std::string(name) + "=" + std::string(value) + " (--runtime-env-json)";
      c.overlay.set(std::string(name), std::move(v));
    }
  }
}

// The "NAME": "value" pairs of a JSON text whose names look like environment variables (A-Z, 0-9, _).
std::vector<std::pair<std::string_view, std::string_view>> ShellParser::json_string_pairs(
    std::string_view json) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  auto quoted = [&](std::size_t& i) -> std::optional<std::string_view> {
    while (i < json.size() && std::isspace(static_cast<unsigned char>(json[i]))) ++i;
    if (i >= json.size() || json[i] != '"') return std::nullopt;
    std::size_t end = json.find('"', i + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view s = json.substr(i + 1, end - i - 1);
    i = end + 1;
    return s;
  };
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '"') continue;
    std::size_t at = i;
    auto name = quoted(at);
    if (!name) break;
    std::size_t colon = at;
    while (colon < json.size() && std::isspace(static_cast<unsigned char>(json[colon]))) ++colon;
    bool env_name = !name->empty() && std::all_of(name->begin(), name->end(), [](char ch) {
      return std::isupper(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) ||
             ch == '_';
    });
    if (colon < json.size() && json[colon] == ':') {
      std::size_t v = colon + 1;
      if (auto value = quoted(v); value && env_name && value->find(kUnknownByte) == std::string_view::npos) {
        out.emplace_back(*name, *value);
        i = v - 1;
        continue;
      }
    }
    i = at - 1;
  }
  return out;
}

// The rest of the words, from `k`, as a command of its own (after a wrapper or srun's options).
void ShellParser::run_rest(const CommandWords& c, std::size_t k, Context& ctx) {
  handle_words(c.w, k, c.where, c.redirects, c.env, c.overlay, ctx);
}

std::vector<Word> ShellParser::words_after(const CommandWords& c, std::size_t limit) const {
  std::vector<Word> opts;
  for (std::size_t k = c.i + 1; k < c.w.size() && opts.size() < limit; ++k) opts.push_back(to_word(c.w[k]));
  return opts;
}

// The SLURM options before the command an srun, salloc or sbatch runs (parse_slurm_options with
// stop_at_command), read from the first words when they hold them: the command's own arguments (hundreds in
// a launch of a long data blend) need no Word each. parse_slurm_options reads no word past the one after the
// index it returns, nor compares any index past it with the count, so on the first words it does what it does
// on all of them when it returns early enough; otherwise it reads all.
std::size_t ShellParser::slurm_options_before_command(const CommandWords& c, Allocation& alloc,
                                                      std::string_view prefix) const {
  constexpr std::size_t kFirstWords = 32;
  if (c.w.size() - c.i - 1 > kFirstWords) {
    Allocation read = alloc;
    std::size_t used =
        parse_slurm_options(words_after(c, kFirstWords), read, Origin::kLauncherFlag, prefix, true);
    if (used + 2 <= kFirstWords) {
      alloc = std::move(read);
      return used;
    }
  }
  return parse_slurm_options(words_after(c), alloc, Origin::kLauncherFlag, prefix, true);
}

// srun [options] command: a job step in the allocation (or the het-job group it names).
void ShellParser::srun_command(const CommandWords& c) {
  Allocation step = c.ctx.under_srun ? c.ctx.step : c.ctx.groups[0];
  for (std::size_t k = c.i + 1; k < c.w.size(); ++k)
    if (const std::string& o = c.w[k].text; o.starts_with("--het-group=")) {
      auto g = parse_int(std::string_view(o).substr(12));
      if (g && *g >= 0 && static_cast<std::size_t>(*g) < c.ctx.groups.size())
        step = c.ctx.groups[static_cast<std::size_t>(*g)];
    }
  std::size_t used = slurm_options_before_command(c, step, "srun ");
  Context inner = c.ctx;
  inner.under_srun = true;
  inner.under_mpi = false;
  inner.step = step;
  run_rest(c, c.i + 1 + used, inner);
}

// salloc [options] command: the allocation the command runs in.
void ShellParser::salloc_command(const CommandWords& c) {
  std::size_t used = slurm_options_before_command(c, c.ctx.groups[0], "salloc ");
  c.ctx.has_directives = true;
  c.ctx.sizes_allocation = true;
  run_rest(c, c.i + 1 + used, c.ctx);
}

// sbatch <<EOF ... EOF: a batch script written inline (a file it submits is read by cross-file resolution).
void ShellParser::sbatch_command(const CommandWords& c) {
  if (!c.redirects.heredoc) return;
  Context inner;
  inner.nesting = c.ctx.nesting;
  slurm_options_before_command(c, inner.groups[0], "sbatch ");
  inner.has_directives = true;
  inner.sizes_allocation = true;
  Env local = c.env;
  reparse(*c.redirects.heredoc, local, inner, true);
}

// bash -c "...", or a here-document fed to a shell: re-parsed as shell. A script file is not followed.
void ShellParser::shell_command(const CommandWords& c) {
  for (std::size_t k = c.i + 1; k < c.w.size(); ++k) {
    if (c.w[k].text == "-c" && k + 1 < c.w.size()) return reparse(c.w[k + 1], c.env, c.ctx, false);
    if (!c.w[k].text.starts_with("-")) return;
  }
  if (c.redirects.heredoc) reparse(*c.redirects.heredoc, c.env, c.ctx, false);
}

void ShellParser::eval_command(const CommandWords& c) {
  ShellText joined;
  for (std::size_t k = c.i + 1; k < c.w.size(); ++k) {
    if (k > c.i + 1) joined.push(' ', {});
    joined.append(c.w[k]);
  }
  reparse(joined, c.env, c.ctx, false);
}

void ShellParser::source_command(const CommandWords& c) {
  source_file(c.w, c.i, c.env, c.ctx);
}

void ShellParser::read_builtin(const CommandWords& c) {
  read_command(c.w, c.i, c.redirects, c.env);
}

// set -a: every variable assigned from here on is exported.
void ShellParser::set_builtin(const CommandWords& c) {
  for (std::size_t k = c.i + 1; k < c.w.size(); ++k)
    if (c.w[k].text.starts_with("-") && c.w[k].text.find('a') != std::string::npos) c.ctx.all_export = true;
}

// exec, time, env, nice, numactl, ...: the command after their options.
void ShellParser::simple_wrapper(const CommandWords& c) {
  std::size_t k = c.i + 1;
  while (k < c.w.size() && c.w[k].text.starts_with("-")) ++k;
  if (basename(c.w[c.i].text) == "taskset" && k < c.w.size()) ++k;  // its CPU list
  run_rest(c, k, c.ctx);
}

// Container and environment runners (docker, apptainer, uv, conda, nsys, ...): the command starts at the
// first launcher or interpreter among their arguments.
void ShellParser::scan_wrapper(const CommandWords& c) {
  // A container runner runs a command only with run/exec/start/shell: `docker build -t deepspeed .`,
  // `enroot import`, `apptainer pull` build or fetch an image, and a word among their options that names
  // a launcher (an image tag "deepspeed") is no launch.
  std::string_view runner = basename(c.w[c.i].text);
  if (runner == "docker" || runner == "podman" || runner == "enroot" || runner == "apptainer" ||
      runner == "singularity") {
    std::size_t s = c.i + 1;
    while (s < c.w.size() && c.w[s].text.starts_with("-")) ++s;
    if (s >= c.w.size()) return;
    std::string_view sub = c.w[s].text;
    if (sub != "run" && sub != "exec" && sub != "start" && sub != "shell" && sub != "container") return;
  }
  for (std::size_t k = c.i + 1; k < c.w.size(); ++k) {
    std::string_view b = basename(c.w[k].text);
    if (starts_ranks(b) || b == "bash" || b == "sh") return run_rest(c, k, c.ctx);
  }
}

void ShellParser::torchrun_command(const CommandWords& c) {
  torchrun(c.w, c.i + 1, c.where, c.env, c.overlay, c.ctx);
}

// A framework's own command that starts ranks (parsers/frameworks: LaunchAdapter::rank_launcher): its
// training subcommands start them as torchrun would, with the counts its environment variables give.
void ShellParser::framework_launcher(const CommandWords& c, const RankLauncher& launcher) {
  if (c.i + 1 >= c.w.size()) return;
  const std::string& sub = c.w[c.i + 1].text;
  if (std::find(launcher.subcommands.begin(), launcher.subcommands.end(), sub) == launcher.subcommands.end())
    return;
  Launch l;
  l.kind = LaunchKind::kTorchrun;
  l.entry = c.i + 1;
  l.program = std::string(launcher.program);
  // The two variables as the launch's environment holds them (its prefix, or exported).
  auto nproc = env_fact(Key::kNprocPerNode, std::string(launcher.nproc_variable), c.env, c.overlay, c.ctx);
  auto nnodes = env_fact(Key::kNnodes, std::string(launcher.nnodes_variable), c.env, c.overlay, c.ctx);
  if (nproc) {
    l.launcher_facts.push_back(std::move(*nproc));
  } else {
    Fact f;
    f.key = Key::kNprocPerNode;
    f.value = Value::unknown(std::string(nnodes ? launcher.without_nproc : launcher.without_either));
    f.origin = Origin::kEnv;
    f.spelling = std::string(launcher.nproc_variable);
    l.launcher_facts.push_back(std::move(f));
  }
  if (nnodes) l.launcher_facts.push_back(std::move(*nnodes));
  emit(l, c.w, c.where, c.env, c.overlay, c.ctx);
}

void ShellParser::deepspeed_command(const CommandWords& c) {
  deepspeed(c.w, c.i + 1, c.where, c.env, c.overlay, c.ctx);
}

void ShellParser::mpirun_command(const CommandWords& c) {
  mpirun(c.w, c.i + 1, c.where, c.redirects, c.env, c.overlay, c.ctx);
}

void ShellParser::read_command(std::vector<ShellText>& w, std::size_t i, const Redirects& redirects,
                               Env& env) {
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

void ShellParser::source_file(std::vector<ShellText>& w, std::size_t i, Env& env, Context& ctx) {
  ++unrepeatable_;
  if (i + 1 >= w.size()) return;
  namespace fs = std::filesystem;
  std::string arg = w[i + 1].text;
  // What the file exports is unknown once it cannot be read; a virtual or conda environment's
  // activation script sets paths, not the job's environment.
  auto unread = [&] {
    std::string_view name = basename(arg);
    if (name == "activate" || name == "conda.sh" || name == "mamba.sh" || name.ends_with("setup-env.sh") ||
        arg.find("profile.d/") != std::string::npos || arg.ends_with("/etc/profile"))
      return;
    std::string shown = arg;
    std::replace(shown.begin(), shown.end(), kUnknownByte, '?');
    Location at = text_location(w[i + 1]);
    if (at.range.valid()) shown += " (line " + std::to_string(at.range.start.line) + ")";
    if (!ctx.unread_source) ctx.unread_source = shown;
  };
  if (ctx.nesting >= kMaxNesting) return unread();  // a chain deeper than parlint follows
  if (w[i + 1].unknown() || arg.find(kUnknownByte) != std::string::npos) {
    // source "${SCRIPT_DIR}/${VARIANT}/params.sh": the one file on disk that fits, if there is one.
    auto found = resolve_sourced_path(arg, kUnknownByte, fs::path(files_[0].path).parent_path().string());
    if (!found) return unread();
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
    Context inner = ctx;
    ++inner.nesting;
    inner.source_stack.push_back(key);
    if (auto kept = kept_by_path_.find(key); kept != kept_by_path_.end()) {
      read_sourced(kept_sources_[kept->second], env, ctx, inner);
      return;
    }
    auto read = reader_.read(key, kMaxSourcedFileSize);
    if (!read) continue;
    std::string text = std::move(*read);
    auto owned = std::make_unique<SourceText>(text);
    const SourceText* ptr = owned.get();
    files_.push_back({c.lexically_normal().string(), ptr, std::move(owned)});
    auto s =
        std::make_unique<Source>(Source{std::string(ptr->text()), {}, static_cast<int>(files_.size() - 1)});
    TsTree tree(ts_parser_parse_string(thread_bash_parser(), nullptr, s->text.data(),
                                       static_cast<std::uint32_t>(s->text.size())));
    if (!tree) return;
    if (kept_sources_.size() < kMaxKeptSources) {
      kept_by_path_.emplace(key, kept_sources_.size());
      kept_sources_.push_back({std::move(s), std::move(tree), {}});
      read_sourced(kept_sources_.back(), env, ctx, inner);
      return;
    }
    // Past the limit of files kept, read once and let go: the functions it never called are read now.
    walk_children(ts_tree_root_node(tree.get()), *s, env, inner, 0);
    walk_uncalled_functions(*s, env, inner);
    ctx.all_export = inner.all_export;
    if (inner.unread_source && !ctx.unread_source) ctx.unread_source = inner.unread_source;
    return;
  }
  unread();
}

std::uint64_t ShellParser::state_fingerprint(const Env& env, const Context& ctx) const {
  StateHash h;
  env.for_each([&](const std::string& name, const Var& v) {
    h.bytes(name);
    h.var(v);  // branch values are shared, never changed: the same list is the same values
  });
  hash_context(h, ctx);
  h.number(static_cast<std::uint64_t>(functions_defined_));
  return h.value();
}

void ShellParser::hash_context(StateHash& h, const Context& ctx) {
  h.number(ctx.groups.size());
  for (const auto& g : ctx.groups) h.allocation(g);
  h.allocation(ctx.step);
  h.number(ctx.has_directives);
  h.number(ctx.sizes_allocation);
  h.number(ctx.under_srun);
  h.number(ctx.under_mpi);
  h.number(static_cast<std::uint64_t>(ctx.nesting));
  h.number(ctx.in_loop);
  h.number(ctx.all_export);
  h.bytes(ctx.branch);
  h.bytes(ctx.unread_source.value_or(""));
  for (const auto& s : ctx.source_stack) h.bytes(s);
}

// Reads a sourced file into `env`, or does again what an earlier reading in the same state did.
void ShellParser::read_sourced(KeptSource& kept, Env& env, Context& ctx, Context& inner) {
  std::uint64_t incoming = state_fingerprint(env, inner);
  auto finish = [&] {
    ctx.all_export = inner.all_export;
    if (inner.unread_source && !ctx.unread_source) ctx.unread_source = inner.unread_source;
  };
  for (const SourcedRead& r : kept.reads) {
    if (r.incoming != incoming) continue;
    WorkMeter::charge(kNodeUnits * (1 + r.changed.size()));
    for (const auto& [name, value] : r.changed) {
      if (value)
        env.share(name, value);
      else
        env.erase(name);
    }
    // Its literal values and size expressions are those the recorded reading added already.
    inner.all_export = r.all_export;
    if (r.unread_source) inner.unread_source = r.unread_source;
    runs_programs_ = runs_programs_ || r.runs_programs;
    return finish();
  }
  // What a reading that only sets variables leaves unchanged (anything else, and it is not replayed).
  const Env before = env;  // shares the variables: freezes them, copies none
  const auto errors = out_.errors.size(), jobs = out_.jobs.size(), unread = out_.unread.size(),
             written = written_files_.size(), arms = chosen_arms_.size(), kept_count = kept_sources_.size();
  const int defined = functions_defined_, called = functions_called_;
  const bool ran_programs = runs_programs_, stopped = budget_.exhausted(), deep = deep_reported_;
  const Source& src = *kept.src;
  walk_children(ts_tree_root_node(kept.tree.get()), src, env, inner, 0);  // assignments flow back
  bool replayable =
      out_.errors.size() == errors && out_.jobs.size() == jobs && out_.unread.size() == unread &&
      written_files_.size() == written && chosen_arms_.size() == arms && kept_sources_.size() == kept_count &&
      functions_defined_ == defined && functions_called_ == called && budget_.exhausted() == stopped &&
      deep_reported_ == deep && kept.reads.size() < kMaxReadsKept;
  if (replayable) {
    SourcedRead r;
    r.incoming = incoming;
    std::set<std::string> names;
    env.changed_since(before, names);
    for (const auto& name : names) {
      const std::shared_ptr<Var>* now = env.slot(name);
      const std::shared_ptr<Var>* was = before.slot(name);
      if ((now ? now->get() : nullptr) == (was ? was->get() : nullptr)) continue;
      r.changed.emplace_back(name, now ? *now : nullptr);
    }
    r.all_export = inner.all_export;
    r.unread_source = inner.unread_source;
    r.runs_programs = runs_programs_ && !ran_programs;
    kept.reads.push_back(std::move(r));
  }
  finish();
}

}  // namespace parlint::shell
