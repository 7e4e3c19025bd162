#include "lint/engine/smoke_test.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <set>

#include "lint/engine/engine.h"
#include "lint/knowledge/model_table.h"

namespace parlint {
namespace {

constexpr std::int64_t kIterations = 3;
constexpr std::int64_t kSmokeSeq = 4096;  // long enough for every rule's sequence advice, short to run

// The built-in model a job trains: the one it names, or the one whose layers, hidden size, heads and experts
// it states (a Megatron-LM launch that spells the architecture out).
const ModelInfo* model_of(const Job& job) {
  if (job.model()) return job.model();
  auto layers = job.get_int(Key::kNumLayers), hidden = job.get_int(Key::kHiddenSize),
       heads = job.get_int(Key::kNumAttentionHeads);
  if (!layers || !hidden || !heads) return nullptr;
  const Fact* experts_fact = job.fact(Key::kNumMoeExperts);
  if (!experts_fact || !(experts_fact->value.as_int() || experts_fact->value.kind() == Value::Kind::kNull))
    return nullptr;  // dense or MoE is not known
  std::int64_t experts = experts_fact->value.as_int().value_or(0);
  const ModelInfo* found = nullptr;
  for (const auto& m : builtin_models())
    if (m.layers == *layers && m.hidden == *hidden && m.heads == *heads && m.experts == experts) {
      if (found) return nullptr;  // two models share these: not enough to choose
      found = &m;
    }
  return found;
}

struct Candidate {
  const RecipeInfo* recipe;
  const ModelInfo* model;
  bool plain;  // the recipe's base variant (..._bf16_config), not a long-context or deterministic one
};

// The Megatron-Bridge library pretraining recipes in bf16 of the family's models of the same kind (dense
// or MoE), smallest model first, the base variant and the fewest GPUs first among equals.
std::vector<Candidate> family_recipes(const ModelInfo& model) {
  std::vector<Candidate> out;
  std::set<std::string> seen;
  for (const auto& r : builtin_recipes()) {
    // bf16 library pretraining recipes only: the smoke test is about the layout, not a precision recipe.
    if (r.is_nemo2() || r.package == "perf_recipes" || r.function.find("_pretrain_") == std::string::npos ||
        r.function.find("_bf16") == std::string::npos || !seen.insert(r.function).second)
      continue;
    const ModelInfo* m = find_model(r.model);
    if (!m || m->family != model.family || m->is_moe() != model.is_moe()) continue;
    out.push_back({&r, m, r.function.ends_with("_bf16_config")});
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.model->params_b != b.model->params_b) return a.model->params_b < b.model->params_b;
    if (a.plain != b.plain) return a.plain;
    return a.recipe->gpus.value_or(0) < b.recipe->gpus.value_or(0);
  });
  // One recipe per model: its variants share the architecture, so they fit a layout alike.
  std::set<const ModelInfo*> models;
  std::erase_if(out, [&](const Candidate& c) { return !models.insert(c.model).second; });
  return out;
}

std::string name_of(const RecipeInfo& r) {
  // The legacy alias is what the recipe runner and the examples use, when it finds this same recipe.
  for (const auto& a : r.aliases)
    if (find_recipe(a) == &r) return a;
  return r.function;
}

std::int64_t lcm(std::int64_t a, std::int64_t b) {
  return std::lcm(std::max<std::int64_t>(a, 1), std::max<std::int64_t>(b, 1));
}

// The sequence length of the smoke test: the job's when it is short and keeps CP and SP valid, else the
// first multiple of what they need from 4096 on.
std::int64_t smoke_seq(const MeshSizes& mesh, std::optional<std::int64_t> job_seq) {
  std::int64_t unit = lcm(mesh.cp > 1 ? 2 * mesh.cp : 1, mesh.tp > 1 ? mesh.cp * mesh.tp : 1);
  if (job_seq && *job_seq > 0 && *job_seq <= kSmokeSeq && *job_seq % unit == 0) return *job_seq;
  return unit * ((kSmokeSeq + unit - 1) / unit);
}

