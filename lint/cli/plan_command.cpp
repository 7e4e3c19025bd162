// parlint plan: every resolved value of a job and where it came from, the derived layout, the smoke test,
// and --suggest.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lint/cli/commands.h"
#include "lint/cli/terminal_width.h"
#include "lint/engine/smoke_test.h"
#include "lint/engine/suggest.h"
#include "lint/knowledge/model_table.h"
#include "lint/reporters/reporter.h"
#include "lint/reporters/text_wrap.h"
#include "lint/resolve/layout_job.h"

namespace parlint::cli {
namespace {

LayoutSpec spec_of(const LayoutArgs& l, const JobOptions& job) {
  LayoutSpec s = l.spec;
  if (job.gpus_per_node) s.gpus_per_node = *job.gpus_per_node;
  return s;
}

// "1: launch.sh:12 torchrun launch"
std::string job_list(const PlanResult& plan) {
  std::string out;
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    const Job& j = *plan.jobs[i];
    out += fmt::format("\n  {}: {}{} {}", i + 1, escape_control(j.path()),
                       j.range().valid() ? fmt::format(":{}", j.range().start.line) : "",
                       escape_control(j.description()));
  }
  return out;
}

// --job N (1-based, as plan lists them) or NAME (a job's description, or a part of exactly one): keeps
// that job alone. Returns the error for an unknown or ambiguous choice.
std::optional<std::string> select_job(PlanResult& plan, const std::string& which) {
  std::optional<std::size_t> chosen;
  bool number = !which.empty() && which.size() < 10 &&
                std::all_of(which.begin(), which.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (number) {
    std::size_t n = std::stoul(which);
    if (n >= 1 && n <= plan.jobs.size()) chosen = n - 1;
  } else {
    std::vector<std::size_t> exact, partial;
    for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
      const std::string& d = plan.jobs[i]->description();
      if (d == which) exact.push_back(i);
      if (d.find(which) != std::string::npos) partial.push_back(i);
    }
    if (exact.size() == 1)
      chosen = exact.front();
    else if (exact.empty() && partial.size() == 1)
      chosen = partial.front();
    else if (exact.size() > 1 || partial.size() > 1)
      return fmt::format("--job {}: {} jobs match; choose one by number:{}", which,
                         std::max(exact.size(), partial.size()), job_list(plan));
  }
  if (!chosen)
    return plan.jobs.empty()
               ? fmt::format("--job {}: there is no job to choose from", which)
               : fmt::format("--job {}: no such job; the plan has {} job{}:{}", which, plan.jobs.size(),
                             plan.jobs.size() == 1 ? "" : "s", job_list(plan));
  PlanResult kept;
  kept.jobs.push_back(std::move(plan.jobs[*chosen]));
  if (*chosen < plan.findings.size()) kept.findings.push_back(std::move(plan.findings[*chosen]));
  kept.errors = std::move(plan.errors);
  plan = std::move(kept);
  return std::nullopt;
}

void add_smoke_tests(PlanResult& plan, const EngineOptions& options) {
  plan.smoke_tests.clear();
  for (const auto& job : plan.jobs) plan.smoke_tests.push_back(make_smoke_test(*job, options));
}

int run_suggest(const LayoutArgs& l, const PlanArgs& a, const EngineOptions& options) {
  SuggestRequest r;
  r.model = l.spec.model.empty() ? nullptr : find_model(l.spec.model);
  if (!r.model && !l.spec.model.empty()) {
    if (const RecipeInfo* recipe = find_recipe(l.spec.model)) r.model = find_model(recipe->model);
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
  r.cluster_option = a.job.cluster;
  if (r.cluster.gpu_memory_gib <= 0)
    return usage_error(
        fmt::format("--suggest ranks layouts by memory, and the {} profile gives no GPU memory; "
                    "give one with cluster: {{gpu_memory_gib: N}} in .parlint.yaml",
                    r.cluster.name));
  r.gpus_per_node = a.job.gpus_per_node.value_or(r.cluster.gpus_per_node);
  r.gpus_per_node_source =
      a.job.gpus_per_node ? std::string("--gpus-per-node") : "the " + r.cluster.name + " profile";
  r.gpus = l.spec.gpus ? *l.spec.gpus : l.spec.nodes ? *l.spec.nodes * r.gpus_per_node : 0;
  if (r.gpus <= 0) return usage_error("--suggest needs --gpus N or --nodes N");
  r.seq_length = l.spec.seq.value_or(0);
  Suggestions found = suggest_layouts(r, options);
  if (found.layouts.empty())
    return usage_error(fmt::format(
        "no layout of {} on {} GPUs at sequence length {}{} passes every rule and fits {:.0f} GiB per GPU "
        "(90% of {:g} GiB)",
        r.model->name, r.gpus, found.seq_length, l.spec.seq ? "" : " (assumed: give --seq-length)",
        kMemoryBudget * r.cluster.gpu_memory_gib, r.cluster.gpu_memory_gib));
  PlanResult best = plan_from_layout(found.layouts.front().job, options);
  if (a.format == "json") {
    add_smoke_tests(best, options);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& s : found.layouts)
      list.push_back({{"tp", s.mesh.tp},
                      {"pp", s.mesh.pp},
                      {"cp", s.mesh.cp},
                      {"ep", s.mesh.ep},
                      {"etp", s.mesh.etp},
                      {"vpp", s.vpp ? nlohmann::ordered_json(s.vpp) : nlohmann::ordered_json(nullptr)},
                      {"sequence_parallel", s.sp},
                      {"memory_gib_per_gpu", s.memory_gib},
                      {"published", s.published.empty() ? nlohmann::ordered_json(nullptr)
                                                        : nlohmann::ordered_json(s.published)},
                      {"options", s.options},
                      {"reasons", s.reasons}});
    std::ostringstream plan_json;
    report_plan_json(best, plan_json);
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(plan_json.str());
    doc["suggestions"] = list;
    doc["seq_length"] = found.seq_length;
    doc["assumptions"] = found.assumptions;
    if (!assumed.empty()) doc["assumed_architecture"] = assumed;
    std::cout << doc.dump(2) << "\n";
    return kExitClean;
  }
  for (const auto& line : found.assumptions) std::cout << "assumes: " << line << "\n";
  if (!assumed.empty())
    std::cout << "assumes: the architecture of " << assumed
              << ", the built-in model closest to the given size\n";
  for (std::size_t i = 0; i < found.layouts.size(); ++i) {
    const auto& s = found.layouts[i];
    std::cout << fmt::format("{} TP={} PP={}{} CP={}{} SP={} for {} on {} GPUs\n",
                             i == 0 ? "suggested:" : "alternative:", s.mesh.tp, s.mesh.pp,
                             s.vpp ? fmt::format(" VPP={}", s.vpp) : "", s.mesh.cp,
                             r.model->is_moe() ? fmt::format(" EP={} ETP={}", s.mesh.ep, s.mesh.etp) : "",
                             s.sp ? "on" : "off", r.model->name, r.gpus);
    for (const auto& reason : s.reasons) std::cout << wrap_line("  - " + reason, 4, output_width());
    std::cout << "  plan it: parlint plan " << s.options << "\n";
  }
  std::cout << "\n";
  if (l.smoke_test) add_smoke_tests(best, options);
  report_plan_text(best, std::cout, output_width());
  return kExitClean;
}

}  // namespace

