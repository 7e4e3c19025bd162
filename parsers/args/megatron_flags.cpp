#include "parsers/args/megatron_flags.h"

#include <algorithm>
#include <cctype>
#include <string_view>

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

// Megatron-Bridge run_recipe.py convenience options (scripts/training/run_recipe.py:203@067f987df03b on).
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

bool parse_int_text(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
}

}  // namespace

namespace {

// One option of a command line and what reading it needs: the words, where it stands (advanced past the
// value it takes), its name and a value written with it (--flag=value). Each reader takes the option
// when it is one of its own and says so.
struct Option {
  std::span<const Word> words;
  std::size_t& i;
  TrainingArgs& out;
  ArgumentFacts& facts;
  const Word& w;
  std::string_view name;
  std::optional<std::string_view> inline_value;

  // The value in the next word, unless the option has one inline or the next word is another option.
  const Word* next_value() {
    if (inline_value || i + 1 >= words.size()) return nullptr;
    const std::string& n = words[i + 1].text;
    if (n.starts_with("--") ||
        (n.size() > 1 && n[0] == '-' && !std::isdigit(static_cast<unsigned char>(n[1]))))
      return nullptr;
    return &words[++i];
  }
  // The word after position k, or "" at the end of the command line.
  std::string word_after(std::size_t k) const {
    return k + 1 < words.size() ? words[k + 1].text : std::string();
  }
  // A value that an unquoted empty variable would leave out on one path of the script.
  void note_empty_path(const Word* v) {
    if (!inline_value && v && !v->empty_when.empty()) {
      std::string next = word_after(i);
      if (next.empty() || next.starts_with("-")) out.missing_values.push_back({w, *v, std::move(next)});
    }
  }

  bool config_file() {
    // Hydra's short -cp/-cn are not read: Megatron-Bridge uses -cp for context parallelism.
    if (name == "--config-file" || name == "--config_file" || name == "--config-path" ||
        name == "--config_path" || name == "--config-name" || name == "--config_name") {
      if (const Word* v = inline_value ? &w : next_value()) {
        Word f = *v;
        if (inline_value) f.text = std::string(*inline_value);
        f.location = span(w.location, v->location);
        if (name.find("path") != std::string_view::npos)
          facts.config_path = f;
        else if (name.find("name") != std::string_view::npos)
          facts.config_name = f;
        else
          out.config_files.push_back(f);
      }
      return true;
    }
    return false;
  }

  bool model() {
    if (name == "--hf-model" || name == "--hf_model" || name == "--hf-model-path" ||
        name == "--hf_model_path" || name == "--hf-model-id" || name == "--hf_model_id" ||
        name == "--model-name" || name == "--model_name" ||
        name ==
            "--hf-checkpoint" /* slime: the Hugging Face checkpoint it trains (arguments.py@624b824a898a) */) {
      if (const Word* v = inline_value ? &w : next_value()) {
        out.model = *v;
        if (inline_value) out.model->text = std::string(*inline_value);
      }
      return true;
    }
    return false;
  }

  bool recompute_activations() {
    if (name == "--recompute-activations") {
      // Megatron-LM's shorthand for selective recompute.
      // --recompute-activations=<unknown>: set in some branches only.
      Value v = inline_value && w.unknown ? word_value(w, *inline_value, KeyType::kAny, false)
                                          : Value::string("selective");
      facts.flags.push_back(argument_fact(Key::kRecomputeGranularity, std::move(v), w.location,
                                          Origin::kMegatronFlag, std::string(name), w));
      return true;
    }
    return false;
  }

  // --use-checkpoint-args and its companions (store_true); --load and --pretrained-checkpoint are only
  // noted here and read on as any other flag.
  bool checkpoint_args() {
    if (name == "--use-checkpoint-args" || name == "--use_checkpoint_args") {
      out.checkpoint_args = w;
      return true;
    }
    if (name == "--use-mp-args-from-checkpoint-args" || name == "--use_mp_args_from_checkpoint_args") {
      out.mp_args_from_checkpoint = true;
      return true;
    }
    if (name == "--load" || name == "--pretrained-checkpoint" || name == "--pretrained_checkpoint")
      out.loads_checkpoint = true;
    return false;
  }

  // Megatron-Bridge's run_recipe.py: --recipe NAME, or --model STEM --mode MODE.
  bool recipe() {
    if (name == "--recipe" || name == "--model" || name == "--mode") {
      if (const Word* v = inline_value ? &w : next_value()) {
        auto& slot = name == "--recipe" ? out.recipe : name == "--model" ? out.recipe_stem : out.mode;
        slot = *v;
        if (inline_value) slot->text = std::string(*inline_value);
      }
      return true;
    }
    return false;
  }

