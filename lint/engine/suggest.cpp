#include "lint/engine/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <tuple>

#include "lint/engine/pipeline.h"
#include "lint/resolve/layout_job.h"
#include "lint/resolve/memory_model.h"

namespace parlint {
namespace {

const std::vector<std::int64_t> kPowers{1, 2, 4, 8, 16, 32, 64, 128, 256};

double log2_of(double x) {
  return std::log2(std::max(1.0, x));
}

// The GPU a recipe was written for: its table's field, or the one its name states.
std::string recipe_gpu(const RecipeInfo& r) {
  if (!r.hardware.empty()) return r.hardware;
  for (const char* gpu : {"h100", "h200", "b200", "b300", "gb200", "gb300", "a100"})
    if (r.function.find(std::string("_") + gpu + "_") != std::string::npos) return gpu;
  return "";
}

// The GPUs a recipe was written for: its table's count, NeMo 2's nodes x GPUs per node, or its name's
// (..._1024gpu_h100_...); 0 when none says.
std::int64_t recipe_gpus(const RecipeInfo& r) {
  if (r.gpus) return *r.gpus;
  if (r.nodes && r.gpus_per_node) return *r.nodes * *r.gpus_per_node;
  auto at = r.function.find("gpu_");
  if (at == std::string::npos) return 0;
  auto start = r.function.rfind('_', at);
  std::string digits = r.function.substr(start == std::string::npos ? 0 : start + 1, at - (start + 1));
  if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return 0;
  return std::stoll(digits);
}

// How a published layout is named in the reasons: "Megatron-Bridge's
// llama3_70b_pretrain_32gpu_h100_bf16_config (32 H100 GPUs)", "NeMo 2's mixtral_8x7b.pretrain_recipe() (64
// GPUs)".
std::string published_name(const RecipeInfo& r) {
  if (r.is_nemo2()) return fmt::format("NeMo 2's {}.{}() ({} GPUs)", r.module, r.function, recipe_gpus(r));
  std::string gpu = recipe_gpu(r);
  for (char& c : gpu) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::int64_t gpus = recipe_gpus(r);
  return fmt::format("Megatron-Bridge's {}{}{}", r.package == "perf_recipes" ? "benchmark recipe " : "",
                     r.function, gpus ? fmt::format(" ({} {}GPUs)", gpus, gpu.empty() ? "" : gpu + " ") : "");
}

const ModelInfo* recipe_model(const RecipeInfo& r) {
  // NeMo 2 recipes name their module after the model (llama3_70b, deepseek_v3, mixtral_8x7b).
  return find_model(r.is_nemo2() ? r.module : r.model);
}

// The published recipes of the model, the likeliest fit first: written for this GPU, for this many GPUs,
// the library's before the benchmarks', bf16 before lower precisions, the base variant before the others.
std::vector<const RecipeInfo*> published_recipes(const SuggestRequest& r) {
  std::vector<const RecipeInfo*> out;
  for (const auto& recipe : builtin_recipes())
    if (recipe.tp && recipe.pp && recipe.function.find("pretrain") != std::string::npos &&
        recipe_model(recipe) == r.model)
      out.push_back(&recipe);
  auto rank = [&](const RecipeInfo* x) {
    return std::make_tuple(recipe_gpu(*x) != r.cluster.gpu, recipe_gpus(*x) != r.gpus,
                           x->package == "perf_recipes",
                           x->function.find("bf16") == std::string::npos && !x->is_nemo2(),
                           !x->function.ends_with("_bf16_config") && !x->is_nemo2());
  };
  std::stable_sort(out.begin(), out.end(), [&](auto* a, auto* b) { return rank(a) < rank(b); });
  return out;
}

// The sequence length to plan with when none is given: the one the model's published library recipes
// train with (the shortest, when they differ), else the model table's; and why.
std::int64_t assumed_seq(const ModelInfo& m, std::string& why) {
  const RecipeInfo* from = nullptr;
  for (const auto& r : builtin_recipes())
    if (r.package != "perf_recipes" && r.seq && recipe_model(r) == &m &&
        r.function.find("pretrain") != std::string::npos && (!from || *r.seq < *from->seq))
      from = &r;
  if (from) {
    std::string name =
        from->is_nemo2()
            ? fmt::format("NeMo 2's {}.{}()", from->module, from->function)
            : "Megatron-Bridge's " + (from->aliases.empty() ? from->function : from->aliases.front());
    why = fmt::format(
        "sequence length {}: not given; the one {} trains {} with{} (give --seq-length for another)",
        *from->seq, name, m.name,
        m.seq != *from->seq ? fmt::format(", not the {}-token context of the model table", m.seq) : "");
    return *from->seq;
  }
  why = fmt::format(
      "sequence length {}: not given; {}'s training length in the built-in model table (give "
      "--seq-length for another)",
      m.seq, m.name);
  return m.seq;
}

// How far a layout is from the sizing guidance (lower is better).
double guidance_cost(const ModelInfo& m, const MeshSizes& mesh, std::int64_t seq, std::int64_t domain) {
  double cost = 0;
  if (m.is_moe()) {
    // MoE: TP is sized by the active parameters and stays at 1-2; EP is the main axis, up to where each
    // GPU still holds four experts (all of them, for models with few large experts).
    if (mesh.tp > 2) cost += 3 * log2_of(static_cast<double>(mesh.tp) / 2);
    double cap = m.experts >= 32 ? static_cast<double>(m.experts) / 4 : static_cast<double>(m.experts);
    double ep = static_cast<double>(mesh.ep);
    cost -= 0.75 * log2_of(std::min(ep, cap));
    cost += 1.5 * log2_of(ep / cap);
    // A multi-node NVLink domain (NVL72) carries the all-to-all of an EP group that fits in it.
    if (domain > 8) cost += 1.5 * log2_of(ep / static_cast<double>(domain));
    // PP splits the depth across nodes; it costs a bubble, so only as deep as memory needs.
    cost += 0.5 * log2_of(static_cast<double>(mesh.pp));
  } else {
    double want_tp = m.active_b < 1 ? 1 : m.active_b < 10 ? 2 : m.active_b < 70 ? 4 : 8;
    cost += std::abs(log2_of(static_cast<double>(mesh.tp)) - log2_of(want_tp));
    cost += 0.75 * log2_of(static_cast<double>(mesh.pp));
  }
  double want_cp = seq >= 32768 ? 4 : seq >= 8192 ? 2 : 1;
  cost += std::abs(log2_of(static_cast<double>(mesh.cp)) - log2_of(want_cp));
  return cost;
}

// How a layer count that PP does not divide is split: the embedding and the loss counted as layers when
// that evens the stages (Llama 3.1 405B: 126 + 2 over 8 or 16), else the first and last stages lighter
// than the others (DeepSeek-V3's 61 over 16: 2 + 14·4 + 3). Empty when PP divides the layers.
std::vector<Fact> uneven_split(std::int64_t layers, std::int64_t pp) {
  std::vector<Fact> out;
  auto add = [&](Key k, Value v, std::string why) {
    Fact f;
    f.key = k;
    f.value = std::move(v);
    f.origin = Origin::kLauncherFlag;
    f.spelling = std::move(why);
    out.push_back(std::move(f));
  };
  if (pp <= 1 || layers % pp == 0 || layers < pp) return out;
  std::string why = fmt::format("suggested, to split {} layers over {} stages", layers, pp);
  if ((layers + 2) % pp == 0) {
    add(Key::kAccountForEmbeddingInPipelineSplit, Value::boolean(true), why);
    add(Key::kAccountForLossInPipelineSplit, Value::boolean(true), why);
    return out;
  }
  std::int64_t middle = (layers + pp - 1) / pp;  // layers on each middle stage
  std::int64_t ends = layers - (pp - 2) * middle;
  if (pp == 2) ends = layers, middle = 0;
  if (ends < 2) return out;
  std::int64_t first = ends / 2, last = ends - first;  // the last stage also holds the output layer
  if (first > last) std::swap(first, last);
  add(Key::kNumLayersInFirstPipelineStage, Value::integer(first), why);
  add(Key::kNumLayersInLastPipelineStage, Value::integer(last), why);
  return out;
}

struct Checked {
  bool ok = false;
  double memory_gib = 0;
};

class Planner {
 public:
  Planner(const SuggestRequest& r, const EngineOptions& options, std::int64_t seq)
      : r_(r), options_(options), seq_(seq) {
    options_.lint.cluster = r.cluster;
    options_.rules = *RuleSelection::make({}, {});
  }

