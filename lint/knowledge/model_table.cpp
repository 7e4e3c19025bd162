#include "lint/knowledge/model_table.h"

#include "lint/knowledge/builtin_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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
  static const std::vector<ModelInfo> models = generated_models();
  return models;
}

const std::vector<RecipeInfo>& builtin_recipes() {
  static const std::vector<RecipeInfo> recipes = generated_recipes();
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

// A checkpoint named by its folder or a fine-tuned variant of a known model: /models/Qwen2.5-7B-Instruct,
// meta-llama/Llama-2-7b-chat-hf. The folder's name (the Hugging Face id's model part) is compared with the
// table's ids, with the suffixes of variants that keep the base model's dimensions taken off.
const ModelInfo* find_model_by_checkpoint_name(std::string_view name) {
  while (!name.empty() && name.back() == '/') name.remove_suffix(1);
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  std::string n = normalize(name);
  // Each model's names as a folder would spell them: its key and the model part of each id, normalised.
  static const std::vector<std::pair<std::string, const ModelInfo*>> kNames = [] {
    std::vector<std::pair<std::string, const ModelInfo*>> out;
    for (const auto& m : builtin_models()) {
      out.emplace_back(normalize(m.key), &m);
      for (const auto& h : m.hf) {
        std::string_view id = h;
        if (auto slash = id.rfind('/'); slash != std::string_view::npos) id = id.substr(slash + 1);
        out.emplace_back(normalize(id), &m);
      }
    }
    return out;
  }();
  auto matches = [](const std::string& candidate) -> const ModelInfo* {
    for (const auto& [spelled, m] : kNames)
      if (spelled == candidate) return m;
    return nullptr;
  };
  for (int round = 0; round < 4 && !n.empty(); ++round) {
    if (const ModelInfo* m = matches(n)) return m;
    bool stripped = false;
    // A variant's or a conversion's suffix (Qwen3-30B-A3B-to-mcore is Pai-Megatron-Patch's Megatron copy).
    for (std::string_view suffix :
         {"-instruct", "-chat", "-base", "-it", "-hf", "-sft", "-to-mcore", "-mcore", "-megatron"})
      if (n.size() > suffix.size() && n.ends_with(suffix)) {
        n.resize(n.size() - suffix.size());
        stripped = true;
        break;
      }
    if (!stripped) break;
  }
  return nullptr;
}

const RecipeInfo* find_recipe(std::string_view name, RecipePackage where) {
  std::string_view function = name, module;
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) {
    function = name.substr(dot + 1);
    module = name.substr(0, dot);
    if (auto prev = module.rfind('.'); prev != std::string_view::npos) module = module.substr(prev + 1);
  }
  const RecipeInfo *library = nullptr, *benchmark = nullptr;
  for (const auto& r : builtin_recipes()) {
    if (r.is_nemo2()) {
      if (r.module == module && r.function == function) return &r;
      continue;
    }
    if (r.function != function && std::find(r.aliases.begin(), r.aliases.end(), function) == r.aliases.end())
      continue;
    const RecipeInfo*& slot = r.package == "perf_recipes" ? benchmark : library;
    if (!slot) slot = &r;
  }
  return choose_definition(library, benchmark, benchmark && benchmark->function == function, where);
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
  // Linear bias is the model provider's choice (Llama and Qwen have none, GPT-OSS has it), which the
  // table does not record: not Megatron-Core's default of True.
  f.push_back(table_fact(
      Key::kAddBiasLinear,
      Value::unknown("set by the model's provider; the built-in model table does not record it"), source));
  if (m.is_moe()) {
    f.push_back(table_fact(Key::kNumMoeExperts, Value::integer(m.experts), source));
    f.push_back(table_fact(Key::kMoeRouterTopk, Value::integer(m.topk), source));
    f.push_back(table_fact(Key::kMoeFfnHiddenSize, Value::integer(m.moe_ffn), source));
  } else {
    f.push_back(table_fact(Key::kNumMoeExperts, Value::null(), source + " has no experts"));
  }
  return f;
}

namespace {

// The layout and batch a recipe sets, both tables alike.
void add_layout_facts(const RecipeInfo& r, const std::string& source, std::vector<Fact>& f) {
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
}

// A NeMo 2 recipe called with its defaults: its node and GPU counts are the defaults of its num_nodes
// and num_gpus_per_node parameters, fallbacks the call's own arguments replace.
std::vector<Fact> nemo2_recipe_facts(const RecipeInfo& r) {
  std::string name = r.module + "." + r.function + "()";
  std::string source = "the NeMo 2 recipe " + name + " (" + r.site + ")";
  std::vector<Fact> f;
  add_layout_facts(r, source, f);
  if (r.distributed_optimizer)
    f.push_back(table_fact(Key::kUseDistributedOptimizer, Value::boolean(*r.distributed_optimizer), source));
  auto size = [&](Key k, const auto& v, const char* param) {
    if (!v) return;
    Fact s = table_fact(k, Value::integer(*v), source);
    s.weak = true;
    s.weak_note = fmt::format("with the default {}={} of {}", param, *v, name);
    s.spelling = param;
    f.push_back(std::move(s));
  };
  size(Key::kNodes, r.nodes, "num_nodes");
  size(Key::kGpusPerNode, r.gpus_per_node, "num_gpus_per_node");
  return f;
}

}  // namespace

std::vector<Fact> recipe_facts(const RecipeInfo& r) {
  if (r.is_nemo2()) return nemo2_recipe_facts(r);
  std::string source = "the " + (r.aliases.empty() ? r.function : r.aliases.front()) + " recipe";
  if (!r.site.empty())
    source = fmt::format("the Megatron-Bridge {} {} ({})",
                         r.package == "perf_recipes" ? "benchmark recipe" : "recipe", r.function, r.site);
  std::vector<Fact> f;
  if (const ModelInfo* m = find_model(r.model)) f = model_facts(*m, source + " (" + m->name + ")");
  for (const auto& [name, value] : r.written)
    if (auto key = key_from_name(name)) f.push_back(table_fact(*key, Value::integer(value), source));
  add_layout_facts(r, source, f);
  // Every hand-checked recipe inherits _pretrain_common, which turns the distributed optimizer on
  // (recipes/common.py); a generated row says what the recipe itself leaves it at.
  if (r.site.empty())
    f.push_back(table_fact(Key::kUseDistributedOptimizer, Value::boolean(true), source));
  else if (r.distributed_optimizer)
    f.push_back(table_fact(Key::kUseDistributedOptimizer, Value::boolean(*r.distributed_optimizer), source));
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
