#include "lint/model_table.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

extern const std::string_view kModelsYaml;
extern const std::string_view kRecipesYaml;

namespace parlint {
namespace {

std::string normalize(std::string_view s) {
  std::string out;
  for (char c : s) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += (l == '_') ? '-' : l;
  }
  return out;
}

std::int64_t get(const YAML::Node& n, const char* key, std::int64_t def = 0) {
  return n[key] ? n[key].as<std::int64_t>() : def;
}

std::optional<std::int64_t> opt(const YAML::Node& n, const char* key) {
  if (!n[key]) return std::nullopt;
  return n[key].as<std::int64_t>();
}

std::optional<bool> opt_bool(const YAML::Node& n, const char* key) {
  if (!n[key]) return std::nullopt;
  return n[key].as<bool>();
}

std::vector<ModelInfo> load_models() {
  std::vector<ModelInfo> out;
  YAML::Node root = YAML::Load(std::string(kModelsYaml));
  for (const auto& kv : root["models"]) {
    const YAML::Node& n = kv.second;
    ModelInfo m;
    m.key = kv.first.as<std::string>();
    m.name = n["name"].as<std::string>();
    m.source = n["source"].as<std::string>();
    if (n["hf"])
      for (const auto& h : n["hf"]) m.hf.push_back(h.as<std::string>());
    m.layers = get(n, "layers");
    m.hidden = get(n, "hidden");
    m.ffn = get(n, "ffn");
    m.heads = get(n, "heads");
    m.groups = get(n, "groups", m.heads);
    m.kv_channels = get(n, "kv_channels");
    m.vocab = get(n, "vocab");
    m.seq = get(n, "seq");
    m.gated = n["gated"] ? n["gated"].as<bool>() : true;
    m.tied = n["tied"] ? n["tied"].as<bool>() : false;
    m.experts = get(n, "experts");
    m.topk = get(n, "topk");
    m.moe_ffn = get(n, "moe_ffn");
    m.shared = get(n, "shared");
    m.dense_layers = get(n, "dense_layers");
    m.moe_every = get(n, "moe_every", 1);
    if (n["mla"]) {
      m.mla = true;
      m.q_lora = get(n["mla"], "q_lora");
      m.kv_lora = get(n["mla"], "kv_lora");
      m.qk_nope = get(n["mla"], "qk_nope");
      m.qk_rope = get(n["mla"], "qk_rope");
      m.v_head = get(n["mla"], "v_head");
    }
    m.params_b = n["params_b"].as<double>();
    m.active_b = n["active_b"].as<double>();
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<RecipeInfo> load_recipes() {
  std::vector<RecipeInfo> out;
  YAML::Node root = YAML::Load(std::string(kRecipesYaml));
  for (const auto& n : root["recipes"]) {
    RecipeInfo r;
    if (n["alias"]) r.alias = n["alias"].as<std::string>();
    r.function = n["function"].as<std::string>();
    r.model = n["model"].as<std::string>();
    r.tp = opt(n, "tp");
    r.pp = opt(n, "pp");
    r.vpp = opt(n, "vpp");
    r.cp = opt(n, "cp");
    r.ep = opt(n, "ep");
    r.etp = opt(n, "etp");
    r.seq = opt(n, "seq");
    r.gbs = opt(n, "gbs");
    r.mbs = opt(n, "mbs");
    r.first_stage = opt(n, "first_stage");
    r.last_stage = opt(n, "last_stage");
    r.sp = opt_bool(n, "sp");
    r.account_for_embedding = opt_bool(n, "account_for_embedding");
    r.account_for_loss = opt_bool(n, "account_for_loss");
    if (n["layout"]) r.layout = n["layout"].as<std::string>();
    if (n["cp_comm_type"]) r.cp_comm_type = n["cp_comm_type"].as<std::string>();
    out.push_back(std::move(r));
  }
  return out;
}

Fact table_fact(Key key, Value v, const std::string& source) {
  Fact f;
  f.key = key;
  f.value = std::move(v);
  f.origin = Origin::kRecipeDefault;
  f.spelling = source;
  f.priority = 0;  // anything written in a file wins
  return f;
}

}  // namespace

std::int64_t ModelInfo::moe_layers() const {
  if (!is_moe()) return 0;
  std::int64_t candidates = layers - dense_layers;
  return moe_every > 1 ? candidates / moe_every : candidates;
}

const std::vector<ModelInfo>& builtin_models() {
  static const std::vector<ModelInfo> models = load_models();
  return models;
}

const std::vector<RecipeInfo>& builtin_recipes() {
  static const std::vector<RecipeInfo> recipes = load_recipes();
  return recipes;
}

const ModelInfo* find_model(std::string_view name) {
  std::string n = normalize(name);
  for (const auto& m : builtin_models()) {
    if (normalize(m.key) == n) return &m;
    for (const auto& h : m.hf)
      if (normalize(h) == n) return &m;
  }
  return nullptr;
}

const RecipeInfo* find_recipe(std::string_view name) {
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
  for (const auto& r : builtin_recipes())
    if (r.alias == name || r.function == name) return &r;
  return nullptr;
}

double estimate_params_b(const ModelInfo& m, bool active) {
  const double h = static_cast<double>(m.hidden);
  double attention;
  if (m.mla) {
    double q = m.q_lora ? h * m.q_lora + static_cast<double>(m.q_lora) * m.heads * (m.qk_nope + m.qk_rope)
                        : h * m.heads * (m.qk_nope + m.qk_rope);
    double kv =
        h * (m.kv_lora + m.qk_rope) + static_cast<double>(m.kv_lora) * m.heads * (m.qk_nope + m.v_head);
    attention = q + kv + static_cast<double>(m.heads) * m.v_head * h;
  } else {
    double d = static_cast<double>(m.head_dim());
    attention = 2 * h * m.heads * d + 2 * h * m.groups * d;  // Q and O, K and V
  }
  auto mlp = [&](std::int64_t ffn) { return (m.gated ? 3.0 : 2.0) * h * static_cast<double>(ffn); };
  std::int64_t moe = m.moe_layers(), dense = m.layers - moe;
  double experts_used = active ? static_cast<double>(m.topk) : static_cast<double>(m.experts);
  double total = m.layers * attention + dense * mlp(m.ffn) + moe * (experts_used + m.shared) * mlp(m.moe_ffn);
  // Embeddings: the output projection counts once; an untied input table counts too (not as active compute).
  double embedding = static_cast<double>(m.vocab) * h;
  total += embedding;
  if (!m.tied && !active) total += embedding;
  return total / 1e9;
}

std::vector<Fact> model_facts(const ModelInfo& m, const std::string& source) {
  std::vector<Fact> f;
  f.push_back(table_fact(Key::kNumLayers, Value::integer(m.layers), source));
  f.push_back(table_fact(Key::kHiddenSize, Value::integer(m.hidden), source));
  if (m.ffn) f.push_back(table_fact(Key::kFfnHiddenSize, Value::integer(m.ffn), source));
  f.push_back(table_fact(Key::kNumAttentionHeads, Value::integer(m.heads), source));
  f.push_back(table_fact(Key::kNumQueryGroups, Value::integer(m.groups), source));
  if (m.kv_channels) f.push_back(table_fact(Key::kKvChannels, Value::integer(m.kv_channels), source));
  f.push_back(table_fact(Key::kVocabSize, Value::integer(m.vocab), source));
  f.push_back(table_fact(Key::kShareEmbeddingsAndOutputWeights, Value::boolean(m.tied), source));
  if (m.is_moe()) {
    f.push_back(table_fact(Key::kNumMoeExperts, Value::integer(m.experts), source));
    f.push_back(table_fact(Key::kMoeRouterTopk, Value::integer(m.topk), source));
    f.push_back(table_fact(Key::kMoeFfnHiddenSize, Value::integer(m.moe_ffn), source));
  } else {
    f.push_back(table_fact(Key::kNumMoeExperts, Value::null(), source + " has no experts"));
  }
  return f;
}

std::vector<Fact> recipe_facts(const RecipeInfo& r) {
  std::string source = "the " + (r.alias.empty() ? r.function : r.alias) + " recipe";
  std::vector<Fact> f;
  if (const ModelInfo* m = find_model(r.model)) f = model_facts(*m, source + " (" + m->name + ")");
  auto add = [&](Key k, const auto& v) {
    if (v) f.push_back(table_fact(k, Value::integer(*v), source));
  };
  add(Key::kTensorModelParallelSize, r.tp);
  add(Key::kPipelineModelParallelSize, r.pp);
  add(Key::kVirtualPipelineModelParallelSize, r.vpp);
  add(Key::kContextParallelSize, r.cp);
  add(Key::kExpertModelParallelSize, r.ep);
  add(Key::kExpertTensorParallelSize, r.etp);
  add(Key::kSeqLength, r.seq);
  add(Key::kGlobalBatchSize, r.gbs);
  add(Key::kMicroBatchSize, r.mbs);
  add(Key::kNumLayersInFirstPipelineStage, r.first_stage);
  add(Key::kNumLayersInLastPipelineStage, r.last_stage);
  if (r.sp) f.push_back(table_fact(Key::kSequenceParallel, Value::boolean(*r.sp), source));
  // Every recipe inherits _pretrain_common, which turns the distributed optimizer on (recipes/common.py).
  f.push_back(table_fact(Key::kUseDistributedOptimizer, Value::boolean(true), source));
  if (r.account_for_embedding)
    f.push_back(table_fact(Key::kAccountForEmbeddingInPipelineSplit, Value::boolean(*r.account_for_embedding),
                           source));
  if (r.account_for_loss)
    f.push_back(table_fact(Key::kAccountForLossInPipelineSplit, Value::boolean(*r.account_for_loss), source));
  if (!r.layout.empty())
    f.push_back(table_fact(Key::kPipelineModelParallelLayout,
                           Value::string("set by the recipe's layout builder"), source));
  if (!r.cp_comm_type.empty())
    f.push_back(table_fact(Key::kCpCommType, Value::string(r.cp_comm_type), source));
  return f;
}

}  // namespace parlint
