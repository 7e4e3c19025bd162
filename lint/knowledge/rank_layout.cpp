#include "lint/knowledge/rank_layout.h"

#include <set>

namespace parlint {
namespace {

constexpr std::int64_t kMaxWorld = 1 << 20;

std::vector<std::int64_t> prefix_product(const std::vector<std::int64_t>& a) {
  std::vector<std::int64_t> r{1};
  for (auto v : a) r.push_back(r.back() * v);
  return r;
}

std::vector<std::int64_t> decompose(std::int64_t index, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> stride = prefix_product(shape), idx;
  for (std::size_t i = 0; i < shape.size(); ++i) idx.push_back((index / stride[i]) % shape[i]);
  return idx;
}

}  // namespace

RankGroups masked_orthogonal_rank_groups(std::int64_t world, const std::vector<std::int64_t>& sizes,
                                         const std::vector<bool>& mask) {
  std::vector<std::int64_t> masked_shape, unmasked_shape, masked_stride, unmasked_stride;
  std::vector<std::int64_t> global_stride = prefix_product(sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    (mask[i] ? masked_shape : unmasked_shape).push_back(sizes[i]);
    (mask[i] ? masked_stride : unmasked_stride).push_back(global_stride[i]);
  }
  std::int64_t group_size = prefix_product(masked_shape).back();
  RankGroups out;
  if (group_size <= 0) return out;
  for (std::int64_t g = 0; g < world / group_size; ++g) {
    auto gi = decompose(g, unmasked_shape);
    std::int64_t base = 0;
    for (std::size_t i = 0; i < gi.size(); ++i) base += gi[i] * unmasked_stride[i];
    std::vector<std::int64_t> ranks;
    for (std::int64_t r = 0; r < group_size; ++r) {
      auto ri = decompose(r, masked_shape);
      std::int64_t rank = base;
      for (std::size_t i = 0; i < ri.size(); ++i) rank += ri[i] * masked_stride[i];
      ranks.push_back(rank);
    }
    out.push_back(std::move(ranks));
  }
  return out;
}

std::vector<GroupPlacement> place_groups(const MeshSizes& m, std::int64_t world, std::int64_t gpn,
                                         std::int64_t domain, bool pp_last) {
  std::vector<GroupPlacement> out;
  if (!world_size_valid(m, world) || world > kMaxWorld || gpn <= 0 || domain <= 0) return out;
  std::int64_t dp = world / (m.tp * m.pp * m.cp), edp = world / (m.pp * m.ep * m.etp);
  // Dimensions in order: tp, cp, ep, dp, pp (or tp, cp, ep, pp, dp).
  auto grid = [&](std::int64_t tp, std::int64_t cp, std::int64_t ep, std::int64_t d) {
    return pp_last ? std::vector<std::int64_t>{tp, cp, ep, d, m.pp}
                   : std::vector<std::int64_t>{tp, cp, ep, m.pp, d};
  };
  auto mask = [&](bool tp, bool cp, bool ep, bool d, bool pp) {
    return pp_last ? std::vector<bool>{tp, cp, ep, d, pp} : std::vector<bool>{tp, cp, ep, pp, d};
  };
  auto place = [&](const std::string& name, const RankGroups& groups) {
    GroupPlacement p;
    p.name = name;
    p.groups = static_cast<std::int64_t>(groups.size());
    p.size = groups.empty() ? 0 : static_cast<std::int64_t>(groups.front().size());
    for (const auto& g : groups) {
      std::set<std::int64_t> nodes, domains;
      for (auto r : g) {
        nodes.insert(r / gpn);
        domains.insert(r / domain);
      }
      p.crossing_nodes += nodes.size() > 1;
      p.crossing_domains += domains.size() > 1;
    }
    out.push_back(p);
  };
  auto dense = grid(m.tp, m.cp, 1, dp);
  place("TP", masked_orthogonal_rank_groups(world, dense, mask(true, false, false, false, false)));
  if (m.cp > 1)
    place("CP", masked_orthogonal_rank_groups(world, dense, mask(false, true, false, false, false)));
  place("DP", masked_orthogonal_rank_groups(world, dense, mask(false, false, false, true, false)));
  if (m.pp > 1)
    place("PP", masked_orthogonal_rank_groups(world, dense, mask(false, false, false, false, true)));
  if (m.ep > 1 || m.etp != m.tp) {
    auto expert = grid(m.etp, 1, m.ep, edp);
    if (m.ep > 1)
      place("EP", masked_orthogonal_rank_groups(world, expert, mask(false, false, true, false, false)));
    if (m.etp > 1)
      place("expert TP",
            masked_orthogonal_rank_groups(world, expert, mask(true, false, false, false, false)));
    place("expert DP", masked_orthogonal_rank_groups(world, expert, mask(false, false, false, true, false)));
  }
  return out;
}

}  // namespace parlint
