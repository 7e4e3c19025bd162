// parlint plan: every resolved value of a job and where it came from, the derived layout, and --suggest.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lint/cli/commands.h"
#include "lint/model_table.h"
#include "lint/reporters/reporter.h"
#include "lint/suggest.h"

namespace parlint::cli {
namespace {

// A job from command-line numbers alone, every value marked as given on the command line.
RawJob layout_job(const LayoutArgs& l, const std::optional<int>& gpus_per_node) {
  RawJob job;
  job.description = "layout from the command line";
  auto add = [&](Key key, const std::optional<std::int64_t>& v, const char* flag) {
    if (!v) return;
    Fact f;
    f.key = key;
    f.value = Value::integer(*v);
    f.origin = Origin::kLauncherFlag;
    f.spelling = flag;
    job.facts.push_back(std::move(f));
  };
  add(Key::kTensorModelParallelSize, l.tp, "--tp");
  add(Key::kPipelineModelParallelSize, l.pp, "--pp");
  add(Key::kContextParallelSize, l.cp, "--cp");
  add(Key::kExpertModelParallelSize, l.ep, "--ep");
  add(Key::kExpertTensorParallelSize, l.etp, "--etp");
  add(Key::kVirtualPipelineModelParallelSize, l.vpp, "--vpp");
  add(Key::kSeqLength, l.seq, "--seq-length");
  add(Key::kNodes, l.nodes, "--nodes");
  if (gpus_per_node) add(Key::kGpusPerNode, std::optional<std::int64_t>(*gpus_per_node), "--gpus-per-node");
  if (l.gpus) {
    add(Key::kWorldSize, l.gpus, "--gpus");
    if (!l.nodes && gpus_per_node && *gpus_per_node > 0)
      add(Key::kNodes, std::optional<std::int64_t>((*l.gpus + *gpus_per_node - 1) / *gpus_per_node),
          "--gpus / --gpus-per-node");
  }
  if (!l.model.empty()) {
    if (const RecipeInfo* recipe = find_recipe(l.model)) {
      job.recipe.name = l.model;
      job.recipe.by_runner = true;  // planned as run_recipe.py --recipe NAME runs it
      // A recipe whose name targets a GPU count and GPU (..._256gpu_b300_..._config) is planned there
      // unless the command line says otherwise.
      if (recipe->gpus && !l.gpus && !l.nodes) {
        Fact f;
        f.key = Key::kWorldSize;
        f.value = Value::integer(*recipe->gpus);
        f.origin = Origin::kRecipeName;
        f.spelling = "the GPU count the name " + recipe->function + " states";
        job.facts.push_back(std::move(f));
      }
      job.hardware = recipe->hardware;
    } else {
      job.model = l.model;
    }
  }
  return job;
}

int run_suggest(const LayoutArgs& l, const PlanArgs& a, const EngineOptions& options) {
  SuggestRequest r;
  r.model = l.model.empty() ? nullptr : find_model(l.model);
  if (!r.model && !l.model.empty()) {
    if (const RecipeInfo* recipe = find_recipe(l.model)) r.model = find_model(recipe->model);
  }
  std::string assumed;
  if (!r.model && l.params) {
    // Only a size: borrow the architecture of the built-in model closest in size (dense, or MoE when the
    // active parameters or experts are given), and say so.
    bool moe = l.active_params || l.experts;
    double best = 1e300;
    for (const auto& m : builtin_models()) {
      if (m.is_moe() != moe) continue;
      double d = std::abs(std::log(m.params_b * 1e9 / *l.params));
      if (l.active_params) d += std::abs(std::log(m.active_b * 1e9 / *l.active_params));
      if (l.experts)
        d += 0.5 * std::abs(std::log(static_cast<double>(m.experts) / static_cast<double>(*l.experts)));
      if (d < best) {
        best = d;
        r.model = &m;
      }
    }
    if (r.model) assumed = r.model->name;
  }
  if (!r.model)
    return usage_error(
        "--suggest needs --model with a built-in model (see rules/data/models.yaml), or --params");
  r.cluster = options.lint.cluster.value_or(default_cluster_profile());
  if (r.cluster.gpu_memory_gib <= 0)
    return usage_error(
        fmt::format("--suggest ranks layouts by memory, and the {} profile gives no GPU memory; "
                    "give one with cluster: {{gpu_memory_gib: N}} in .parlint.yaml",
                    r.cluster.name));
  r.gpus_per_node = a.job.gpus_per_node.value_or(r.cluster.gpus_per_node);
  r.gpus = l.gpus ? *l.gpus : l.nodes ? *l.nodes * r.gpus_per_node : 0;
  if (r.gpus <= 0) return usage_error("--suggest needs --gpus N or --nodes N");
  r.seq_length = l.seq.value_or(0);
  auto suggestions = suggest_layouts(r, options);
  if (suggestions.empty())
    return usage_error(fmt::format("no layout of {} on {} GPUs passes every rule and fits {} GiB per GPU",
                                   r.model->name, r.gpus, r.cluster.gpu_memory_gib));
  PlanResult best = plan_from_layout(suggestions.front().job, options);
  if (a.format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& s : suggestions)
      list.push_back({{"tp", s.mesh.tp},
                      {"pp", s.mesh.pp},
                      {"cp", s.mesh.cp},
                      {"ep", s.mesh.ep},
                      {"etp", s.mesh.etp},
                      {"vpp", s.vpp ? nlohmann::ordered_json(s.vpp) : nlohmann::ordered_json(nullptr)},
                      {"sequence_parallel", s.sp},
                      {"memory_gib_per_gpu", s.memory_gib},
                      {"reasons", s.reasons}});
    std::ostringstream plan_json;
    report_plan_json(best, plan_json);
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(plan_json.str());
    doc["suggestions"] = list;
    if (!assumed.empty()) doc["assumed_architecture"] = assumed;
    std::cout << doc.dump(2) << "\n";
    return kExitClean;
  }
  for (std::size_t i = 0; i < suggestions.size(); ++i) {
    const auto& s = suggestions[i];
    std::cout << fmt::format("{} TP={} PP={}{} CP={}{} SP={} for {} on {} GPUs\n",
                             i == 0 ? "suggested:" : "alternative:", s.mesh.tp, s.mesh.pp,
                             s.vpp ? fmt::format(" VPP={}", s.vpp) : "", s.mesh.cp,
                             r.model->is_moe() ? fmt::format(" EP={} ETP={}", s.mesh.ep, s.mesh.etp) : "",
                             s.sp ? "on" : "off", r.model->name, r.gpus);
    for (const auto& reason : s.reasons) std::cout << "  - " << reason << "\n";
  }
  if (!assumed.empty())
    std::cout << "(architecture assumed from " << assumed
              << ", the built-in model closest to the given size)\n";
  std::cout << "\n";
  report_plan_text(best, std::cout);
  return kExitClean;
}

}  // namespace