  // The layout as `parlint plan` options and a job; `extra` are a published recipe's own pipeline facts.
  LayoutJob job(const MeshSizes& mesh, std::int64_t vpp, bool sp, const std::vector<Fact>& extra) const {
    LayoutSpec spec;
    spec.model = r_.model->key;
    spec.tp = mesh.tp;
    spec.pp = mesh.pp;
    if (vpp > 1) spec.vpp = vpp;
    spec.cp = mesh.cp;
    if (r_.model->is_moe()) {
      spec.ep = mesh.ep;
      spec.etp = mesh.etp;
    }
    spec.sequence_parallel = sp;
    spec.gpus = r_.gpus;
    spec.gpus_per_node = std::min(r_.gpus, r_.gpus_per_node);
    spec.seq = seq_;
    spec.mbs = 1;
    spec.distributed_optimizer = true;
    spec.cluster = r_.cluster_option;
    LayoutJob j = layout_job(spec);
    j.job.description = "suggested layout";
    j.job.facts.insert(j.job.facts.end(), extra.begin(), extra.end());
    return j;
  }

  // Every rule accepts it without an error or a warning, and the estimate leaves 10% of the memory free.
  Checked check(const RawJob& raw) const {
    Job j(std::string(kCommandLinePath), raw, options_.lint);
    for (const auto& d : check_job(j, options_))
      if (d.severity != Severity::kInfo) return {};
    auto mem = estimate_memory(j);
    if (!mem || mem->total_gib > kMemoryBudget * r_.cluster.gpu_memory_gib) return {};
    return {true, mem->total_gib};
  }

