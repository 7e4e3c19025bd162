// An SVG picture of a job's rank layout: one row per node, one cell per GPU coloured by TP group, a band
// under each cell for its pipeline stage, the data-parallel replica in each cell's label, and a red
// outline on every GPU whose TP group crosses an NVLink domain.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "lint/rank_layout.h"
#include "lint/reporters/reporter.h"

namespace parlint {
namespace {

constexpr std::int64_t kMaxDrawn = 4096;  // GPUs drawn; larger jobs are summarised instead

std::string colour(std::int64_t i) {
  // Golden-angle hues keep neighbouring groups apart; written as #rrggbb, which every SVG renderer reads.
  double h = static_cast<double>((i * 137) % 360) / 60.0, s = 0.65,
         l = 0.62 + static_cast<double>(i % 3) * 0.08;
  double c = (1 - std::abs(2 * l - 1)) * s, x = c * (1 - std::abs(std::fmod(h, 2.0) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  if (h < 1)
    r = c, g = x;
  else if (h < 2)
    r = x, g = c;
  else if (h < 3)
    g = c, b = x;
  else if (h < 4)
    g = x, b = c;
  else if (h < 5)
    r = x, b = c;
  else
    r = c, b = x;
  auto byte = [&](double v) { return static_cast<int>(std::lround((v + m) * 255)); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b));
}

}  // namespace

std::optional<std::string> layout_svg(const Job& job, std::string& why_not) {
  auto mesh = job.mesh();
  auto world = job.get_int(Key::kWorldSize);
  auto gpn = job.get_int(Key::kGpusPerNode);
  if (!gpn) gpn = job.get_int(Key::kNprocPerNode);
  std::int64_t domain = job.nvlink_domain().size;
  if (!mesh || !world) {
    why_not = "the parallel sizes and the world size must be known";
    return std::nullopt;
  }
  if (!world_size_valid(*mesh, *world)) {
    why_not = fmt::format("world size {} is not valid for this layout (see PL102)", *world);
    return std::nullopt;
  }
  if (*world > kMaxDrawn) {
    why_not = fmt::format("{} GPUs are more than the {} this picture draws", *world, kMaxDrawn);
    return std::nullopt;
  }
  std::int64_t per_node = gpn && *gpn > 0 ? *gpn : domain;
  std::int64_t dp = *world / (mesh->tp * mesh->pp * mesh->cp);
  bool pp_last = !job.get_bool(Key::kUseTpPpDpMapping).value_or(false);
  std::vector<std::int64_t> sizes = pp_last ? std::vector<std::int64_t>{mesh->tp, mesh->cp, 1, dp, mesh->pp}
                                            : std::vector<std::int64_t>{mesh->tp, mesh->cp, 1, mesh->pp, dp};
  auto mask = [&](bool tp, bool d, bool pp) {
    return pp_last ? std::vector<bool>{tp, false, false, d, pp} : std::vector<bool>{tp, false, false, pp, d};
  };
  auto tp_groups = masked_orthogonal_rank_groups(*world, sizes, mask(true, false, false));
  auto pp_groups = masked_orthogonal_rank_groups(*world, sizes, mask(false, false, true));
  auto dp_groups = masked_orthogonal_rank_groups(*world, sizes, mask(false, true, false));
  std::vector<std::int64_t> tp_of(*world), stage_of(*world), replica_of(*world);
  std::vector<bool> crossing(*world, false);
  for (std::size_t g = 0; g < tp_groups.size(); ++g) {
    std::set<std::int64_t> domains;
    for (auto r : tp_groups[g]) domains.insert(r / domain);
    for (auto r : tp_groups[g]) {
      tp_of[r] = static_cast<std::int64_t>(g);
      crossing[r] = domains.size() > 1;
    }
  }
  for (const auto& g : pp_groups)
    for (std::size_t i = 0; i < g.size(); ++i) stage_of[g[i]] = static_cast<std::int64_t>(i);
  for (const auto& g : dp_groups)
    for (std::size_t i = 0; i < g.size(); ++i) replica_of[g[i]] = static_cast<std::int64_t>(i);

  const int cell = 34, gap = 4, left = 70, top = 40;
  std::int64_t nodes = (*world + per_node - 1) / per_node;
  int width = left + static_cast<int>(per_node) * (cell + gap) + 20;
  int legend_y = top + static_cast<int>(nodes) * (cell + gap + 8) + 16;
  int height = legend_y + 90;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"10\">\n<title>{}</title>\n",
      std::max(width, 520), height, xml_escape(job.description()));
  svg += fmt::format(
      "<text x=\"10\" y=\"20\" font-size=\"13\">TP={} PP={} CP={} DP={} on {} GPUs ({} per node, "
      "NVLink domain {})</text>\n",
      mesh->tp, mesh->pp, mesh->cp, dp, *world, per_node, domain);
  for (std::int64_t n = 0; n < nodes; ++n) {
    int y = top + static_cast<int>(n) * (cell + gap + 8);
    svg += fmt::format("<text x=\"10\" y=\"{}\">node {}</text>\n", y + cell / 2 + 4, n);
    for (std::int64_t c = 0; c < per_node; ++c) {
      std::int64_t r = n * per_node + c;
      if (r >= *world) break;
      int x = left + static_cast<int>(c) * (cell + gap);
      svg += fmt::format(
          "<rect class=\"cell{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" "
          "stroke-width=\"{}\"><title>rank {}: TP group {}, PP stage {}, DP replica {}{}</title></rect>\n",
          crossing[r] ? " crossing" : "", x, y, cell, cell, colour(tp_of[r]), crossing[r] ? "red" : "#555",
          crossing[r] ? 3 : 1, r, tp_of[r], stage_of[r], replica_of[r],
          crossing[r] ? " (TP group crosses an NVLink domain)" : "");
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x + cell / 2,
                         y + cell / 2 + 3, fmt::format("d{}", replica_of[r]));
      svg += fmt::format("<rect class=\"stage\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"5\" fill=\"{}\"/>\n",
                         x, y + cell + 2, cell, colour(1000 + stage_of[r] * 7));
    }
  }
  svg += fmt::format(
      "<text x=\"10\" y=\"{}\">cell colour: TP group; band under a cell: pipeline stage; label dN: "
      "data-parallel "
      "replica</text>\n<rect x=\"10\" y=\"{}\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"red\" "
      "stroke-width=\"3\"/>\n<text x=\"30\" y=\"{}\">GPU in a TP group that crosses an NVLink "
      "domain</text>\n",
      legend_y, legend_y + 14, legend_y + 25);
  svg += "</svg>\n";
  return svg;
}

}  // namespace parlint
