#include "parsers/training_args.h"

#include <algorithm>
#include <charconv>

#include "lint/setting_list.h"
#include "parsers/omegaconf.h"

namespace parlint {
namespace {

// Flags only Megatron-DeepSpeed (microsoft/Megatron-DeepSpeed, megatron/arguments.py) and the DeepSpeed
// library it registers (deepspeed.add_config_arguments) take: the launch runs Megatron-DeepSpeed.
// `--llm-tp`, `--encoder-pp`, `--vision-cp`, `--llm-ep`, `--llm-expt-tp`: the layout key a per-module size
// stands for.
std::optional<Key> per_module_size(std::string_view name) {
  for (std::string_view module : {"--llm-", "--encoder-", "--vision-", "--language-", "--decoder-"}) {
    if (!name.starts_with(module)) continue;
    std::string_view size = name.substr(module.size());
    if (size == "tp") return Key::kTensorModelParallelSize;
    if (size == "pp") return Key::kPipelineModelParallelSize;
    if (size == "cp") return Key::kContextParallelSize;
    if (size == "ep") return Key::kExpertModelParallelSize;
    if (size == "expt-tp" || size == "etp") return Key::kExpertTensorParallelSize;
  }
  return std::nullopt;
}

bool is_deepspeed_flag(std::string_view name) {
  for (std::string_view f :
       {"--deepspeed", "--deepspeed_config", "--deepspeed-config", "--deepscale", "--deepscale_config",
        "--deepspeed_mpi", "--zero-stage", "--ds-sequence-parallel-size", "--no-pipeline-parallel",
        "--deepspeed-activation-checkpointing"})
    if (name == f) return true;
  return false;
}

// Megatron-Bridge run_recipe.py convenience options (reference/megatron-rules.md §9).
struct Shorthand {
  std::string_view flag;
  Key key;
};
constexpr Shorthand kShorthands[] = {
    {"-tp", Key::kTensorModelParallelSize},
    {"-pp", Key::kPipelineModelParallelSize},
    {"-cp", Key::kContextParallelSize},
    {"-vp", Key::kVirtualPipelineModelParallelSize},
    {"-ep", Key::kExpertModelParallelSize},
    {"-etp", Key::kExpertTensorParallelSize},
    {"-mb", Key::kMicroBatchSize},
    {"-gb", Key::kGlobalBatchSize},
    {"-sl", Key::kSeqLength},
    {"--tp", Key::kTensorModelParallelSize},
    {"--pp", Key::kPipelineModelParallelSize},
    {"--cp", Key::kContextParallelSize},
    {"--vp", Key::kVirtualPipelineModelParallelSize},
    {"--ep", Key::kExpertModelParallelSize},
    {"--etp", Key::kExpertTensorParallelSize},
};

std::optional<Key> shorthand_key(std::string_view flag) {
  for (const auto& s : kShorthands)
    if (s.flag == flag) return s.key;
  // --tensor_model_parallel_size style (underscores): the field name itself.
  if (flag.starts_with("--") && flag.find('_') != std::string_view::npos) {
    auto key = key_from_name(flag.substr(2));
    if (key && *key < Key::kNodes) return key;
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_int_text(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
}

// A location from the start of `a` to the end of `b` when both are on one line of one file.
Location span(const Location& a, const Location& b) {
  if (a.path == b.path && a.range.valid() && b.range.valid() && a.range.start.line == b.range.start.line &&
      b.range.end >= a.range.end)
    return {a.path, {a.range.start, b.range.end}};
  return a;
}

Value word_value(const Word& w, std::string_view text, KeyType type, bool inverted) {
  if (w.unknown) return Value::unknown(w.unknown_reason.empty() ? "set at run time" : w.unknown_reason);
  Value v = hydra_value(text);
  if (type == KeyType::kBool && v.kind() == Value::Kind::kString) {
    if (v.text() == "yes" || v.text() == "on") v = Value::boolean(true);
    if (v.text() == "no" || v.text() == "off") v = Value::boolean(false);
  }
  if (inverted && v.as_bool()) v = Value::boolean(!*v.as_bool());
  return v;
}

Fact make_fact(Key key, Value value, Location loc, Origin origin, std::string spelling,
               const Word& value_word) {
  Fact f;
  f.key = key;
  f.value = std::move(value);
  f.location = std::move(loc);
  f.origin = origin;
  f.spelling = std::move(spelling);
  f.weak = value_word.weak;
  f.weak_note = value_word.weak_note;
  // The value's own text written elsewhere (TP=16 expanded into --tensor-model-parallel-size $TP, a
  // branch of an if that built the options string): where it was written comes first.
  if (value_word.location.in_file() && value_word.location.range.start.line != f.location.range.start.line)
    f.written_at.push_back({value_word.location, "value written here"});
  for (const auto& w : value_word.written_at)
    if (!(w.location.path == value_word.location.path && w.location.range == value_word.location.range))
      f.written_at.push_back(w);
  return f;
}

}  // namespace

Value hydra_value(std::string_view text) {
  std::string_view s = trim(text);
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    return Value::string(std::string(s.substr(1, s.size() - 2)));
  if (s.find("${") != std::string_view::npos)
    return Value::unknown("Hydra interpolation, resolved at run time");
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
    std::vector<Value> items;
    std::string_view body = s.substr(1, s.size() - 2);
    int depth = 0;
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= body.size(); ++i) {
      if (i < body.size() && (body[i] == '[' || body[i] == '{')) ++depth;
      if (i < body.size() && (body[i] == ']' || body[i] == '}')) --depth;
      if (i == body.size() || (body[i] == ',' && depth == 0)) {
        std::string_view item = trim(body.substr(begin, i - begin));
        if (!item.empty()) items.push_back(hydra_value(item));
        begin = i + 1;
      }
    }
    return Value::list(std::move(items));
  }
  return scalar_value(s, false);
}

TrainingArgs parse_training_args(std::span<const Word> words) {
  TrainingArgs out;
  std::vector<Fact> shorthands, flags, overrides;
  std::optional<Word> config_path, config_name;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    std::string_view t = w.text;
    if (t.size() > 1 && t[0] == '-' && !(t.size() > 1 && std::isdigit(static_cast<unsigned char>(t[1])))) {
      std::string_view name = t;
      std::optional<std::string_view> inline_value;
      if (auto eq = t.find('='); eq != std::string_view::npos && t.starts_with("--")) {
        name = t.substr(0, eq);
        inline_value = t.substr(eq + 1);
      }
      auto next_value = [&]() -> const Word* {
        if (inline_value || i + 1 >= words.size()) return nullptr;
        const std::string& n = words[i + 1].text;
        if (n.starts_with("--") ||
            (n.size() > 1 && n[0] == '-' && !std::isdigit(static_cast<unsigned char>(n[1]))))
          return nullptr;
        return &words[++i];
      };
      // Hydra's short -cp/-cn are not read: Megatron-Bridge uses -cp for context parallelism.
      if (name == "--config-file" || name == "--config_file" || name == "--config-path" ||
          name == "--config_path" || name == "--config-name" || name == "--config_name") {
        if (const Word* v = inline_value ? &w : next_value()) {
          Word f = *v;
          if (inline_value) f.text = std::string(*inline_value);
          f.location = span(w.location, v->location);
          if (name.find("path") != std::string_view::npos)
            config_path = f;
          else if (name.find("name") != std::string_view::npos)
            config_name = f;
          else
            out.config_files.push_back(f);
        }
        continue;
      }
      if (name == "--hf-model" || name == "--hf_model" || name == "--hf-model-path" ||
          name == "--hf_model_path" || name == "--hf-model-id" || name == "--hf_model_id" ||
          name == "--model-name" || name == "--model_name") {
        if (const Word* v = inline_value ? &w : next_value()) {
          out.model = *v;
          if (inline_value) out.model->text = std::string(*inline_value);
        }
        continue;
      }
      if (name == "--recompute-activations") {
        // Megatron-LM's shorthand for selective recompute.
        // --recompute-activations=<unknown>: set in some branches only.
        Value v = inline_value && w.unknown ? word_value(w, *inline_value, KeyType::kAny, false)
                                            : Value::string("selective");
        flags.push_back(make_fact(Key::kRecomputeGranularity, std::move(v), w.location, Origin::kMegatronFlag,
                                  std::string(name), w));
        continue;
      }
      if (name == "--recipe") {
        if (const Word* v = inline_value ? &w : next_value()) {
          out.recipe = *v;
          if (inline_value) out.recipe->text = std::string(*inline_value);
        }
        continue;
      }
      if (auto key = shorthand_key(name)) {
        const Word* v = inline_value ? &w : next_value();
        if (!v) continue;
        std::string_view text = inline_value ? *inline_value : std::string_view(v->text);
        shorthands.push_back(make_fact(*key, word_value(*v, text, key_type(*key), false),
                                       span(w.location, v->location), Origin::kLauncherFlag,
                                       std::string(name), *v));
        continue;
      }
      if (auto match = match_megatron_flag(name)) {
        out.megatron_flags = true;
        KeyType type = key_type(match->key);
        if (type == KeyType::kBool && !inline_value) {
          // store_true flags carry no value: presence means true (false for --disable-*).
          flags.push_back(make_fact(match->key, Value::boolean(!match->inverted), w.location,
                                    Origin::kMegatronFlag, std::string(name), w));
          continue;
        }
        const Word* v = inline_value ? &w : next_value();
        if (!v) {
          // No value follows (bash -c "cmd ${ARGS[@]}" passes only the first element's words): argparse
          // refuses the command line, so the framework's default is not what runs either.
          flags.push_back(make_fact(
              match->key, Value::unknown(std::string(name) + " has no value here; argparse refuses it"),
              w.location, Origin::kMegatronFlag, std::string(name), w));
          continue;
        }
        std::string_view text = inline_value ? *inline_value : std::string_view(v->text);
        Value value = word_value(*v, text, type, match->inverted);
        // Megatron-DeepSpeed's --num-experts takes one count per layer group (PR-MoE: 64 64 128).
        if (match->key == Key::kNumMoeExperts && !inline_value) {
          const Word* last = v;
          bool same = true;
          while (i + 1 < words.size() && !words[i + 1].unknown && parse_int_text(words[i + 1].text)) {
            last = &words[++i];
            same = same && last->text == v->text;
          }
          if (!same)
            value = Value::unknown("one expert count per layer group (" + std::string(name) + " " + v->text +
                                   " ... " + last->text + ")");
          flags.push_back(make_fact(match->key, std::move(value), span(w.location, last->location),
                                    Origin::kMegatronFlag, std::string(name), *v));
          continue;
        }
        // --hierarchical-context-parallel-sizes 2 4 and --cp-comm-type a b take several values.
        if (type == KeyType::kList || match->key == Key::kCpCommType) {
          std::vector<Value> items{value};
          const Word* last = v;
          while (!inline_value && i + 1 < words.size() && !words[i + 1].text.starts_with("-") &&
                 words[i + 1].text.find('=') == std::string::npos) {
            last = &words[++i];
            items.push_back(word_value(*last, last->text, KeyType::kAny, false));
          }
          if (items.size() > 1 || type == KeyType::kList) value = Value::list(std::move(items));
          flags.push_back(make_fact(match->key, std::move(value), span(w.location, last->location),
                                    Origin::kMegatronFlag, std::string(name), *v));
          continue;
        }
        flags.push_back(make_fact(match->key, std::move(value), span(w.location, v->location),
                                  Origin::kMegatronFlag, std::string(name), *v));
        continue;
      }
      if (name.starts_with("--")) {
        if (is_deepspeed_flag(name)) out.deepspeed = true;
        // Per-module parallelism (Megatron-LM's MIMO examples: --llm-tp 2 --encoder-tp 2 --llm-ep 2): the
        // one-layout sizes parlint reasons about are not what runs, so they are unknown, not defaults.
        if (auto size = per_module_size(name)) {
          Fact f = make_fact(*size,
                             Value::unknown("set per module by " + std::string(name) +
                                            " (heterogeneous parallelism, which parlint does not model)"),
                             w.location, Origin::kMegatronFlag, std::string(name), w);
          f.priority = 0;
          flags.push_back(std::move(f));
        }
        out.unrecognized.push_back({std::string(name), w.location, true});
        // An unknown flag's value, if it has one, is the next word unless that is an override.
        if (!inline_value && i + 1 < words.size() && !words[i + 1].text.starts_with("-") &&
            words[i + 1].text.find('=') == std::string::npos &&
            words[i + 1].text.find(".py") == std::string::npos)
          ++i;
      }
      continue;
    }
    auto eq = t.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string_view key_text = t.substr(0, eq);
    // A config-group choice (training=gpt3/5b): a plain key and a value naming a file in the group folder.
    if (key_text.find('.') == std::string_view::npos && !w.unknown &&
        key_text.find('+') == std::string_view::npos &&
        t.substr(eq + 1).find('/') != std::string_view::npos && t.find("://") == std::string_view::npos &&
        !t.substr(eq + 1).starts_with("/")) {
      Word g = w;
      g.text = "group:" + std::string(key_text) + "/" + std::string(t.substr(eq + 1));
      out.config_files.push_back(std::move(g));
      continue;
    }
    if (key_text.starts_with("~")) continue;  // deletion: the key falls back to its default
    while (key_text.starts_with("+")) key_text.remove_prefix(1);
    std::vector<std::string> path;
    std::size_t begin = 0;
    while (true) {
      auto dot = key_text.find('.', begin);
      path.emplace_back(key_text.substr(begin, dot == std::string_view::npos ? dot : dot - begin));
      if (dot == std::string_view::npos) break;
      begin = dot + 1;
    }
    if (std::any_of(path.begin(), path.end(), [](const std::string& p) {
          return p.empty() || !std::all_of(p.begin(), p.end(), [](char c) {
                   return std::isalnum((unsigned char)c) || c == '_' || c == '-';
                 });
        }))
      continue;  // not an override (a URL, an environment assignment passed through, ...)
    out.hydra_overrides = true;
    auto match = match_config_path(path);
    if (!match) {
      out.unrecognized.push_back({std::string(key_text), w.location, false});
      continue;
    }
    Key key = match->key;
    if (path.size() >= 2 && path[path.size() - 2] == "trainer") out.lightning_trainer = true;
    overrides.push_back(make_fact(key, word_value(w, t.substr(eq + 1), key_type(key), match->inverted),
                                  w.location, Origin::kOverride, std::string(key_text), w));
    overrides.back().priority = match->priority;
  }
  if (config_name) {
    Word f = *config_name;
    std::string dir = config_path ? config_path->text : std::string(".");
    f.text = dir + "/" + f.text;
    out.config_files.push_back(std::move(f));
  }
  // Trailing key=value overrides win over shorthands (run_recipe.py appends them last).
  SettingList settings;
  for (auto* group : {&shorthands, &flags, &overrides})
    for (auto& f : *group) settings.add(std::move(f), SettingList::Source::kWritten);
  out.conflicts = settings.take_conflicts();
  out.facts = settings.take_facts();
  return out;
}

}  // namespace parlint
