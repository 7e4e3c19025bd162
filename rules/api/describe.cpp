#include "rules/api/describe.h"

#include "lint/knowledge/settings_catalogue.h"

#include <fmt/format.h>

#include <cctype>

namespace parlint {

namespace {

// The setting with its value as a user would write it: "#SBATCH -N 2" (a short option takes a blank),
// "#SBATCH --nodes=2", "trainer.devices=8", a spelling that already holds its value as it is
// ("--nnodes=1", "--gres=gpu:8"), and a derived value after its inputs ("--nnodes=2 × --nproc-per-node=8 =
// 16").
std::string written_with_value(const Fact& fact) {
  const std::string value = fact.value.to_string();
  const std::string& s = fact.spelling;
  if (s.ends_with("=" + value) || s.ends_with(" " + value) || s.ends_with(":" + value)) return s;
  // An option's value as its own word, as written: `--moe-token-dispatcher-type alltoall`, unquoted.
  if (fact.value_apart)
    return fmt::format("{} {}", s, fact.value.kind() == Value::Kind::kString ? fact.value.text() : value);
  if (s.find('=') != std::string::npos || s.find(" × ") != std::string::npos)
    return fmt::format("{} = {}", s, value);
  auto blank = s.rfind(' ');
  std::string_view option =
      blank == std::string::npos ? std::string_view(s) : std::string_view(s).substr(blank + 1);
  if (option.size() >= 2 && option[0] == '-' && option[1] != '-') return fmt::format("{} {}", s, value);
  return fmt::format("{}={}", s, value);
}

}  // namespace

std::string describe_source(const Fact& fact, std::string_view job_path) {
  if (!fact.location.in_file()) return fact.spelling;
  if (fact.location.path == kCommandLinePath)
    return fmt::format("{} {} on the command line", fact.spelling, fact.value.to_string());
  if (!job_path.empty() && fact.location.path != job_path)
    return fmt::format("{} at {}:{}", written_with_value(fact), fact.location.path,
                       fact.location.range.start.line);
  return fmt::format("{} at line {}", written_with_value(fact), fact.location.range.start.line);
}

std::vector<RelatedLocation> related_locations(const Fact& fact, const std::string& message) {
  std::vector<RelatedLocation> out;
  if (fact.location.in_file()) out.push_back({fact.location, message});
  for (const auto& w : fact.written_at) out.push_back(w);
  return out;
}

Finding finding_at(const Fact& at, std::string message, std::string help, const Fact* other,
                   const std::string& note) {
  Finding f;
  f.location = at.location;
  f.message = std::move(message);
  f.help = std::move(help);
  if (other && other->location.in_file() && other->location.range != at.location.range)
    f.related = related_locations(*other, note);
  return f;
}

std::optional<FixChange> environment_change(const Job& job, const Fact* existing, std::string_view name,
                                            const Value& value) {
  if (existing && existing->location.in_file() && existing->value.is_known()) {
    Value to = value;
    // A variable read as text stays text: "1" -> "0".
    if (existing->value.kind() == Value::Kind::kString && value.as_int())
      to = Value::string(std::to_string(*value.as_int()));
    return set_value(*existing, std::move(to));
  }
  if (existing || job.launch() == LaunchKind::kNone || !job.range().valid()) return std::nullopt;
  return insert_line_before(Location{job.path(), job.range()},
                            fmt::format("export {}={}", name, value.to_string()));
}

std::string describe_gpu(const Job& job) {
  std::string gpu = job.cluster().gpu;
  for (char& c : gpu) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (job.cluster_chosen()) return fmt::format("{} GPU (the {} profile)", gpu, job.cluster().name);
  return fmt::format("{} GPU (assumed: the default {} profile; --cluster names the real one)", gpu,
                     job.cluster().name);
}

namespace {

// The Megatron-LM flag that sets `key` to a value (not an inverted one such as --disable-bias-linear),
// when the settings catalogue knows it as a training flag: --sequence-parallel, --num-experts.
std::optional<std::string> megatron_flag(Key key) {
  for (const std::string& flag : megatron_flags_for(key))
    if (is_training_flag(flag)) return flag;
  return std::nullopt;
}

std::string python_literal(const Value& v) {
  if (auto b = v.as_bool()) return *b ? "True" : "False";
  if (v.kind() == Value::Kind::kNull) return "None";
  if (v.kind() == Value::Kind::kString) return fmt::format("\"{}\"", v.text());
  return v.to_string();
}

std::string yaml_literal(const Value& v) {
  if (auto b = v.as_bool()) return *b ? "true" : "false";
  if (v.kind() == Value::Kind::kNull) return "null";
  return v.to_string();
}

// "model." of "model.tensor_model_parallel_size"; empty when the spelling has no section.
std::string section_prefix(const std::string& spelling) {
  auto dot = spelling.rfind('.');
  return dot == std::string::npos ? std::string() : spelling.substr(0, dot + 1);
}

}  // namespace

std::string setting_phrase(const Job& job, Key key, const Value& value, const Fact* style) {
  const std::string name(key_name(key));
  const std::string neutral = fmt::format("set {} to {}", name, yaml_literal(value));
  if (!style || !style->location.in_file()) {
    style = job.fact_for_wording(key);
    for (Key k : {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize, Key::kContextParallelSize,
                  Key::kExpertModelParallelSize})
      if (!style) style = job.fact_for_wording(k);
  }
  if (!style) return neutral;
  // The same key's own spelling is kept as written; another key takes the style's section when both
  // live in the parallel section.
  const bool same = style->key == key;
  if (!same && !(is_parallel_layout_key(key) && is_parallel_layout_key(style->key))) return neutral;
  switch (style->origin) {
    case Origin::kMegatronFlag: {
      auto flag =
          same && style->spelling.starts_with("--") ? std::optional(style->spelling) : megatron_flag(key);
      if (!flag) return neutral;
      if (auto b = value.as_bool()) return fmt::format("{} {}", *b ? "add" : "remove", *flag);
      if (value.kind() == Value::Kind::kNull) return fmt::format("remove {}", *flag);
      return fmt::format("pass {} {}", *flag, value.to_string());
    }
    case Origin::kOverride:
      return fmt::format("set {}{}={}", section_prefix(style->spelling), name, python_literal(value));
    case Origin::kPythonAssign:  // cfg.model.x = ..., on the object the file assigns to
      return fmt::format("set {}{}{} = {}", style->receiver.empty() ? "" : style->receiver + ".",
                         section_prefix(style->spelling), name, python_literal(value));
    case Origin::kPythonKwarg:
      return fmt::format("pass {}={}", name, python_literal(value));
    case Origin::kYaml:
      return fmt::format("set {}: {}", name, yaml_literal(value));
    default:
      return neutral;
  }
}

std::string join_numbers(const std::vector<std::int64_t>& numbers, const char* last_separator) {
  std::string out;
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    if (i > 0) out += (i + 1 == numbers.size()) ? last_separator : ", ";
    out += std::to_string(numbers[i]);
  }
  return out;
}

}  // namespace parlint
