#include "parsers/args/slurm_options.h"

#include "parsers/args/argument_words.h"

#include "parsers/shell/shell_text.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace parlint {
namespace {

// Long options that take a value in the next word when written without '='.
enum class SlurmArity { kNone, kOptional, kRequired };
struct SlurmOption {
  std::string_view name;
  char short_name;
  SlurmArity arity;
};
constexpr SlurmOption kSlurmOptions[] = {
#include "parsers/args/slurm_option_table.inc"
    // Newer than the man pages the table comes from, and the pyxis container plugin's options.
    {"--segment", 0, SlurmArity::kRequired},
    {"--tres-per-task", 0, SlurmArity::kRequired},
    {"--container-image", 0, SlurmArity::kRequired},
    {"--container-mounts", 0, SlurmArity::kRequired},
    {"--container-name", 0, SlurmArity::kRequired},
    {"--container-workdir", 0, SlurmArity::kRequired},
    {"--container-env", 0, SlurmArity::kRequired},
    {"--container-save", 0, SlurmArity::kRequired},
    {"--container-mount-home", 0, SlurmArity::kNone},
    {"--no-container-mount-home", 0, SlurmArity::kNone},
    {"--container-remap-root", 0, SlurmArity::kNone},
    {"--no-container-remap-root", 0, SlurmArity::kNone},
    {"--container-writable", 0, SlurmArity::kNone},
    {"--container-readonly", 0, SlurmArity::kNone},
    {"--no-container-entrypoint", 0, SlurmArity::kNone},
    {"--container-entrypoint", 0, SlurmArity::kNone},
    {"--no-container-env", 0, SlurmArity::kNone},
};

// Long options whose value may be the next word (--nodes 2).
bool takes_next_word(std::string_view name) {
  for (const auto& o : kSlurmOptions)
    if (o.name == name) return o.arity == SlurmArity::kRequired;
  return false;
}

// Short options that take a value (attached, -N2, or in the next word).
bool short_takes_value(char c) {
  for (const auto& o : kSlurmOptions)
    if (o.short_name == c) return o.arity == SlurmArity::kRequired;
  return false;
}

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

Value count_value(const Word& w, std::string_view text, bool zero_is_placeholder) {
  if (w.unknown) return Value::unknown(w.unknown_reason);
  if (text.find("{{") != std::string_view::npos)
    return Value::unknown("a template placeholder (" + std::string(text) + ")");
  // Ranges (--nodes=2-4) are only known when both ends agree.
  if (auto dash = text.find('-'); dash != std::string_view::npos && dash > 0) {
    auto lo = to_int(text.substr(0, dash)), hi = to_int(text.substr(dash + 1));
    if (lo && hi && *lo == *hi) return Value::integer(*lo);
    return Value::unknown("a range (" + std::string(text) + "); SLURM picks the count at run time");
  }
  auto v = to_int(text);
  if (!v) return Value::unknown("a placeholder (" + std::string(text) + "), filled in before submission");
  if (zero_is_placeholder && *v == 0) return Value::unknown("0, a placeholder given at submission time");
  return Value::integer(*v);
}

// "[type:]N" -> N
std::string_view strip_gpu_type(std::string_view s) {
  auto colon = s.rfind(':');
  return colon == std::string_view::npos ? s : s.substr(colon + 1);
}

}  // namespace

