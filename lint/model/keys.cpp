#include "lint/model/keys.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace parlint {
namespace {

struct KeyInfo {
  std::string_view name;
  KeyType type;
};

constexpr std::array<KeyInfo, kKeyCount> kKeyInfo = {{
#define PARLINT_KEY_INFO(id, name, type) {name, KeyType::type},
    PARLINT_KEYS(PARLINT_KEY_INFO)
#undef PARLINT_KEY_INFO
}};

// Leaf spellings in configuration files that are not the canonical name.
struct Alias {
  std::string_view spelling;
  Key key;
  bool inverted = false;
};
constexpr Alias kConfigAliases[] = {
    {"encoder_seq_length", Key::kSeqLength},      // NeMo 1
    {"num_experts", Key::kNumMoeExperts},         // older NeMo 1 / Megatron-LM dumps
    {"ub_tp_comm_overlap", Key::kTpCommOverlap},  // NeMo 1
    {"num_gpus_per_node", Key::kGpusPerNode},
    {"num_nodes", Key::kNodes},
    // NeMo 2 / Megatron-Bridge v0.1 recipe parameters (syntax-in-the-wild.md §7).
    {"tensor_parallelism", Key::kTensorModelParallelSize},
    {"pipeline_parallelism", Key::kPipelineModelParallelSize},
    {"virtual_pipeline_parallelism", Key::kVirtualPipelineModelParallelSize},
    {"context_parallelism", Key::kContextParallelSize},
    {"sequence_parallelism", Key::kSequenceParallel},
    {"expert_parallelism", Key::kExpertModelParallelSize},
    {"expert_tensor_parallelism", Key::kExpertTensorParallelSize},
    {"activations_checkpoint_granularity", Key::kRecomputeGranularity},  // NeMo 1
    // Megatron-LM argument dumps spell the opposite of Megatron-Core's field.
    {"untie_embeddings_and_output_weights", Key::kShareEmbeddingsAndOutputWeights, true},
    {"disable_bias_linear", Key::kAddBiasLinear, true},
    // Megatron-LM argument names (config files that spell the arguments, argument dumps).
    {"decoder_first_pipeline_num_layers", Key::kNumLayersInFirstPipelineStage},
    {"decoder_last_pipeline_num_layers", Key::kNumLayersInLastPipelineStage},
    {"num_virtual_stages_per_pipeline_rank", Key::kVirtualPipelineModelParallelSize},
    // The deprecated name of the hybrid pattern (Megatron-LM arguments.py:748-753, Bridge's
    // HybridModelProvider, NeMo 1's Mamba config).
    {"hybrid_override_pattern", Key::kHybridLayerPattern},
    // Megatron-Bridge's rerun_state_machine.check_for_nan_in_loss (Megatron-LM's
    // --no-check-for-nan-in-loss-and-grad).
    {"check_for_nan_in_loss", Key::kCheckForNanInLossAndGrad},
};

// Megatron-LM flags whose field name differs from the flag (arguments.py).
struct FlagAlias {
  std::string_view flag;
  Key key;
  bool inverted;
};
constexpr FlagAlias kFlagAliases[] = {
    {"--num-experts", Key::kNumMoeExperts, false},
    // Megatron-DeepSpeed's DeepSpeed-MoE expert parallelism (its arguments.py; Megatron-LM has none).
    {"--moe-expert-parallel-size", Key::kExpertModelParallelSize, false},
    {"--seq-length", Key::kSeqLength, false},
    {"--encoder-seq-length", Key::kSeqLength, false},
    {"--decoder-first-pipeline-num-layers", Key::kNumLayersInFirstPipelineStage, false},
    {"--decoder-last-pipeline-num-layers", Key::kNumLayersInLastPipelineStage, false},
    {"--disable-bias-linear", Key::kAddBiasLinear, true},
    {"--microbatch-group-size-per-virtual-pipeline-stage", Key::kMicrobatchGroupSizePerVpStage, false},
    {"--num-virtual-stages-per-pipeline-rank", Key::kVirtualPipelineModelParallelSize, false},
    {"--untie-embeddings-and-output-weights", Key::kShareEmbeddingsAndOutputWeights, true},
    {"--hybrid-override-pattern", Key::kHybridLayerPattern, false},
    {"--no-check-for-nan-in-loss-and-grad", Key::kCheckForNanInLossAndGrad, true},
    {"--no-overlap-p2p-communication", Key::kOverlapP2pComm, true},
};

// Keys that are read from config files under these sections (after an optional package prefix such
// as NeMo-Framework-Launcher's `training.`). Other sections (exp_manager, logger, checkpoint) are not
// parallel settings and are ignored.
bool section_holds_settings(std::span<const std::string> s) {
  auto is = [&](std::initializer_list<std::string_view> want) {
    return s.size() == want.size() && std::equal(s.begin(), s.end(), want.begin());
  };
  return s.empty() || is({"model"}) || is({"model", "config"}) || is({"trainer", "strategy"}) ||
         is({"strategy"}) || is({"parallelism"}) || is({"train"}) || is({"dataset"}) || is({"data"}) ||
         is({"ddp"}) || is({"optimizer"}) || is({"dist"}) || is({"comm_overlap"}) || is({"model", "data"}) ||
         is({"checkpoint"}) || is({"rerun_state_machine"});
}

bool is_env_section(std::string_view s) {
  return s == "env_vars" || s == "ENV_VARS" || s == "MODEL_ENV_VARS" || s == "env";
}

}  // namespace

