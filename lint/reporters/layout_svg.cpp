// An SVG picture of a job's rank layout: one row per node, one cell per GPU filled by its TP group, a band
// under each cell for its pipeline stage and (MoE) one for its EP group, the data-parallel replica and the
// stage in each cell's label, a red outline on every GPU whose TP group crosses an NVLink domain, and a
// legend with every size and every stage's colour.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "lint/knowledge/rank_layout.h"
#include "lint/reporters/reporter.h"

namespace parlint {
namespace {

constexpr std::int64_t kMaxDrawn = 4096;  // GPUs drawn; larger jobs are summarised instead

// Stages and EP groups: a categorical palette, not a ramp. Tableau 10, then the ten colours that keep the
// smallest CIEDE2000 difference between any two of the twenty largest (picked greedily from Tableau,
// Kelly's and Tol's sets): every pair differs by more than 18, where 2 is a just-noticeable difference.
constexpr const char* kCategorical[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                        "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
                                        "#2b3d26", "#000080", "#800000", "#7fff00", "#882255",
                                        "#008080", "#a1caf1", "#654522", "#808000", "#604e97"};
constexpr std::int64_t kCategories = sizeof(kCategorical) / sizeof(kCategorical[0]);

std::string category(std::int64_t i) {
  return kCategorical[i % kCategories];
}

std::string tp_colour(std::int64_t i) {
  // Many TP groups: golden-angle hues in light tones keep neighbouring groups apart and the labels legible;
  // written as #rrggbb, which every SVG renderer reads.
  double h = static_cast<double>((i * 137) % 360) / 60.0, s = 0.65,
         l = 0.72 + static_cast<double>(i % 3) * 0.06;
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

// For each rank, the index of its group and its place in the group.
struct Membership {
  std::vector<std::int64_t> group, index;
};

Membership membership(std::int64_t world, const RankGroups& groups) {
  Membership m{std::vector<std::int64_t>(world), std::vector<std::int64_t>(world)};
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i = 0; i < groups[g].size(); ++i) {
      m.group[groups[g][i]] = static_cast<std::int64_t>(g);
      m.index[groups[g][i]] = static_cast<std::int64_t>(i);
    }
  return m;
}

// A row of swatches with labels, wrapped at `width`, their colours from the palette's `first` on; returns
// the y below it.
int swatches(std::string& svg, int y, int width, const std::string& title, std::int64_t count,
             const std::string& label, const char* cls, std::int64_t first = 0) {
  svg += fmt::format("<text x=\"10\" y=\"{}\">{}</text>\n", y + 11, title);
  y += 16;
  int x = 10;
  std::int64_t shown = std::min(count, kCategories);
  for (std::int64_t i = 0; i < shown; ++i) {
    std::string text = fmt::format("{} {}", label, i);
    int w = 22 + static_cast<int>(text.size()) * 6;
    if (x + w > width) {
      x = 10;
      y += 18;
    }
    svg += fmt::format(
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{}\" stroke=\"#555\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        cls, x, y, category(first + i), x + 18, y + 10, text);
    x += w;
  }
  if (count > shown)
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\">(colours repeat every {}: {} {} has the colour of {} {})</text>\n", x,
        y + 10, kCategories, label, kCategories, label, 0);
  return y + 22;
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
  if (domain <= 0) domain = 8;
  std::int64_t per_node = gpn && *gpn > 0 ? *gpn : domain;
  std::int64_t dp = *world / (mesh->tp * mesh->pp * mesh->cp);
  std::int64_t edp = *world / (mesh->pp * mesh->ep * mesh->etp);
  bool moe = job.is_moe();
  bool pp_last = !job.get_bool(Key::kUseTpPpDpMapping).value_or(false);
  // Megatron-Core's two grids (rank_layout.h): dense tp-cp-ep(1)-dp-pp, expert etp-cp(1)-ep-edp-pp.
  auto grid = [&](std::int64_t tp, std::int64_t cp, std::int64_t ep, std::int64_t d) {
    return pp_last ? std::vector<std::int64_t>{tp, cp, ep, d, mesh->pp}
                   : std::vector<std::int64_t>{tp, cp, ep, mesh->pp, d};
  };
  auto mask = [&](bool tp, bool ep, bool d, bool pp) {
    return pp_last ? std::vector<bool>{tp, false, ep, d, pp} : std::vector<bool>{tp, false, ep, pp, d};
  };
  auto dense = grid(mesh->tp, mesh->cp, 1, dp);
  auto tp_groups = masked_orthogonal_rank_groups(*world, dense, mask(true, false, false, false));
  Membership tp = membership(*world, tp_groups);
  Membership stage =
      membership(*world, masked_orthogonal_rank_groups(*world, dense, mask(false, false, false, true)));
  Membership replica =
      membership(*world, masked_orthogonal_rank_groups(*world, dense, mask(false, false, true, false)));
  Membership ep;
  if (moe)
    ep = membership(*world, masked_orthogonal_rank_groups(*world, grid(mesh->etp, 1, mesh->ep, edp),
                                                          mask(false, true, false, false)));
  std::vector<bool> crossing(*world, false);
  for (const auto& g : tp_groups) {
    std::set<std::int64_t> domains;
    for (auto r : g) domains.insert(r / domain);
    for (auto r : g) crossing[r] = domains.size() > 1;
  }

  const int cell = 34, gap = 4, left = 70, top = 58;
  const int row = cell + gap + (moe ? 16 : 10);
  std::int64_t nodes = (*world + per_node - 1) / per_node;
  int width = std::max(left + static_cast<int>(per_node) * (cell + gap) + 20, 640);
  std::string body;
  for (std::int64_t n = 0; n < nodes; ++n) {
    int y = top + static_cast<int>(n) * row;
    body += fmt::format("<text x=\"10\" y=\"{}\">node {}</text>\n", y + cell / 2 + 4, n);
    for (std::int64_t c = 0; c < per_node; ++c) {
      std::int64_t r = n * per_node + c;
      if (r >= *world) break;
      int x = left + static_cast<int>(c) * (cell + gap);
      std::string ep_text = moe ? fmt::format(", EP group {} (EP rank {})", ep.group[r], ep.index[r]) : "";
      body += fmt::format(
          "<rect class=\"cell{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" "
          "stroke-width=\"{}\"><title>rank {}: TP group {}, PP stage {}, DP replica {}{}{}</title></rect>\n",
          crossing[r] ? " crossing" : "", x, y, cell, cell, tp_colour(tp.group[r]),
          crossing[r] ? "red" : "#555", crossing[r] ? 3 : 1, r, tp.group[r], stage.index[r], replica.index[r],
          ep_text, crossing[r] ? " (TP group crosses an NVLink domain)" : "");
      body += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">d{}</text>\n", x + cell / 2,
                          y + cell / 2 - 2, replica.index[r]);
      body += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">s{}</text>\n", x + cell / 2,
                          y + cell / 2 + 10, stage.index[r]);
      body += fmt::format(
          "<rect class=\"stage\" data-stage=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"5\" "
          "fill=\"{}\"/>\n",
          stage.index[r], x, y + cell + 2, cell, category(stage.index[r]));
      if (moe)
        body += fmt::format(
            "<rect class=\"ep\" data-ep-group=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"5\" "
            "fill=\"{}\"/>\n",
            ep.group[r], x, y + cell + 9, cell, category(mesh->pp + ep.group[r]));
    }
  }