std::size_t parse_slurm_options(std::span<const Word> words, Allocation& alloc, Origin origin,
                                std::string_view prefix, bool stop_at_command) {
  std::size_t i = 0;
  for (; i < words.size(); ++i) {
    const Word& w = words[i];
    std::string_view t = w.text;
    // srun ${AUTO_RESUME} -l cmd: a word known only at run time, followed by options, is taken for
    // more options (or nothing), not for the command.
    if (stop_at_command && w.unknown && t.find_first_not_of(kUnknownByte) == std::string_view::npos &&
        i + 1 < words.size() && words[i + 1].text.starts_with("-"))
      continue;
    if (t.empty() || t[0] != '-' || t == "-" || t == "--") {
      if (stop_at_command) return t == "--" ? i + 1 : i;
      continue;
    }
    std::string name;
    std::string_view value;
    const Word* value_word = &w;
    bool has_value = false;
    if (t.starts_with("--")) {
      auto eq = t.find('=');
      name = std::string(t.substr(0, eq));
      if (eq != std::string_view::npos) {
        value = t.substr(eq + 1);
        has_value = true;
      } else if (takes_next_word(name) && i + 1 < words.size()) {
        value_word = &words[++i];
        value = value_word->text;
        has_value = true;
      }
    } else {
      name = std::string(t.substr(0, 2));
      if (short_takes_value(t[1])) {
        if (t.size() > 2) {
          value = t.substr(2);  // -N2
          if (value.starts_with("=")) value.remove_prefix(1);
          has_value = true;
        } else if (i + 1 < words.size()) {
          value_word = &words[++i];
          value = value_word->text;
          has_value = true;
        }
      }
    }
    // --exclusive alone asks for whole nodes (=user and =mcs share them with other jobs).
    if (name == "--exclusive" && (!has_value || value.empty())) {
      alloc.exclusive = w.location;
      alloc.any = true;
      continue;
    }
    if (!has_value) continue;
    alloc.any = true;
    auto fact = [&](Key key, Value v) {
      Fact f;
      f.key = key;
      f.value = std::move(v);
      f.location = span(w.location, value_word->location);
      f.origin = origin;
      f.spelling = std::string(prefix) + name;
      f.value_apart = value_word != &w;
      f.weak = value_word->weak;
      f.weak_note = value_word->weak_note;
      f.written_at = value_word->written_at;
      return f;
    };
    if (name == "--nodes" || name == "-N") {
      alloc.nodes = fact(Key::kNodes, count_value(*value_word, value, true));
    } else if (name == "--ntasks-per-node") {
      alloc.ntasks_per_node = fact(Key::kNtasksPerNode, count_value(*value_word, value, false));
    } else if (name == "--ntasks" || name == "-n") {
      alloc.ntasks = fact(Key::kWorldSize, count_value(*value_word, value, false));  // total tasks
    } else if (name == "--gpus-per-node") {
      alloc.gpus_per_node = fact(Key::kGpusPerNode, count_value(*value_word, strip_gpu_type(value), false));
    } else if (name == "--gpus" || name == "-G") {
      alloc.gpus_total = fact(Key::kGpusPerNode, count_value(*value_word, strip_gpu_type(value), false));
    } else if (name == "--gpus-per-task" || name == "--gpus-per-socket") {
      alloc.gpus_per_task = fact(Key::kGpusPerNode, count_value(*value_word, strip_gpu_type(value), false));
      alloc.per_task_unit = name == "--gpus-per-task" ? "task" : "socket";
    } else if (name == "--gres") {
      // --gres=gpu:8, gpu:a100:8, gpu (one), possibly among other resources: "gpu:8,nvme:1".
      std::string_view rest = value;
      while (!rest.empty()) {
        auto comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        if (item == "gpu" || item.starts_with("gpu:")) {
          std::string_view count = item == "gpu" ? std::string_view("1") : strip_gpu_type(item);
          if (auto at = count.find('('); at != std::string_view::npos) count = count.substr(0, at);
          alloc.gpus_per_node = fact(Key::kGpusPerNode, count_value(*value_word, count, false));
          // Named as written ("--gres=gpu:a100:8"): the count alone reads as a different option.
          alloc.gpus_per_node->spelling = std::string(prefix) + std::string(name) + "=" + std::string(item);
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
  }
  return i;
}

void derive_gpus_per_node(Allocation& alloc) {
  if (!alloc.gpus_per_node && !alloc.gpus_total && alloc.gpus_per_task) {
    // GPUs asked for per task (or per socket): per node that is times the tasks on a node.
    Fact f = *alloc.gpus_per_task;
    auto per = f.value.as_int();
    auto tasks = alloc.ntasks_per_node ? alloc.ntasks_per_node->value.as_int() : std::nullopt;
    if (per && tasks && alloc.per_task_unit == "task" && *per > 0 && *tasks > 0) {
      f.value = Value::integer(*per * *tasks);
      f.spelling += " x --ntasks-per-node";
    } else {
      f.value = Value::unknown("GPUs requested per " + alloc.per_task_unit + " (" + f.spelling + ")");
    }
    alloc.gpus_per_node = std::move(f);
    return;
  }
  if (alloc.gpus_per_node || !alloc.gpus_total) return;
  Fact f = *alloc.gpus_total;
  auto total = f.value.as_int();
  auto nodes = alloc.nodes ? alloc.nodes->value.as_int() : std::optional<std::int64_t>(1);
  if (total && nodes && *nodes > 0 && *total % *nodes == 0) {
    f.value = Value::integer(*total / *nodes);
    f.spelling += " (total / nodes)";
  } else {
    f.value = Value::unknown("a total GPU count (" + f.spelling + ") over an unknown node count");
  }
  alloc.gpus_per_node = std::move(f);
}

}  // namespace parlint