// The virtual pipeline size the smoke test runs with, and why when it is not the job's. VPP follows the
// layer count, which the smaller model does not share: an interleaved job keeps an interleaved schedule at a
// VPP the smaller model's stages divide into.
std::int64_t smoke_vpp(const Candidate& c, std::int64_t pp, std::optional<std::int64_t> job_vpp,
                       std::string& note) {
  if (pp <= 1) return job_vpp.value_or(1);
  const RecipeInfo& r = *c.recipe;
  if (!r.layout_pairs.empty()) {
    // A recipe with a layout builder: the runner rebuilds the layout for (PP, VP), which it knows for a few
    // pairs only.
    std::optional<std::int64_t> v;
    for (const auto& [p, vp] : r.layout_pairs) {
      if (p != pp) continue;
      if (job_vpp && vp == *job_vpp) return vp;
      if (!v || (job_vpp ? std::abs(vp - *job_vpp) < std::abs(*v - *job_vpp) : vp < *v)) v = vp;
    }
    if (v && *v != job_vpp.value_or(1))
      note = fmt::format("VPP={}{}: {}() builds a layout for PP={} only with VP {}", *v,
                         job_vpp ? fmt::format(" in place of the job's {}", *job_vpp) : "", r.layout_builder,
                         pp, *v);
    return v.value_or(job_vpp.value_or(1));
  }
  std::int64_t layers = c.model->layers;
  if (layers % pp != 0) return job_vpp.value_or(1);
  std::int64_t per_stage = layers / pp;
  if (job_vpp) {
    if (per_stage % *job_vpp == 0) return *job_vpp;
    for (std::int64_t d = std::min(*job_vpp - 1, per_stage); d >= 2; --d)
      if (per_stage % d == 0) {
        note = fmt::format("VPP={} in place of the job's {}: {} has {} layers per stage at PP={}", d,
                           *job_vpp, c.model->name, per_stage, pp);
        return d;
      }
    return *job_vpp;
  }
  if (per_stage < 2) return 1;
  for (std::int64_t d = 2; d <= 8; ++d)
    if (per_stage % d == 0) {
      note = fmt::format(
          "VPP={} added: {} has {} layers per stage at PP={}, and an interleaved schedule is what PL401 "
          "advises (drop it to try the non-interleaved one)",
          d, c.model->name, per_stage, pp);
      return d;
    }
  return 1;
}

struct Built {
  std::string command;
  std::vector<std::string> overrides;
  std::vector<std::string> notes;
};

Built build_command(const Candidate& c, const MeshSizes& mesh, bool moe, std::int64_t vpp, std::int64_t seq,
                    std::int64_t nodes, std::int64_t per_node) {
  const RecipeInfo& r = *c.recipe;
  Built b;
  // Every size of the layout is written out (a recipe's own default is not left to be looked up), and a 1
  // only where the recipe's default differs.
  auto set = [&](const char* key, std::int64_t v, std::optional<std::int64_t> recipe_value, bool always) {
    if (always || v > 1 || v != recipe_value.value_or(1)) b.overrides.push_back(fmt::format("{}={}", key, v));
  };
  set("model.tensor_model_parallel_size", mesh.tp, r.tp, true);
  set("model.pipeline_model_parallel_size", mesh.pp, r.pp, true);
  if (vpp > 1)
    set("model.virtual_pipeline_model_parallel_size", vpp, r.vpp, false);
  else if (r.vpp && *r.vpp > 1)
    b.overrides.push_back("model.virtual_pipeline_model_parallel_size=null");
  set("model.context_parallel_size", mesh.cp, r.cp, false);
  if (moe) {
    set("model.expert_model_parallel_size", mesh.ep, r.ep, true);
    set("model.expert_tensor_parallel_size", mesh.etp, r.etp, true);
  }
  // SP with TP > 1 (PL205, PL303 advise it); off at TP 1, where Megatron-Bridge would drop it (PL201).
  if (mesh.tp > 1)
    b.overrides.push_back("model.sequence_parallel=True");
  else if (r.sp.value_or(false))
    b.overrides.push_back("model.sequence_parallel=False");
  if (!r.seq || *r.seq != seq) b.overrides.push_back(fmt::format("dataset.seq_length={}", seq));
  std::int64_t world = nodes * per_node, dp = world / (mesh.tp * mesh.pp * mesh.cp);
  // Enough micro-batches for every pipeline stage (and, with VPP, a whole number of groups of PP: PL404).
  std::int64_t micro = mesh.pp * ((std::max<std::int64_t>(8, mesh.pp) + mesh.pp - 1) / mesh.pp);
  b.overrides.push_back(fmt::format("train.train_iters={}", kIterations));
  b.overrides.push_back(fmt::format("train.global_batch_size={}", micro * dp));
  b.overrides.push_back("train.micro_batch_size=1");
  for (const char* o : {"scheduler.lr_warmup_iters=0", "validation.eval_iters=0",
                        "validation.eval_interval=0", "checkpoint.save_interval=0", "logger.log_interval=1"})
    b.overrides.push_back(o);
  b.command = nodes > 1 ? fmt::format(
                              "torchrun --nnodes={} --nproc_per_node={} --rdzv_backend=c10d "
                              "--rdzv_endpoint=${{MASTER_ADDR}}:29500",
                              nodes, per_node)
                        : fmt::format("torchrun --nproc_per_node={}", per_node);
  b.command += " scripts/training/run_recipe.py --recipe " + name_of(r);
  for (const auto& o : b.overrides) b.command += " " + o;
  return b;
}

