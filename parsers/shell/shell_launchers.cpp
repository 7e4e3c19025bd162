// The launchers that start the ranks: torchrun (and python -m torch.distributed.run), deepspeed,
// mpirun/mpiexec and plain python, each with the options it reads.
#include "parsers/shell/shell_interpreter.h"

#include <algorithm>
#include <charconv>

#include <filesystem>
#include "parsers/args/deepspeed_resources.h"

namespace parlint::shell {

Fact ShellParser::launcher_fact(Key key, Value v, const ShellText& flag, const ShellText* value,
                                std::string spelling) {
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
  f.value_apart = value && a.path == b.path && b.range.start > a.range.end;
  if (value) {
    f.written_at = value->via;
    f.weak = value->weak;
    f.weak_note = value->weak_note;
  }
  return f;
}

Value ShellParser::count_of(const ShellText& t, bool allow_range) {
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

void ShellParser::torchrun(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env,
                           Env& overlay, Context& ctx) {
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
      l.launcher_facts.push_back(launcher_fact(Key::kNprocPerNode, count_of(*value, false), flag_word, value,
                                               "torchrun " + spelled));
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
void ShellParser::deepspeed(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env,
                            Env& overlay, Context& ctx) {
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
    std::string why =
        exclude.value ? "deepspeed takes the GPUs --exclude leaves"
        : hosts && std::any_of(hosts->begin(), hosts->end(), [](const DeepspeedHost& h) { return !h.slots; })
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
        any_pool ? launcher_fact(Key::kNnodes,
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
std::optional<std::vector<DeepspeedHost>> ShellParser::read_deepspeed_hostfile(const std::string& path,
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
std::optional<std::string> ShellParser::read_beside_script(const std::string& path,
                                                           std::string& found) const {
  ++unrepeatable_;
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
void ShellParser::mpirun(std::vector<ShellText>& w, std::size_t i, const Location& where,
                         const Redirects& redirects, Env& env, Env& overlay, Context& ctx) {
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
void ShellParser::set_for_ranks(Env& overlay, const std::string& name, const ShellText& text,
                                std::size_t from) {
  Var v;
  v.value.text = text.text.substr(from);
  v.value.origin = text.origin.slice(static_cast<std::uint32_t>(from));
  v.value.unknown_reasons = text.unknown_reasons;
  v.exported = true;
  v.assigned_at = text_location(text);
  v.assigned_text = text.text;
  overlay.set(name, v);
}

void ShellParser::python(std::vector<ShellText>& w, std::size_t i, const Location& where, Env& env,
                         Env& overlay, Context& ctx) {
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

}  // namespace parlint::shell
