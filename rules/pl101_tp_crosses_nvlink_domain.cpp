// PL101 tp-crosses-nvlink-domain: tensor (or expert-tensor) parallel groups that leave the NVLink domain.
#include <fmt/format.h>

#include <numeric>
#include <optional>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kTensorModelParallelSize, Key::kExpertModelParallelSize,
                          Key::kExpertTensorParallelSize, Key::kNumMoeExperts, Key::kWorldSize};

constexpr RuleInfo kInfo{"PL101",
                         "tp-crosses-nvlink-domain",
                         Severity::kError,
                         "TP (or ETP) is larger than the NVLink domain, or does not divide it so that TP "
                         "groups straddle two domains",
                         R"md(# PL101 tp-crosses-nvlink-domain

## What it does
Checks that every tensor-parallel group (and, for MoE models, every expert-tensor-parallel group)
stays inside one NVLink domain: the GPUs that share one NVLink fabric (8 on a DGX H100 node, 72 in a
GB200 NVL72 rack).

- **error**: TP (or ETP) is larger than the domain, so every TP group spans several domains.
- **warning**: TP fits but does not divide the domain, and the job spans more than one domain, so
  some TP groups straddle two domains.

## Why
Megatron-Core places TP ranks on consecutive GPUs and runs several all-reduces (or reduce-scatter /
all-gather pairs with sequence parallelism) per layer inside each TP group. Inside a node these use
NVLink (900 GB/s per H100); across nodes they fall back to InfiniBand or Ethernet, roughly 9-18x
slower. Nothing fails: the job runs, and silently spends most of each step waiting for the network.

## Example
```yaml
trainer:
  devices: 8          # 8 GPUs per node: an 8-GPU NVLink domain
  num_nodes: 4
model:
  tensor_model_parallel_size: 16   # PL101: TP=16 spans 2 NVLink domains of 8 GPUs
```

## Fix
```yaml
trainer:
  devices: 8
  num_nodes: 4
model:
  tensor_model_parallel_size: 8    # TP inside the node
  pipeline_model_parallel_size: 2  # scale across nodes with PP (or DP)
```

`parlint check --fix --unsafe-fixes` sets TP (or ETP) to the NVLink domain size, or, for a size that does
not divide the domain, to the largest one below it that does (an **unsafe** fix: the layout changes, and
data parallelism takes the GPUs TP gives up). The fix is dropped when the new data-parallel size makes
another rule fail, such as a global batch size it does not divide.

## Framework behaviour
No framework checks this: Megatron-LM, Megatron-Bridge and NeMo build the groups and run.

## Configuration
The domain comes from `--nvlink-domain N`, an explicit `--cluster` profile (`gb200-nvl72` and
`gb300-nvl72` have 72-GPU domains), the job's own GPUs per node, or the default `dgx-h100` profile (8).

## References
- Megatron-LM `megatron/core/parallel_state.py:465@d98e8a64ddf3` (RankGenerator: a TP group is TP
  consecutive ranks; default order `tp-cp-ep-dp-pp` at line 617; the expert grid puts ETP in the `tp`
  slot, line 888)
- Megatron-LM `megatron/core/parallel_state.py:755-769@d98e8a64ddf3` (docstring: TP groups `[g0, g1]`,
  `[g2, g3]`, …; adjacent ranks are expected to share a box)
- Megatron-Bridge `scripts/performance/utils/utils.py:316-328@067f987df03b` (NVLink domain sizes: 8 GPUs
  for H100, B200, B300; 72 for GB200, GB300)
)md",
                         kReads,
                         FixAvailability::kUnsafe};

// TP groups are `size` consecutive ranks; count those in the first `world` ranks that touch two domains.
// Groups of `size` consecutive ranks that straddle two domains. The pattern repeats every
// lcm(size, domain) ranks, so whole periods are counted once and multiplied: a loop over every group
// took minutes for a hostile `#SBATCH --nodes=18888888888` (found by fuzz_shell).
std::int64_t straddling_groups(std::int64_t size, std::int64_t domain, std::int64_t world) {
  auto count = [&](std::int64_t groups) {
    std::int64_t n = 0;
    for (std::int64_t k = 0; k < groups; ++k) {
      std::int64_t start = k * size;
      n += (start / domain) != ((start + size - 1) / domain);
    }
    return n;
  };
  std::int64_t per_period = domain / std::gcd(size, domain);  // groups in one period of the pattern
  if (per_period > 1'000'000) return 0;                       // no NVLink domain is this large
  std::int64_t groups = world / size;
  return (groups / per_period) * count(per_period) + count(groups % per_period);
}