std::string layout_text(const MeshSizes& m, bool moe, std::int64_t vpp, std::int64_t dp, std::int64_t edp) {
  std::string s =
      fmt::format("TP={} PP={}{} CP={}", m.tp, m.pp, vpp > 1 ? fmt::format(" VPP={}", vpp) : "", m.cp);
  if (moe) s += fmt::format(" EP={} ETP={}", m.ep, m.etp);
  s += fmt::format(" DP={}", dp);
  if (moe) s += fmt::format(" expert DP={}", edp);
  return s;
}

}  // namespace

SmokeTestResult make_smoke_test(const Job& job, const EngineOptions& options) {
  SmokeTestResult out;
  auto mesh = job.mesh();
  if (!mesh) {
    std::string unknown;
    for (Key k : {Key::kTensorModelParallelSize, Key::kPipelineModelParallelSize, Key::kContextParallelSize,
                  Key::kExpertModelParallelSize, Key::kExpertTensorParallelSize})
      if (!job.get_int(k)) unknown += (unknown.empty() ? "" : ", ") + std::string(key_name(k));
    out.why_not = "the parallel sizes must be known (" + unknown + " is not)";
    return out;
  }
  const ModelInfo* model = model_of(job);
  if (!model) {
    out.why_not =
        "the job names no built-in model or Megatron-Bridge recipe, so parlint cannot choose a smaller model "
        "of "
        "its family (give --model)";
    return out;
  }
  bool moe = job.is_moe() || model->is_moe();
  if (moe && !model->is_moe()) {
    out.why_not = fmt::format("EP={} on {}, which has no experts (PL301)", mesh->ep, model->name);
    return out;
  }
  auto candidates = family_recipes(*model);
  if (candidates.empty()) {
    out.why_not = fmt::format(
        "parlint knows no Megatron-Bridge bf16 pretraining recipe for a{} model of the {} family ({}'s); the "
        "recipes it knows are in rules/data/bridge_recipes.yaml",
        model->is_moe() ? "n MoE" : " dense", model->family, model->name);
    return out;
  }
  std::int64_t M = min_world_size(*mesh);
  std::int64_t gpn = job.get_int(Key::kGpusPerNode)
                         .value_or(job.get_int(Key::kNprocPerNode).value_or(job.cluster().gpus_per_node));
  if (gpn <= 0) gpn = 8;
  // The fewest nodes that hold M GPUs with the same number on each.
  std::int64_t nodes = (M + gpn - 1) / gpn;
  while (M % nodes != 0) ++nodes;
  std::int64_t per_node = M / nodes;
  std::int64_t seq = smoke_seq(*mesh, job.get_int(Key::kSeqLength));
  const Fact* vpp_fact = job.fact(Key::kVirtualPipelineModelParallelSize);
  std::optional<std::int64_t> job_vpp = vpp_fact ? vpp_fact->value.as_int() : std::nullopt;
  if (job_vpp && *job_vpp <= 1) job_vpp.reset();

  EngineOptions lint = options;
  lint.lint.framework = Framework::kUnknown;  // the command says what runs it: Megatron-Bridge's runner
  lint.cli_framework = false;
  lint.rules = *RuleSelection::make({}, {});
  lint.fix = FixMode::kOff;
  lint.discover_config = false;
  lint.config.reset();
  std::vector<std::string> passed_over, objections;
  for (const Candidate& c : candidates) {
    std::string vpp_note;
    std::int64_t vpp = smoke_vpp(c, mesh->pp, job_vpp, vpp_note);
    Built b = build_command(c, *mesh, moe, vpp, seq, nodes, per_node);
    RunResult checked = check_text("smoke_test.sh", b.command + "\n", lint);
    std::string objection;
    std::vector<std::string> advisories;
    for (const auto& d : checked.diagnostics) {
      std::string text = fmt::format("{}[{}] {}", severity_name(d.diagnostic.severity), d.diagnostic.code,
                                     d.diagnostic.message);
      if (d.diagnostic.severity == Severity::kInfo)
        advisories.push_back(std::move(text));
      else if (objection.empty())
        objection = std::move(text);
    }
    if (!objection.empty()) {
      passed_over.push_back(fmt::format("{} ({}): {}", name_of(*c.recipe), c.model->name, objection));
      objections.push_back(objection);
      continue;
    }
    SmokeTest t;
    t.recipe = name_of(*c.recipe);
    t.model = c.model->name;
    t.gpus = M;
    t.nodes = nodes;
    t.gpus_per_node = per_node;
    t.command = b.command;
    t.overrides = b.overrides;
    t.advisories = std::move(advisories);
    t.passed_over = passed_over;
    std::int64_t dp = M / (mesh->tp * mesh->pp * mesh->cp), edp = M / (mesh->pp * mesh->ep * mesh->etp);
    if (c.model == model)
      t.notes.push_back(
          fmt::format("runs {} itself: no smaller recipe of the {} family keeps every parallel size",
                      model->name, model->family));
    else
      t.notes.push_back(
          fmt::format("runs {} ({}), the smallest Megatron-Bridge recipe of the {} family that keeps every "
                      "parallel size, "
                      "in place of {}",
                      c.model->name, t.recipe, model->family, model->name));
    auto world = job.get_int(Key::kWorldSize);
    t.notes.push_back(fmt::format(
        "{} GPUs: the minimum M = PP·lcm(TP·CP, EP·ETP) = {}·lcm({}, {}) for this layout{}", M, mesh->pp,
        mesh->tp * mesh->cp, mesh->ep * mesh->etp,
        world && *world != M ? fmt::format(" (the job's {} GPUs only add data-parallel replicas)", *world)
                             : ""));
    if (nodes > 1)
      t.notes.push_back(fmt::format(
          "{} nodes of {} GPUs: start the command on each node, with MASTER_ADDR set to the first node's "
          "address",
          nodes, per_node));
    auto job_seq = job.get_int(Key::kSeqLength);
    if (!job_seq || *job_seq != seq)
      t.notes.push_back(fmt::format(
          "sequence length {}{}: the layout, not the length, is under test; it keeps CP and SP valid", seq,
          job_seq ? fmt::format(" in place of the job's {}", *job_seq) : ""));
    if (!vpp_note.empty()) t.notes.push_back(vpp_note);
    if (mesh->tp > 1 && !job.get_bool(Key::kSequenceParallel).value_or(false))
      t.notes.push_back("sequence parallelism on: PL205 advises it with TP > 1 (the job leaves it off)");
    t.success = {
        fmt::format("the command exits 0 after {} iterations", kIterations),
        fmt::format("iteration {} logs a finite loss (not nan or inf)", kIterations),
        fmt::format("the start-up log shows the layout {}", layout_text(*mesh, moe, vpp, dp, edp)),
    };
    out.test = std::move(t);
    return out;
  }
  // The same objection to every recipe is an objection to the layout itself.
  std::set<std::string> distinct(objections.begin(), objections.end());
  if (distinct.size() == 1) {
    out.why_not = fmt::format(
        "every recipe of the {} family gives the same finding, so the layout itself must "
        "change: {}",
        model->family, *distinct.begin());
    return out;
  }
  std::string reasons;
  for (const auto& p : passed_over) reasons += "; " + p;
  out.why_not = fmt::format("no recipe of the {} family keeps this layout valid{}", model->family, reasons);
  return out;
}

}  // namespace parlint