 private:
  const SuggestRequest& r_;
  EngineOptions options_;
  std::int64_t seq_;
};

std::vector<std::string> reasons_for(const SuggestRequest& r, const Suggestion& s, std::int64_t seq) {
  const ModelInfo& m = *r.model;
  std::int64_t domain = r.cluster.nvlink_domain;
  std::vector<std::string> out;
  if (!s.published.empty()) out.push_back("the layout " + s.published + " publishes");
  out.push_back(fmt::format("TP={} stays inside the {}-GPU NVLink domain{}", s.mesh.tp, domain,
                            m.is_moe() ? " (MoE: TP 1-2, sized by the active parameters)" : ""));
  if (s.mesh.pp > 1)
    out.push_back(fmt::format("PP={} spreads {} layers across nodes{}", s.mesh.pp, m.layers,
                              s.vpp ? fmt::format(", VPP={} shrinks the bubble", s.vpp) : ""));
  if (s.mesh.cp > 1) out.push_back(fmt::format("CP={} splits the {}-token sequence", s.mesh.cp, seq));
  if (m.is_moe())
    out.push_back(fmt::format("EP={} is the main axis: {} expert{} per GPU; ETP={}", s.mesh.ep,
                              m.experts / s.mesh.ep, m.experts / s.mesh.ep == 1 ? "" : "s", s.mesh.etp));
  std::int64_t dp = r.gpus / (s.mesh.tp * s.mesh.pp * s.mesh.cp);
  double hbm = r.cluster.gpu_memory_gib;
  out.push_back(
      fmt::format("DP={}; estimated {:.1f} GiB per GPU of {:g} GiB ({:.0f}% free; at most {:.0f} GiB "
                  "keeps 10% free)",
                  dp, s.memory_gib, hbm, 100 * (1 - s.memory_gib / hbm), kMemoryBudget * hbm));
  return out;
}

}  // namespace

Suggestions suggest_layouts(const SuggestRequest& r, const EngineOptions& options) {
  Suggestions out;
  if (!r.model || r.gpus <= 0) return out;
  const ModelInfo& m = *r.model;
  std::string seq_why;
  std::int64_t seq = r.seq_length > 0 ? r.seq_length : assumed_seq(m, seq_why);
  out.seq_length = seq;
  if (!seq_why.empty()) out.assumptions.push_back(seq_why);
  out.assumptions.push_back(
      "micro-batch size 1 (the smallest; activations grow with it: plan a layout with --mbs to see another)");
  out.assumptions.push_back(
      "the distributed optimizer on (as Megatron-Bridge's recipes set it), bf16 weights with fp32 gradients "
      "and Adam state");
  out.assumptions.push_back(
      "sequence parallelism wherever TP > 1; activations as with selective recompute (no recompute setting "
      "is assumed beyond that)");
  out.assumptions.push_back(fmt::format("{} GPUs per node ({}), NVLink domain {}, {:g} GiB per GPU ({})",
                                        r.gpus_per_node, r.gpus_per_node_source, r.cluster.nvlink_domain,
                                        r.cluster.gpu_memory_gib, r.cluster.name));
  Planner planner(r, options, seq);

  struct Scored {
    double cost;
    Suggestion s;
  };
  std::vector<Scored> valid;
  auto keep = [&](const MeshSizes& mesh, std::int64_t vpp, LayoutJob j, double memory, std::string published,
                  double cost) {
    Suggestion s;
    s.mesh = mesh;
    s.vpp = vpp;
    s.sp = mesh.tp > 1;
    s.memory_gib = memory;
    s.published = std::move(published);
    s.job = std::move(j.job);
    s.options = std::move(j.options);
    // Close to the limit ranks lower: the estimate is a floor.
    double used = memory / r.cluster.gpu_memory_gib;
    cost += 4 * std::max(0.0, used - 0.7);
    valid.push_back({cost, std::move(s)});
  };

  // A published layout that fits comes first.
  for (const RecipeInfo* recipe : published_recipes(r)) {
    MeshSizes mesh{*recipe->tp, *recipe->pp, recipe->cp.value_or(1), recipe->ep.value_or(1), 1};
    mesh.etp = m.is_moe() ? recipe->etp.value_or(1) : mesh.tp;
    if (!world_size_valid(mesh, r.gpus) || mesh.tp > r.cluster.nvlink_domain) continue;
    std::int64_t vpp = recipe->vpp.value_or(0) > 1 ? *recipe->vpp : 0;
    // Its own pipeline split (uneven first and last stages, a layout builder) comes with it.
    std::vector<Fact> extra;
    for (Fact f : recipe_facts(*recipe))
      if (f.key == Key::kPipelineModelParallelLayout || f.key == Key::kAccountForEmbeddingInPipelineSplit ||
          f.key == Key::kAccountForLossInPipelineSplit || f.key == Key::kNumLayersInFirstPipelineStage ||
          f.key == Key::kNumLayersInLastPipelineStage)
        extra.push_back(std::move(f));
    LayoutJob j = planner.job(mesh, vpp, mesh.tp > 1, extra);
    Checked c = planner.check(j.job);
    if (!c.ok) continue;
    keep(mesh, vpp, std::move(j), c.memory_gib, published_name(*recipe), -100);
    break;
  }

  for (auto tp : kPowers) {
    if (tp > r.cluster.nvlink_domain || m.heads % tp != 0 || (m.groups % tp != 0 && tp % m.groups != 0))
      continue;
    for (auto cp : kPowers) {
      if (cp > 16 || (cp > 1 && seq % (2 * cp) != 0)) continue;
      for (auto pp : kPowers) {
        if (pp > 64) continue;
        for (auto ep : kPowers) {
          if ((!m.is_moe() && ep > 1) || (m.is_moe() && m.experts % ep != 0)) continue;
          MeshSizes mesh{tp, pp, cp, ep, m.is_moe() ? 1 : tp};
          if (!world_size_valid(mesh, r.gpus)) continue;
          for (std::int64_t vpp : {std::int64_t{2}, std::int64_t{4}, std::int64_t{5}, std::int64_t{0}}) {
            if (vpp && pp == 1) continue;
            // The published layout's mesh is there already (with its own VPP and split).
            bool duplicate = std::any_of(valid.begin(), valid.end(), [&](const Scored& v) {
              return v.s.mesh.tp == tp && v.s.mesh.pp == pp && v.s.mesh.cp == cp && v.s.mesh.ep == ep;
            });
            if (duplicate) break;
            std::vector<Fact> extra = uneven_split(m.layers, pp);
            LayoutJob j = planner.job(mesh, vpp, tp > 1, extra);
            Checked c = planner.check(j.job);
            if (!c.ok) continue;
            double cost = guidance_cost(m, mesh, seq, r.cluster.nvlink_domain) + (pp > 1 && !vpp ? 0.25 : 0);
            keep(mesh, vpp, std::move(j), c.memory_gib, "", cost);
            break;  // the first VPP that passes is enough for this mesh
          }
        }
      }
    }
  }
  std::stable_sort(valid.begin(), valid.end(),
                   [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
  for (auto& v : valid) {
    if (out.layouts.size() == 3) break;
    v.s.reasons = reasons_for(r, v.s, seq);
    out.layouts.push_back(std::move(v.s));
  }
  return out;
}

}  // namespace parlint