  bool shorthand() {
    if (auto key = shorthand_key(name)) {
      // A switch spelled as its field (--sequence_parallel, --use_distributed_optimizer, as forks and
      // dataclass front ends take them) is store_true unless a boolean follows it.
      if (key_type(*key) == KeyType::kBool && !inline_value) {
        std::string next = word_after(i);
        bool literal = next == "true" || next == "false" || next == "True" || next == "False" ||
                       next == "1" || next == "0";
        if (!literal) {
          facts.shorthands.push_back(argument_fact(*key, Value::boolean(true), w.location,
                                                   Origin::kLauncherFlag, std::string(name), w));
          return true;
        }
      }
      const Word* v = inline_value ? &w : next_value();
      if (!v) {
        out.missing_values.push_back({w, std::nullopt, word_after(i)});
        return true;
      }
      note_empty_path(v);
      std::string_view text = inline_value ? *inline_value : std::string_view(v->text);
      facts.shorthands.push_back(argument_fact(*key, word_value(*v, text, key_type(*key), false),
                                               span(w.location, v->location), Origin::kLauncherFlag,
                                               std::string(name), *v));
      return true;
    }
    return false;
  }

  bool megatron_flag() {
    if (auto match = match_megatron_flag(name)) {
      out.megatron_flags = true;
      KeyType type = key_type(match->key);
      if (type == KeyType::kBool && !inline_value) {
        // store_true flags carry no value: presence means true (false for --disable-*).
        facts.flags.push_back(argument_fact(match->key, Value::boolean(!match->inverted), w.location,
                                            Origin::kMegatronFlag, std::string(name), w));
        return true;
      }
      const Word* v = inline_value ? &w : next_value();
      if (!v) {
        // No value follows (an unquoted variable that is empty expands to no word): argparse refuses the
        // command line, so the framework's default is not what runs either.
        facts.flags.push_back(argument_fact(
            match->key, Value::unknown(std::string(name) + " has no value here; argparse refuses it"),
            w.location, Origin::kMegatronFlag, std::string(name), w));
        out.missing_values.push_back({w, std::nullopt, word_after(i)});
        return true;
      }
      note_empty_path(v);
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
        facts.flags.push_back(argument_fact(match->key, std::move(value), span(w.location, last->location),
                                            Origin::kMegatronFlag, std::string(name), *v));
        return true;
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
        facts.flags.push_back(argument_fact(match->key, std::move(value), span(w.location, last->location),
                                            Origin::kMegatronFlag, std::string(name), *v));
        return true;
      }
      facts.flags.push_back(argument_fact(match->key, std::move(value), span(w.location, v->location),
                                          Origin::kMegatronFlag, std::string(name), *v));
      return true;
    }
    return false;
  }

  // A flag of no framework parlint reads: a lookalike for PL801, and the value it may take.
  void other_flag() {
    if (name.starts_with("--")) {
      if (is_deepspeed_flag(name)) out.deepspeed = true;
      // Per-module parallelism (Megatron-LM's MIMO examples: --llm-tp 2 --encoder-tp 2 --llm-ep 2): the
      // one-layout sizes parlint reasons about are not what runs, so they are unknown, not defaults.
      if (auto size = per_module_size(name)) {
        Fact f = argument_fact(*size,
                               Value::unknown("set per module by " + std::string(name) +
                                              " (heterogeneous parallelism, which parlint does not model)"),
                               w.location, Origin::kMegatronFlag, std::string(name), w);
        f.priority = 0;
        facts.flags.push_back(std::move(f));
      }
      out.unrecognized.push_back({std::string(name), w.location, true});
      // An unknown flag's value, if it has one, is the next word unless that is an override.
      if (!inline_value && i + 1 < words.size() && !words[i + 1].text.starts_with("-") &&
          words[i + 1].text.find('=') == std::string::npos &&
          words[i + 1].text.find(".py") == std::string::npos)
        ++i;
    }
  }
};

}  // namespace

std::size_t read_option(std::span<const Word> words, std::size_t i, TrainingArgs& out, ArgumentFacts& facts) {
  const Word& w = words[i];
  std::string_view t = w.text;
  std::string_view name = t;
  std::optional<std::string_view> inline_value;
  if (auto eq = t.find('='); eq != std::string_view::npos && t.starts_with("--")) {
    name = t.substr(0, eq);
    inline_value = t.substr(eq + 1);
  }
  Option o{words, i, out, facts, w, name, inline_value};
  if (o.config_file() || o.model() || o.checkpoint_args() || o.recompute_activations() || o.recipe() ||
      o.shorthand() || o.megatron_flag())
    return i;
  o.other_flag();
  return i;
}

}  // namespace parlint
