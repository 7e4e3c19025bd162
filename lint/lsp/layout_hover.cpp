#include "lint/lsp/layout_hover.h"

#include <fmt/format.h>

#include "lint/knowledge/mesh.h"
#include "lint/resolve/memory_model.h"
#include "rules/api/describe.h"

namespace parlint::lsp {

bool is_layout_key(Key key) {
  if (is_parallel_layout_key(key)) return true;
  switch (key) {
    case Key::kNodes:
    case Key::kGpusPerNode:
    case Key::kNtasksPerNode:
    case Key::kNprocPerNode:
    case Key::kNnodes:
    case Key::kWorldSize:
    case Key::kNumMoeExperts:
      return true;
    default:
      return false;
  }
}

std::string layout_hover_markdown(const Job& job, Key hovered) {
  std::string md = fmt::format("**parlint** — resolved layout of {}\n\n", job.description());
  md += "| setting | value | from |\n|---|---|---|\n";
  auto row = [&](const char* label, Key key) {
    const Fact* f = job.fact(key);
    std::string value = f ? f->value.to_string() : "unknown";
    std::string from = f ? describe_source(*f, job.path()) : "not set";
    for (char& c : from)
      if (c == '|') c = '/';
    md += fmt::format("| {}{}{} | {} | {} |\n", key == hovered ? "**" : "", label, key == hovered ? "**" : "",
                      value, from);
  };
  row("TP", Key::kTensorModelParallelSize);
  row("PP", Key::kPipelineModelParallelSize);
  if (job.fact(Key::kVirtualPipelineModelParallelSize)) row("VPP", Key::kVirtualPipelineModelParallelSize);
  row("CP", Key::kContextParallelSize);
  row("EP", Key::kExpertModelParallelSize);
  row("ETP", Key::kExpertTensorParallelSize);
  row("SP", Key::kSequenceParallel);
  row("world size", Key::kWorldSize);

  auto mesh = job.mesh();
  auto world = job.get_int(Key::kWorldSize);
  md += "\n";
  if (!mesh) {
    md += "The layout is not fully known, so DP and the minimum GPU count cannot be derived.\n";
    return md;
  }
  const MeshSizes& m = *mesh;
  if (world) {
    auto dp = data_parallel_size(m, *world);
    auto edp = expert_data_parallel_size(m, *world);
    md += fmt::format("- DP = W / (TP·PP·CP) = {} / ({}·{}·{}) = {}\n", *world, m.tp, m.pp, m.cp,
                      dp ? std::to_string(*dp) : "not a whole number");
    md += fmt::format("- expert DP = W / (PP·EP·ETP) = {} / ({}·{}·{}) = {}\n", *world, m.pp, m.ep, m.etp,
                      edp ? std::to_string(*edp) : "not a whole number");
  }
  md += fmt::format("- minimum GPUs M = PP·lcm(TP·CP, EP·ETP) = {}·lcm({}, {}) = {}", m.pp, m.tp * m.cp,
                    m.ep * m.etp, min_world_size(m));
  if (job.is_moe() && product_world_size(m) != min_world_size(m))
    md += fmt::format(
        " (not the product PP·TP·CP·EP·ETP = {}: the dense and expert meshes share each stage's GPUs)",
        product_world_size(m));
  md += "\n";
  if (auto gpn = job.get_int(Key::kGpusPerNode); gpn && world && *gpn > 0)
    md += fmt::format("- {} node(s) of {} GPUs; NVLink domain {} GPUs ({})\n", (*world + *gpn - 1) / *gpn,
                      *gpn, job.nvlink_domain().size, job.nvlink_domain().source);
  if (auto mem = estimate_memory(job))
    md += fmt::format(
        "- memory per GPU ≈ {:.1f} GiB ({:.1f} weights, gradients and optimizer + {:.1f} activations)\n",
        mem->total_gib, mem->weights_optimizer_gib, mem->activations_gib);
  return md;
}

}  // namespace parlint::lsp