class TpCrossesNvlinkDomain final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const NvlinkDomain& domain = job.nvlink_domain();
    auto tp = job.get_int(Key::kTensorModelParallelSize);
    if (tp) check_size(job, Key::kTensorModelParallelSize, "TP", *tp, domain, out);
    // ETP matters for MoE jobs only, and only when it is not simply TP again (reported above).
    auto etp = job.get_int(Key::kExpertTensorParallelSize);
    if (job.is_moe() && etp && (!tp || *etp != *tp))
      check_size(job, Key::kExpertTensorParallelSize, "ETP", *etp, domain, out);
  }

 private:
  static void check_size(const Job& job, Key key, const char* label, std::int64_t size,
                         const NvlinkDomain& domain, std::vector<Finding>& out) {
    const Fact* fact = job.fact(key);
    std::int64_t d = domain.size;
    if (size <= 1 || d <= 0 || !fact->location.in_file()) return;
    std::string domain_source =
        domain.from ? fmt::format("{} set by {}", domain.source, describe_source(*domain.from, job.path()))
                    : domain.source;
    std::vector<std::int64_t> fitting;
    for (std::int64_t v : divisors(d))
      if (v <= size) fitting.push_back(v);

    Finding f;
    f.location = fact->location;
    if (domain.from)
      f.related = related_locations(*domain.from, "GPUs per node set here (the NVLink domain)");
    for (const auto& w : fact->written_at) f.related.push_back(w);

    if (size > d) {
      f.severity = Severity::kError;
      f.message = fmt::format(
          "{}={} spans {} NVLink domains of {} GPUs ({}); every {} all-reduce leaves NVLink for the much "
          "slower "
          "inter-node network, and the job runs without any error",
          label, size, (size + d - 1) / d, d, domain_source, label);
      f.help = fmt::format(
          "keep {} <= {} ({} divide the domain) and scale across nodes with PP or DP; if this cluster has a "
          "larger "
          "NVLink domain (GB200 NVL72), pass --cluster gb200-nvl72 or --nvlink-domain 72",
          label, d, join_numbers(fitting, " or "));
      f.fix = into_domain(*fact, label, d);
      out.push_back(std::move(f));
      return;
    }
    if (d % size == 0) return;
    const Fact* world_fact = job.fact(Key::kWorldSize);
    auto world = job.get_int(Key::kWorldSize);
    if (!world || *world <= d) return;
    std::int64_t groups = *world / size;
    std::int64_t bad = straddling_groups(size, d, *world);
    if (bad == 0) return;
    f.severity = Severity::kWarning;
    f.weak = world_fact->weak;
    f.message = fmt::format(
        "{}={} does not divide the {}-GPU NVLink domain ({}): with {} GPUs, {} of {} {} groups straddle two "
        "domains and run their all-reduces over the inter-node network{}",
        label, size, d, domain_source, *world, bad, groups, label,
        world_fact->weak ? " (" + world_fact->weak_note + ")" : "");
    f.help = fmt::format("use a {} that divides {} ({})", label, d, join_numbers(fitting, " or "));
    if (!fitting.empty() && !f.weak) f.fix = into_domain(*fact, label, fitting.back());
    out.push_back(std::move(f));
  }

  // Unsafe: the size becomes `to`, which fits one NVLink domain; data parallelism takes the rest of the
  // GPUs (the world size stays), so the batch sizes must still divide (the fix is dropped if they do not).
  static std::optional<FixRequest> into_domain(const Fact& fact, const char* label, std::int64_t to) {
    if (fact.weak) return std::nullopt;
    return FixRequest{FixApplicability::kUnsafe,
                      fmt::format("set {} to {} (data parallelism takes the other GPUs)", label, to),
                      {set_value(fact, Value::integer(to))}};
  }
};

PARLINT_REGISTER_RULE(TpCrossesNvlinkDomain);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
