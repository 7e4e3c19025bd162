#include "lint/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lint/memory_model.h"
#include "lint/rule.h"

namespace parlint {
namespace {

Fact given(Key key, Value v, const char* why) {
  Fact f;
  f.key = key;
  f.value = std::move(v);
  f.origin = Origin::kLauncherFlag;
  f.spelling = why;
  return f;
}

RawJob candidate_job(const SuggestRequest& r, const MeshSizes& m, std::int64_t vpp, bool sp, std::int64_t seq,
                     bool account_split) {
  RawJob job;
  job.description = "suggested layout";
  job.model = r.model->key;
  auto add = [&](Key k, std::int64_t v) { job.facts.push_back(given(k, Value::integer(v), "suggested")); };
  add(Key::kTensorModelParallelSize, m.tp);
  add(Key::kPipelineModelParallelSize, m.pp);
  add(Key::kContextParallelSize, m.cp);
  if (r.model->is_moe()) {
    add(Key::kExpertModelParallelSize, m.ep);
    add(Key::kExpertTensorParallelSize, m.etp);
  }
  if (vpp > 1) add(Key::kVirtualPipelineModelParallelSize, vpp);
  add(Key::kSeqLength, seq);
  add(Key::kMicroBatchSize, 1);
  add(Key::kNodes, (r.gpus + r.gpus_per_node - 1) / r.gpus_per_node);
  add(Key::kGpusPerNode, std::min(r.gpus, r.gpus_per_node));
  job.facts.push_back(given(Key::kSequenceParallel, Value::boolean(sp), "suggested"));
  job.facts.push_back(given(Key::kUseDistributedOptimizer, Value::boolean(true), "suggested"));
  job.facts.push_back(given(Key::kAddBiasLinear, Value::boolean(false), "the model has no linear bias"));
  if (account_split) {
    // Count the embedding and the loss as layers when that makes the stages even (Llama 3.1 405B: 126 + 2).
    job.facts.push_back(given(Key::kAccountForEmbeddingInPipelineSplit, Value::boolean(true), "suggested"));
    job.facts.push_back(given(Key::kAccountForLossInPipelineSplit, Value::boolean(true), "suggested"));
  }
  return job;
}

// How far a layout is from the sizing guidance (lower is better).
double guidance_cost(const ModelInfo& m, const MeshSizes& mesh, std::int64_t seq, double active_b) {
  double cost = 0;
  auto log2 = [](double x) { return std::log2(std::max(1.0, x)); };
  if (m.is_moe()) {
    if (mesh.tp > 2)
      cost += 2 * log2(static_cast<double>(mesh.tp) / 2);  // MoE: TP 1-2, sized by active params
    cost -= 0.5 * log2(static_cast<double>(mesh.ep));      // EP is the main axis
  } else {
    double want_tp = active_b < 1 ? 1 : active_b < 10 ? 2 : active_b < 70 ? 4 : 8;
    cost += std::abs(log2(static_cast<double>(mesh.tp)) - log2(want_tp));
  }
  double want_cp = seq >= 32768 ? 4 : seq >= 8192 ? 2 : 1;
  cost += std::abs(log2(static_cast<double>(mesh.cp)) - log2(want_cp));
  cost += 0.75 * log2(static_cast<double>(mesh.pp));  // pipelines cost bubbles: only as deep as memory needs
  return cost;
}

}  // namespace

std::vector<Suggestion> suggest_layouts(const SuggestRequest& r, const EngineOptions& options) {
  std::vector<Suggestion> out;
  if (!r.model || r.gpus <= 0) return out;
  const ModelInfo& m = *r.model;
  std::int64_t seq = r.seq_length > 0 ? r.seq_length : m.seq;
  std::int64_t domain = r.cluster.nvlink_domain;
  std::vector<std::int64_t> powers{1, 2, 4, 8, 16, 32, 64, 128, 256};
  struct Scored {
    double cost;
    Suggestion s;
  };
  std::vector<Scored> valid;
  LintOptions lint = options.lint;
  lint.cluster = r.cluster;
  for (auto tp : powers) {
    if (tp > domain || m.heads % tp != 0 || (m.groups % tp != 0 && tp % m.groups != 0)) continue;
    for (auto cp : powers) {
      if (cp > 16 || (cp > 1 && seq % (2 * cp) != 0)) continue;
      for (auto pp : powers) {
        if (pp > 64) continue;
        for (auto ep : powers) {
          if (!m.is_moe() && ep > 1) continue;
          if (m.is_moe() && (m.experts % ep != 0)) continue;
          MeshSizes mesh{tp, pp, cp, ep, m.is_moe() ? 1 : tp};
          if (!world_size_valid(mesh, r.gpus)) continue;
          bool sp = tp > 1;
          for (std::int64_t vpp : {std::int64_t{0}, std::int64_t{2}, std::int64_t{4}, std::int64_t{5}}) {
            if (vpp && pp == 1) continue;
            bool account_split = pp > 1 && m.layers % pp != 0 && (m.layers + 2) % pp == 0;
            RawJob job = candidate_job(r, mesh, vpp, sp, seq, account_split);
            Job j("<suggestion>", job, lint);
            bool rejected = false;
            for (const auto& rule : RuleRegistry::instance().rules()) {
              std::vector<Finding> findings;
              rule->check_job(j, findings);
              for (const auto& f : findings)
                if (f.severity.value_or(rule->info().severity) != Severity::kInfo) rejected = true;
              if (rejected) break;
            }
            auto mem = estimate_memory(j);
            if (rejected || !mem || mem->total_gib > 0.9 * r.cluster.gpu_memory_gib) continue;
            Suggestion s;
            s.mesh = mesh;
            s.vpp = vpp;
            s.sp = sp;
            s.memory_gib = mem->total_gib;
            s.job = std::move(job);
            double cost = guidance_cost(m, mesh, seq, m.active_b) + (pp > 1 && !vpp ? 0.25 : 0) +
                          mem->total_gib / r.cluster.gpu_memory_gib * 0.1;
            valid.push_back({cost, std::move(s)});
            break;  // the first VPP that passes is enough for this mesh
          }
        }
      }
    }
  }
  std::stable_sort(valid.begin(), valid.end(),
                   [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
  for (auto& v : valid) {
    if (out.size() == 3) break;
    Suggestion& s = v.s;
    std::int64_t dp = r.gpus / (s.mesh.tp * s.mesh.pp * s.mesh.cp);
    s.reasons.push_back(fmt::format("TP={} stays inside the {}-GPU NVLink domain{}", s.mesh.tp, domain,
                                    m.is_moe() ? " (MoE: TP is sized by the active parameters)" : ""));
    if (s.mesh.pp > 1)
      s.reasons.push_back(fmt::format("PP={} spreads {} layers across nodes{}", s.mesh.pp, m.layers,
                                      s.vpp ? fmt::format(", VPP={} shrinks the bubble", s.vpp) : ""));
    if (s.mesh.cp > 1) s.reasons.push_back(fmt::format("CP={} splits the {}-token sequence", s.mesh.cp, seq));
    if (m.is_moe())
      s.reasons.push_back(
          fmt::format("EP={} places {} experts per GPU; ETP=1", s.mesh.ep, m.experts / s.mesh.ep));
    s.reasons.push_back(fmt::format("DP={}; estimated {:.1f} GiB per GPU of {:g} GiB", dp, s.memory_gib,
                                    r.cluster.gpu_memory_gib));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace parlint
