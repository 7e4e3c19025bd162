// PL504 mamba-heads-tp-cp: Mamba heads and groups, and gated-delta-net heads, split over TP and CP.
#include <fmt/format.h>

#include "lint/knowledge/hybrid_pattern.h"
#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kHybridLayerPattern,  Key::kMambaNumHeads,
                          Key::kMambaNumGroups,      Key::kMambaHeadDim,
                          Key::kHiddenSize,          Key::kTensorModelParallelSize,
                          Key::kContextParallelSize, Key::kLinearNumKeyHeads,
                          Key::kLinearNumValueHeads, Key::kExperimentalAttentionVariant};

constexpr RuleInfo kInfo{"PL504",
                         "mamba-heads-tp-cp",
                         Severity::kError,
                         "Mamba heads or groups (or gated-delta-net heads) that TP or TP·CP does not divide",
                         R"md(# PL504 mamba-heads-tp-cp

## What it does
For a model with Mamba layers (an `M` in its hybrid layer pattern, Mamba settings, `pretrain_mamba.py`,
a Megatron-Bridge Nemotron-H recipe), checks how the Mamba mixer splits over tensor and context
parallelism:
- TP divides the Mamba heads and the Mamba groups, and the groups divide the heads;
- with CP > 1: CP divides the heads per TP rank, and the groups per TP rank divide CP or are divided
  by it.

For gated delta net layers (`experimental_attention_variant: gdn`, or a `G` in the pattern), TP·CP
divides `linear_num_key_heads` and `linear_num_value_heads`, and the key heads divide the value heads.

The heads are `mamba_num_heads`, or `2 · hidden_size / mamba_head_dim` (head dimension 64 by default)
when Megatron-LM derives them; the groups are `mamba_num_groups`, 8 by default (Megatron-Core and
Megatron-Bridge's HybridModelProvider; Nemotron-H checkpoints have 8, so their TP must divide 8). TP and
CP are judged only as written.

## Why
The Mamba mixer gives each TP rank whole heads and whole groups and asserts when the model is built:
`nheads must be evenly divisble by tp_size`, `ngroups must be evenly divisible by tp_size`, `nheads must
be evenly divisible by ngroups`. Its context-parallel form asserts `nheads must be evenly divisible by
tp_size * cp_size` and `cp_size must be evenly divisible by ngroups/tp_size`. The job fails after it has
been scheduled and the checkpoint loaded.

## Example
```bash
torchrun --nproc_per_node=8 --nnodes=2 pretrain_mamba.py --tensor-model-parallel-size 16 \
  --hybrid-layer-pattern "M-M-M*-M-M-M*-" --hidden-size 4096 --num-attention-heads 32
```

## Fix
```bash
torchrun --nproc_per_node=8 --nnodes=2 pretrain_mamba.py --tensor-model-parallel-size 8 \
  --hybrid-layer-pattern "M-M-M*-M-M-M*-" --hidden-size 4096 --num-attention-heads 32
```

## Framework behaviour
Megatron-Core asserts when it builds the Mamba (or GDN) layers; Megatron-LM, Megatron-Bridge, NeMo 2 and
NeMo 1 build them with it. The GDN divisibility is checked earlier, in `TransformerConfig`.

## References
- Megatron-LM `megatron/core/ssm/mamba_mixer.py:245-274@d98e8a64ddf3` (heads from d_inner / head dim, TP
  divisibility)
- Megatron-LM `megatron/core/ssm/mamba_context_parallel.py:106-130@d98e8a64ddf3` (CP divisibility)
- Megatron-LM `megatron/core/transformer/transformer_config.py:1262-1270,1470-1509@d98e8a64ddf3` (Mamba
  defaults; GDN heads % TP·CP)
- Megatron-Bridge `src/megatron/bridge/models/hybrid/hybrid_provider.py:125@067f987df03b`
  (`mamba_num_groups = 8`)
)md",
                         kReads};