bool is_environment_variable(Key key) {
  return key >= Key::kCudaDeviceMaxConnections;  // the last keys of the schema (keys.h)
}

std::span<const Key> environment_variable_keys() {
  static const std::vector<Key> kKeys = [] {
    std::vector<Key> out;
    for (int k = static_cast<int>(Key::kCudaDeviceMaxConnections); k < static_cast<int>(kKeyCount); ++k)
      out.push_back(static_cast<Key>(k));
    return out;
  }();
  return kKeys;
}

Key as_launched(Key key) {
  if (key == Key::kNodes) return Key::kNnodes;
  if (key == Key::kGpusPerNode) return Key::kNprocPerNode;
  return key;
}

std::string_view key_name(Key key) {
  return kKeyInfo[static_cast<std::size_t>(key)].name;
}
KeyType key_type(Key key) {
  return kKeyInfo[static_cast<std::size_t>(key)].type;
}

// Every config key and flag of a file is looked up by name: the names sorted once, then a binary search
// (a scan of every key per lookup was a measurable share of reading a file).
std::optional<Key> key_from_name(std::string_view name) {
  static const std::array<std::pair<std::string_view, Key>, kKeyCount> sorted = [] {
    std::array<std::pair<std::string_view, Key>, kKeyCount> out{};
    for (std::size_t i = 0; i < kKeyCount; ++i) out[i] = {kKeyInfo[i].name, static_cast<Key>(i)};
    std::sort(out.begin(), out.end());
    return out;
  }();
  auto it = std::lower_bound(
      sorted.begin(), sorted.end(), name,
      [](const std::pair<std::string_view, Key>& e, std::string_view n) { return e.first < n; });
  if (it == sorted.end() || it->first != name) return std::nullopt;
  return it->second;
}

bool is_parallel_layout_key(Key key) {
  switch (key) {
    case Key::kTensorModelParallelSize:
    case Key::kPipelineModelParallelSize:
    case Key::kVirtualPipelineModelParallelSize:
    case Key::kContextParallelSize:
    case Key::kExpertModelParallelSize:
    case Key::kExpertTensorParallelSize:
    case Key::kSequenceParallel:
      return true;
    default:
      return false;
  }
}

std::optional<KeyMatch> match_megatron_flag(std::string_view flag) {
  if (!flag.starts_with("--")) return std::nullopt;
  // Argument names as their dest (--decoder_last_pipeline_num_layers): what Megatron-LM's dataclass-based
  // front ends and YAML flag lists spell.
  std::string dashed(flag);
  std::replace(dashed.begin() + 2, dashed.end(), '_', '-');
  for (const auto& a : kFlagAliases)
    if (a.flag == flag || a.flag == dashed) return KeyMatch{a.key, 1, a.inverted};
  std::string snake(flag.substr(2));
  std::replace(snake.begin(), snake.end(), '-', '_');
  auto key = key_from_name(snake);
  // Not flags in Megatron-LM: VPP has no flag of its own; launch keys belong to launchers.
  if (!key || *key == Key::kVirtualPipelineModelParallelSize || *key == Key::kPeft || *key >= Key::kNodes)
    return std::nullopt;
  return KeyMatch{*key};
}

std::vector<std::string> megatron_flags_for(Key key) {
  std::vector<std::string> out;
  std::string dashed = "--" + std::string(key_name(key));
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  if (auto m = match_megatron_flag(dashed); m && m->key == key && !m->inverted) out.push_back(dashed);
  for (const auto& a : kFlagAliases)
    if (a.key == key && !a.inverted) out.emplace_back(a.flag);
  return out;
}

// Tokenizer arguments are read from Megatron-LM's flags only: in a config object or a Python call they
// belong to a tokenizer factory (NeMo's get_nmt_tokenizer(tokenizer_model=...)), not a training job.
static bool tokenizer_argument(Key key) {
  return key == Key::kTokenizerType || key == Key::kTokenizerModel || key == Key::kVocabFile;
}

std::optional<KeyMatch> match_setting_name(std::string_view leaf) {
  if (auto key = key_from_name(leaf)) {
    if (tokenizer_argument(*key)) return std::nullopt;
    return KeyMatch{*key};
  }
  for (const auto& a : kConfigAliases)
    if (a.spelling == leaf) return KeyMatch{a.key, 1, a.inverted};
  return std::nullopt;
}