int run_plan_command(const PlanArgs& a) {
  const LayoutArgs& layout = a.layout;
  EngineOptions options;
  options.rules = *RuleSelection::make({}, {});
  if (auto error = apply_job_options(a.job, options)) return usage_error(*error);
  if (!layout.spec.model.empty() && !find_recipe(layout.spec.model) && !find_model(layout.spec.model))
    return usage_error("unknown model or recipe '" + layout.spec.model +
                       "' (a built-in model such as llama3-70b, a "
                       "Megatron-Bridge recipe name, or a Hugging Face id)");
  if (layout.suggest) return run_suggest(layout, a, options);
  if (a.paths.empty() && !layout.any())
    return usage_error("plan needs files, or a layout such as --tp 2 --pp 2 --ep 8");
  PlanResult plan = a.paths.empty() ? plan_from_layout(layout_job(spec_of(layout, a.job)).job, options)
                                    : load_jobs(a.paths, options);
  if (!layout.job.empty())
    if (auto error = select_job(plan, layout.job)) {
      for (const auto& e : plan.errors)
        std::cerr << "parlint: " << escape_control(e.path) << ": " << escape_control(e.message) << "\n";
      return usage_error(*error);
    }
  if (layout.smoke_test || a.format == "json") add_smoke_tests(plan, options);
  if (a.format == "json")
    report_plan_json(plan, std::cout);
  else
    report_plan_text(plan, std::cout, output_width());
  // Silence would read as "nothing wrong": say that nothing was read as a training job.
  if (a.format != "json" && plan.jobs.empty() && plan.errors.empty() && !a.paths.empty())
    std::cerr << "parlint: no training job in the given files (a job is a launch such as torchrun, srun or "
                 "run_recipe.py, a recipe function, or a Megatron, NeMo or Megatron-Bridge config; other "
                 "frameworks' configs, such as GPT-NeoX's, are left alone)\n";
  for (const auto& e : plan.errors)
    std::cerr << "parlint: " << escape_control(e.path) << ": " << escape_control(e.message) << "\n";
  if (!layout.svg.empty()) {
    if (plan.jobs.empty()) return usage_error("--svg: no job to draw");
    if (plan.jobs.size() > 1 && layout.job.empty())
      std::cerr << fmt::format(
          "parlint: --svg draws job 1 of {}; choose another with --job N or --job NAME:{}\n",
          plan.jobs.size(), job_list(plan));
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