class MambaHeadsTpCp final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (job.framework() == Framework::kMegatronDeepSpeed) return;
    const bool bridge = job.framework() == Framework::kMegatronBridge;
    std::optional<HybridPattern> pattern;
    if (const Fact* p = job.fact(Key::kHybridLayerPattern); p && p->value.kind() == Value::Kind::kString)
      pattern = parse_hybrid_pattern(p->value.text()).pattern;
    const Fact* tp_fact =
        job.is_written(Key::kTensorModelParallelSize) ? job.fact(Key::kTensorModelParallelSize) : nullptr;
    const Fact* cp_fact =
        job.is_written(Key::kContextParallelSize) ? job.fact(Key::kContextParallelSize) : nullptr;
    const std::int64_t tp = tp_fact && tp_fact->value.as_int() ? *tp_fact->value.as_int() : 1;
    const std::int64_t cp = cp_fact && cp_fact->value.as_int() ? *cp_fact->value.as_int() : 1;
    if (tp < 1 || cp < 1 || (tp == 1 && cp == 1)) return;

    const bool bridge_hybrid = bridge && job.recipe() && job.recipe()->builds_hybrid_model();
    const bool mamba = (pattern && pattern->has('M')) || job.is_written(Key::kMambaNumHeads) ||
                       job.is_written(Key::kMambaNumGroups) ||
                       job.entry_script().find("pretrain_mamba") != std::string::npos || bridge_hybrid;
    if (mamba && check_mamba(job, bridge, tp, cp, tp_fact, cp_fact, out)) return;

    const Fact* variant = job.fact(Key::kExperimentalAttentionVariant);
    const bool gdn_variant = variant && variant->value.kind() == Value::Kind::kString &&
                             (variant->value.text() == "gdn" || variant->value.text() == "gdn2" ||
                              variant->value.text() == "gated_delta_net");
    if (gdn_variant || (pattern && pattern->has('G'))) check_gdn(job, bridge, tp, cp, tp_fact, cp_fact, out);
  }

 private:
  // A setting as written, or Megatron-Core's default where that default applies (never under
  // Megatron-Bridge, whose model providers carry their own values, unless `bridge_default` is given).
  static std::optional<std::int64_t> value_or_default(const Job& job, Key key, bool bridge,
                                                      std::optional<std::int64_t> core_default,
                                                      std::optional<std::int64_t> bridge_default,
                                                      std::string& why) {
    if (const Fact* f = job.fact(key)) {
      if (!f->value.as_int()) return std::nullopt;  // unknown, or not a number
      why = describe_source(*f, job.path());
      return f->value.as_int();
    }
    auto d = bridge ? bridge_default : core_default;
    if (d)
      why = bridge ? "HybridModelProvider's default, which Nemotron-H checkpoints keep"
                   : "Megatron-Core's default";
    return d;
  }

  static void emit(const Job& job, const Fact* at, std::string message, std::string help, const Fact* other,
                   std::vector<Finding>& out) {
    Finding f;
    f.location = at && at->location.in_file() ? at->location : Location{job.path(), job.range()};
    f.message = std::move(message);
    f.help = std::move(help);
    if (other && other != at && other->location.in_file()) f.related = related_locations(*other, "set here");
    out.push_back(std::move(f));
  }

  static bool check_mamba(const Job& job, bool bridge, std::int64_t tp, std::int64_t cp, const Fact* tp_fact,
                          const Fact* cp_fact, std::vector<Finding>& out) {
    std::string groups_why, heads_why;
    auto groups = value_or_default(job, Key::kMambaNumGroups, bridge, 8, 8, groups_why);
    std::optional<std::int64_t> heads = value_or_default(job, Key::kMambaNumHeads, bridge, {}, {}, heads_why);
    if (!heads && !bridge && !job.fact(Key::kMambaNumHeads)) {
      // Megatron-Core: nheads = expand · hidden / head_dim, with expand 2 (mamba_mixer.py:217-250).
      std::string dim_why;
      auto dim = value_or_default(job, Key::kMambaHeadDim, bridge, 64, {}, dim_why);
      const Fact* hidden = job.fact(Key::kHiddenSize);
      if (dim && *dim > 0 && hidden && hidden->location.in_file() && hidden->value.as_int() &&
          (2 * *hidden->value.as_int()) % *dim == 0) {
        heads = 2 * *hidden->value.as_int() / *dim;
        heads_why =
            fmt::format("2·hidden_size {} / mamba_head_dim {} ({})", *hidden->value.as_int(), *dim, dim_why);
      }
    }
    const std::string tp_text = tp_fact ? describe_source(*tp_fact, job.path()) : "TP=1";
    if (groups && *groups > 0 && *groups % tp != 0) {
      emit(job, tp_fact,
           fmt::format(
               "TP={} does not divide the {} Mamba groups (mamba_num_groups, {}); Megatron-Core asserts "
               "\"ngroups must be evenly divisible by tp_size\" when it builds the Mamba layers",
               tp, *groups, groups_why),
           fmt::format("use a TP that divides {} (and the heads), and scale with PP or DP", *groups),
           job.fact(Key::kMambaNumGroups), out);
      return true;
    }
    if (heads && *heads > 0 && *heads % tp != 0) {
      emit(
          job, tp_fact,
          fmt::format("TP={} does not divide the {} Mamba heads ({}); Megatron-Core asserts \"nheads must be "
                      "evenly divisble by tp_size\"",
                      tp, *heads, heads_why),
          fmt::format("use a TP that divides {}", *heads), job.fact(Key::kMambaNumHeads), out);
      return true;
    }
    if (heads && groups && *groups > 0 && *heads % *groups != 0) {
      emit(
          job, job.fact(Key::kMambaNumHeads) ? job.fact(Key::kMambaNumHeads) : job.fact(Key::kMambaNumGroups),
          fmt::format("the {} Mamba groups ({}) do not divide the {} Mamba heads ({}); Megatron-Core asserts "
                      "\"nheads must be evenly divisible by ngroups\"",
                      *groups, groups_why, *heads, heads_why),
          "make mamba_num_heads a multiple of mamba_num_groups", nullptr, out);
      return true;
    }
    if (cp <= 1) return false;
    if (heads && (*heads / tp) % cp != 0) {
      emit(job, cp_fact,
           fmt::format(
               "CP={} does not divide the {} Mamba heads per TP rank ({} heads over {}); Megatron-Core "
               "asserts \"nheads must be evenly divisible by tp_size * cp_size\"",
               cp, *heads / tp, *heads, tp_text),
           fmt::format("use a CP that divides {}", *heads / tp), tp_fact, out);
      return true;
    }
    if (groups && *groups > 0) {
      const std::int64_t local = *groups / tp;
      const bool bad = local < cp ? cp % local != 0 : local % cp != 0;
      if (bad) {
        emit(
            job, cp_fact,
            fmt::format("CP={} and the {} Mamba groups per TP rank ({} groups, {}) neither divide the other; "
                        "Megatron-Core asserts \"{}\"",
                        cp, local, *groups, groups_why,
                        local < cp ? "cp_size must be evenly divisible by ngroups/tp_size"
                                   : "ngroups must be evenly divisible by tp_size * cp_size"),
            fmt::format("use a CP that divides {} or is a multiple of it", local), tp_fact, out);
        return true;
      }
    }
    return false;
  }

  static void check_gdn(const Job& job, bool bridge, std::int64_t tp, std::int64_t cp, const Fact* tp_fact,
                        const Fact* cp_fact, std::vector<Finding>& out) {
    std::string k_why, v_why;
    auto k = value_or_default(job, Key::kLinearNumKeyHeads, bridge, 16, {}, k_why);
    auto v = value_or_default(job, Key::kLinearNumValueHeads, bridge, 32, {}, v_why);
    const std::int64_t tpcp = tp * cp;
    const Fact* at = tp_fact ? tp_fact : cp_fact;
    const std::string sizes = fmt::format("TP·CP = {}·{} = {}", tp, cp, tpcp);
    if (k && v && *k > 0 && *v % *k != 0)
      return emit(
          job, job.fact(Key::kLinearNumValueHeads),
          fmt::format("the {} gated-delta-net value heads ({}) are not a multiple of the {} key heads ({}); "
                      "Megatron-Core asserts \"linear_num_value_heads ({}) must be a multiple of "
                      "linear_num_key_heads ({})\"",
                      *v, v_why, *k, k_why, *v, *k),
          "make linear_num_value_heads a multiple of linear_num_key_heads", nullptr, out);
    for (auto [count, why, name] :
         {std::tuple{k, k_why, "linear_num_key_heads"}, std::tuple{v, v_why, "linear_num_value_heads"}})
      if (count && *count > 0 && *count % tpcp != 0)
        return emit(
            job, at,
            fmt::format("{} does not divide the {} gated-delta-net heads ({}={}, {}); Megatron-Core asserts "
                        "\"{}={} must be a multiple of (tensor_model_parallel_size * "
                        "context_parallel_size)\"",
                        sizes, *count, name, *count, why, name, *count),
            fmt::format("use TP·CP dividing {}", *count), nullptr, out);
  }
};

PARLINT_REGISTER_RULE(MambaHeadsTpCp);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
