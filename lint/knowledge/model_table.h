#pragma once
// The built-in model and recipe tables (rules/data/models.yaml, recipes.yaml), embedded in the binary.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/parsed_file.h"

namespace parlint {

struct ModelInfo {
  std::string key;  // "llama3-70b"
  std::string name, source;
  // Models built by the same model code (Llama 2 to 3.2; DeepSeek-V2/V3 and the MLA models on its
  // architecture): a smoke test of one runs on the smallest recipe of its family.
  std::string family;
  std::vector<std::string> hf;
  std::int64_t layers = 0, hidden = 0, ffn = 0, heads = 0, groups = 0, kv_channels = 0, vocab = 0, seq = 0;
  bool gated = true, tied = false;
  std::int64_t experts = 0, topk = 0, moe_ffn = 0, shared = 0, dense_layers = 0, moe_every = 1;
  bool mla = false;
  std::int64_t q_lora = 0, kv_lora = 0, qk_nope = 0, qk_rope = 0, v_head = 0;
  double params_b = 0, active_b = 0;  // as published

  std::int64_t head_dim() const { return kv_channels ? kv_channels : hidden / heads; }
  std::int64_t moe_layers() const;
  bool is_moe() const { return experts > 0; }
};

struct RecipeInfo {
  std::string function, model;
  std::vector<std::string> aliases;  // legacy names the package exports it under too
  // Megatron-Bridge: "recipes" (the library) or "perf_recipes" (the benchmarks); empty for NeMo 2.
  std::string package;
  std::optional<std::int64_t> tp, pp, vpp, cp, ep, etp, seq, gbs, mbs, first_stage, last_stage;
  std::optional<bool> sp, account_for_embedding, account_for_loss;
  std::string layout, cp_comm_type;
  // NeMo 2 library recipes (rules/data/nemo_recipes.yaml): module.function, called with its defaults.
  std::string module;  // "llama3_70b" (empty: a Megatron-Bridge recipe)
  std::optional<std::int64_t> nodes, gpus_per_node;
  std::optional<bool> distributed_optimizer;
  std::vector<std::string> varies_with;  // parameters that can change the recorded values
  // Model dimensions the recipe writes itself (a Nemotron-H recipe's HybridModelProvider(num_layers=52)),
  // by canonical key name; they win over the model's row.
  std::vector<std::pair<std::string, std::int64_t>> written;
  // The layout builder it registers for the recipe runner, and the (PP, VP) pairs that builder accepts
  // (empty: no builder, or one that computes any layout).
  std::string layout_builder;
  std::vector<std::pair<std::int64_t, std::int64_t>> layout_pairs;
  std::optional<std::int64_t> gpus;  // the GPU count its name encodes (..._256gpu_b300_..._config)
  std::string hardware;              // and the GPU: "b300"
  std::string site;                  // file:line@commit the row was read from
  bool is_nemo2() const { return !module.empty(); }
  // A Megatron-Bridge recipe of a hybrid (Mamba) family: the recipes under nemotronh/ build a
  // HybridModelProvider (Nemotron-H, Nemotron Nano v2, Nemotron 3).
  bool builds_hybrid_model() const { return site.find("/nemotronh/") != std::string::npos; }
};

const std::vector<ModelInfo>& builtin_models();
const std::vector<RecipeInfo>& builtin_recipes();
// By table key ("llama3-70b", case and '_'/'.' insensitive) or Hugging Face id.
const ModelInfo* find_model(std::string_view name);
// The model a checkpoint's folder or a variant's id names (Qwen2.5-7B-Instruct is Qwen2.5 7B), or nullptr.
const ModelInfo* find_model_by_checkpoint_name(std::string_view name);
// By legacy alias or function name; a module path in front (llm.recipes.x) is ignored, except that a
// NeMo 2 recipe is found by its module and function (llm.llama3_70b.pretrain_recipe). `where` chooses
// between the library's and the benchmarks' definition of a name both packages export.
const RecipeInfo* find_recipe(std::string_view name, RecipePackage where = RecipePackage::kLauncher);

// Parameters computed from the architecture (billions): all, or those active per token.
double estimate_params_b(const ModelInfo& m, bool active);

// Facts a model contributes to a job (layers, hidden, heads, query groups, experts, ...), located nowhere
// and described by `source` ("the llama3_70b_pretrain_config recipe (Llama 3 70B)").
std::vector<Fact> model_facts(const ModelInfo& m, const std::string& source);
// The recipe's layout defaults followed by its model's facts.
std::vector<Fact> recipe_facts(const RecipeInfo& r);

}  // namespace parlint