  // The legend: every size, what each mark means, and each stage's (and EP group's) colour.
  std::string legend;
  int y = top + static_cast<int>(nodes) * row + 8;
  legend += fmt::format(
      "<text class=\"sizes\" x=\"10\" y=\"{}\">TP={} PP={} CP={} EP={} ETP={} DP={} EDP={} GPUs/node={} "
      "NVLink domain={} GPUs={}{}</text>\n",
      y + 11, mesh->tp, mesh->pp, mesh->cp, mesh->ep, mesh->etp, dp, edp, per_node, domain, *world,
      pp_last ? "" : " (order tp-cp-ep-pp-dp)");
  y += 18;
  legend += fmt::format(
      "<text x=\"10\" y=\"{}\">cell fill: TP group; label dN: data-parallel replica, sN: pipeline stage; "
      "upper band: pipeline stage{}</text>\n",
      y + 11, moe ? "; lower band: EP group" : "");
  y += 18;
  legend += fmt::format(
      "<rect x=\"10\" y=\"{}\" width=\"14\" height=\"12\" fill=\"none\" stroke=\"red\" stroke-width=\"3\"/>"
      "<text x=\"30\" y=\"{}\">GPU in a TP group that crosses an NVLink domain</text>\n",
      y, y + 10);
  y += 20;
  y = swatches(legend, y, width, fmt::format("pipeline stages (PP={}):", mesh->pp), mesh->pp, "stage",
               "legend-stage");
  // EP groups take the palette's colours after the stages', so that no band reads as both (stage 0 and
  // EP group 0 shared one colour); only past twenty colours in all do the two share any.
  if (moe) {
    const std::int64_t groups = *world / mesh->ep;
    y = swatches(
        legend, y, width,
        fmt::format("EP groups (EP={} ranks each, {} groups){}:", mesh->ep, groups,
                    mesh->pp + groups > kCategories
                        ? fmt::format(", colours after the {} stages' (some repeat theirs)", mesh->pp)
                        : ""),
        groups, "EP group", "legend-ep", mesh->pp);
  }
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"10\">\n<title>{}</title>\n",
      width, y + 10, xml_escape(job.description()));
  std::string where = job.range().valid() ? fmt::format("{}:{}: ", job.path(), job.range().start.line) : "";
  svg += fmt::format("<text x=\"10\" y=\"20\" font-size=\"13\">{}{}</text>\n", xml_escape(where),
                     xml_escape(job.description()));
  svg += fmt::format(
      "<text x=\"10\" y=\"38\" font-size=\"12\">TP={} PP={} CP={}{} DP={} on {} GPUs ({} per node, NVLink "
      "domain "
      "{})</text>\n",
      mesh->tp, mesh->pp, mesh->cp, moe ? fmt::format(" EP={} ETP={} EDP={}", mesh->ep, mesh->etp, edp) : "",
      dp, *world, per_node, domain);
  svg += body + legend + "</svg>\n";
  return svg;
}

}  // namespace parlint
