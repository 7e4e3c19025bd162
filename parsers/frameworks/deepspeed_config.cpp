#include "parsers/frameworks/deepspeed_config.h"

#include <yaml-cpp/yaml.h>

#include <charconv>

namespace parlint {
namespace {

Value number(const YAML::Node& n) {
  if (!n.IsScalar()) return Value::unknown("not a number");
  const std::string& s = n.Scalar();
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && end == s.data() + s.size()) return Value::integer(v);
  if (s == "auto") return Value::unknown("\"auto\": DeepSpeed derives it from the other batch settings");
  return Value::unknown("not a number (" + s.substr(0, 40) + "), filled in before the launch");
}

}  // namespace

std::vector<Fact> deepspeed_config_facts(std::string_view text, const Location& where,
                                         const std::string& shown) {
  std::vector<Fact> out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));  // JSON is YAML
  } catch (const YAML::Exception&) {
    return out;
  }
  if (!root.IsMap()) return out;
  auto add = [&](Key key, const YAML::Node& n, const std::string& field, int priority) {
    Fact f;
    f.key = key;
    f.value = number(n);
    f.location = where;
    f.origin = Origin::kYaml;
    f.spelling = field + " in " + shown;
    f.priority = priority;
    out.push_back(std::move(f));
  };
  try {
    // DeepSpeed's engine reads the stage from the config, whatever Megatron-DeepSpeed's --zero-stage says.
    if (auto zero = root["zero_optimization"]; zero && zero.IsMap() && zero["stage"])
      add(Key::kZeroStage, zero["stage"], "zero_optimization.stage", 2);
    if (auto gbs = root["train_batch_size"]) add(Key::kGlobalBatchSize, gbs, "train_batch_size", 0);
    if (auto mbs = root["train_micro_batch_size_per_gpu"])
      add(Key::kMicroBatchSize, mbs, "train_micro_batch_size_per_gpu", 0);
  } catch (const YAML::Exception&) {
  }
  return out;
}

}  // namespace parlint