std::optional<KeyMatch> match_config_path(std::span<const std::string> path) {
  if (path.empty()) return std::nullopt;
  // NeMo-Framework-Launcher packages (`training.model.x`) and Bridge dumps rooted at ConfigContainer.
  static constexpr std::string_view kPackages[] = {"training", "fine_tuning", "peft", "ConfigContainer"};
  if (path.size() > 1 &&
      std::find(std::begin(kPackages), std::end(kPackages), path[0]) != std::end(kPackages))
    path = path.subspan(1);
  const std::string& leaf = path.back();
  auto sections = path.first(path.size() - 1);

  if (leaf.starts_with("--")) return match_megatron_flag(leaf);  // MODEL_ARGS: {--num-layers: 32}
  if (sections.size() == 1 && is_env_section(sections[0])) {
    auto key = key_from_name(leaf);
    if (key && is_environment_variable(*key)) return KeyMatch{*key};
    return std::nullopt;
  }
  if (sections.size() == 1 && sections[0] == "trainer") {
    if (leaf == "num_nodes") return KeyMatch{Key::kNodes};
    if (leaf == "devices") return KeyMatch{Key::kGpusPerNode};
    return std::nullopt;
  }
  if (!section_holds_settings(sections)) return std::nullopt;
  // NeMo 1's model.bias is Megatron-Core's add_bias_linear (megatron_gpt_config.yaml: "bias: True").
  if (leaf == "bias") {
    if (sections.size() == 1 && sections[0] == "model") return KeyMatch{Key::kAddBiasLinear};
    return std::nullopt;
  }

  std::optional<Key> key = key_from_name(leaf);
  bool inverted = false;
  if (!key)
    for (const auto& a : kConfigAliases)
      if (a.spelling == leaf) key = a.key, inverted = a.inverted;
  if (!key) return std::nullopt;
  // Launch keys are only read where launchers write them; world_size is always derived; what a checkout
  // checks is read from its source, never from a config.
  if (*key == Key::kWorldSize || *key == Key::kChecksCudaDeviceMaxConnections ||
      is_environment_variable(*key) || tokenizer_argument(*key))
    return std::nullopt;
  if ((*key == Key::kNodes || *key == Key::kGpusPerNode) && !sections.empty()) return std::nullopt;

  KeyMatch m{*key};
  m.inverted = inverted;
  if (*key == Key::kSeqLength) {
    // Megatron-Bridge copies dataset.seq_length over model.seq_length; NeMo 1's model.data.seq_length
    // normally interpolates model.encoder_seq_length and is the weaker spelling.
    if (!sections.empty() && sections[0] == "dataset") m.priority = 2;
    if (sections.size() == 2 && sections[1] == "data") m.priority = 0;
  }
  return m;
}

std::optional<Key> key_for_variable_name(std::string_view name) {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view suffix : {"_SIZE", "_DEGREE", "_DIM"})
    if (n.size() > suffix.size() && n.ends_with(suffix)) n.resize(n.size() - suffix.size());
  static constexpr std::pair<std::string_view, Key> kNames[] = {
      {"TP", Key::kTensorModelParallelSize},
      {"TENSOR_PARALLEL", Key::kTensorModelParallelSize},
      {"TENSOR_MODEL_PARALLEL", Key::kTensorModelParallelSize},
      {"PP", Key::kPipelineModelParallelSize},
      {"PIPELINE_PARALLEL", Key::kPipelineModelParallelSize},
      {"PIPELINE_MODEL_PARALLEL", Key::kPipelineModelParallelSize},
      {"CP", Key::kContextParallelSize},
      {"CONTEXT_PARALLEL", Key::kContextParallelSize},
      {"EP", Key::kExpertModelParallelSize},
      {"EXPERT_PARALLEL", Key::kExpertModelParallelSize},
      {"EXPERT_MODEL_PARALLEL", Key::kExpertModelParallelSize},
      {"ETP", Key::kExpertTensorParallelSize},
      {"EXPERT_TENSOR_PARALLEL", Key::kExpertTensorParallelSize},
      {"WORLD", Key::kWorldSize},
  };
  for (const auto& [spelling, key] : kNames)
    if (n == spelling) return key;
  if (n.find("WORLD") != std::string::npos) return Key::kWorldSize;
  if (n.find("NODE") != std::string::npos && n.find("GPU") == std::string::npos &&
      n.find("RANK") == std::string::npos)
    return Key::kNodes;
  if (n.find("GPU") != std::string::npos && n.find("PER_NODE") == std::string::npos &&
      n.find("RANK") == std::string::npos)
    return Key::kGpusPerNode;
  return std::nullopt;
}

}  // namespace parlint