int run_plan_command(const PlanArgs& a) {
  const LayoutArgs& layout = a.layout;
  EngineOptions options;
  options.rules = *RuleSelection::make({}, {});
  if (auto error = apply_job_options(a.job, options)) return usage_error(*error);
  if (!layout.model.empty() && !find_recipe(layout.model) && !find_model(layout.model))
    return usage_error("unknown model or recipe '" + layout.model +
                       "' (a built-in model such as llama3-70b, a "
                       "Megatron-Bridge recipe name, or a Hugging Face id)");
  if (layout.suggest) return run_suggest(layout, a, options);
  if (a.paths.empty() && !layout.any())
    return usage_error("plan needs files, or a layout such as --tp 2 --pp 2 --ep 8");
  PlanResult plan = a.paths.empty() ? plan_from_layout(layout_job(layout, a.job.gpus_per_node), options)
                                    : load_jobs(a.paths, options);
  if (a.format == "json")
    report_plan_json(plan, std::cout);
  else
    report_plan_text(plan, std::cout);
  for (const auto& e : plan.errors)
    std::cerr << "parlint: " << escape_control(e.path) << ": " << escape_control(e.message) << "\n";
  if (!layout.svg.empty()) {
    if (plan.jobs.empty()) return usage_error("--svg: no job to draw");
    std::string why;
    auto svg = layout_svg(*plan.jobs.front(), why);
    if (!svg) return usage_error("--svg: cannot draw the layout: " + why);
    std::ofstream out(layout.svg, std::ios::binary | std::ios::trunc);
    out << *svg;
    if (!out) return usage_error("cannot write " + layout.svg);
  }
  return plan.errors.empty() ? kExitClean : kExitUsage;
}

}  // namespace parlint::cli
