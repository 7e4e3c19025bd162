// PL206 cp-comm-config: context-parallel communication settings Transformer Engine accepts.
#include <fmt/format.h>

#include <algorithm>

#include "lint/describe.h"
#include "lint/rule.h"

namespace parlint {
namespace {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kContextParallelSize, Key::kHierarchicalContextParallelSizes, Key::kCpCommType,
                          Key::kExperimentalAttentionVariant, Key::kNumLayers};

constexpr RuleInfo kInfo{"PL206",
                         "cp-comm-config",
                         Severity::kError,
                         "cp_comm_type not in {p2p, all_gather, a2a, a2a+p2p}; a2a+p2p without "
                         "hierarchical_context_parallel_sizes; their product != CP",
                         R"md(# PL206 cp-comm-config

## What it does
Checks the context-parallel communication settings: every `cp_comm_type` is one of `p2p`, `all_gather`,
`a2a`, `a2a+p2p` (a per-layer list must have one entry per layer); `a2a+p2p` needs
`hierarchical_context_parallel_sizes`, whose product must equal CP.

## Why
Transformer Engine raises `Unsupported communication type` on the first forward pass; Megatron-LM's own
help text spells `allgather`, which TE rejects. Without hierarchical sizes `a2a+p2p` asserts in
Megatron-LM and Megatron-Bridge ("CP communication is silently disabled"); a wrong product asserts
"Product of hierarchical_context_parallel_sizes ... must equal context_parallel_size".

## Example
```yaml
trainer: {devices: 8, num_nodes: 1}
model:
  context_parallel_size: 4
  cp_comm_type: allgather
```

## Fix
```yaml
trainer: {devices: 8, num_nodes: 1}
model:
  context_parallel_size: 4
  cp_comm_type: all_gather
```
`allgather` is judged only where the attention variant is known (Megatron-LM flags, NeMo 1, a described
model, or `experimental_attention_variant` written): a Megatron-Bridge model provider parlint does not see
may use DSA, which takes exactly that spelling.

## Framework behaviour
Transformer Engine fails at the first step; Megatron-LM and Megatron-Bridge assert at start-up for the
hierarchical settings. DeepSeek Sparse Attention (`experimental_attention_variant: dsa`) does not use
Transformer Engine's attention: it normalises the type (`all_gather` and `allgather` are the same,
`dsa_layout.py:115-119@d98e8a64ddf3`) and with CP > 1 asserts "DSAttention context parallelism currently
supports cp_comm_type=allgather only" (`dsa.py:1805-1808@d98e8a64ddf3`), so for DSA `allgather` is
required, and the default `p2p` is refused.

## References
- TransformerEngine `transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py`
  `:5096-5139@d0067d0da6cb` (accepts `p2p`, `a2a+p2p`, `all_gather`, `a2a`; anything else raises
  "Unsupported communication type")
- Megatron-LM `megatron/core/extensions/transformer_engine.py:2141-2142@d98e8a64ddf3` (an unset type is
  `p2p`)
- Megatron-LM `megatron/training/arguments.py:3221-3226@d98e8a64ddf3` (`--cp-comm-type` help spells
  `allgather`)
- Megatron-LM `megatron/training/arguments.py:580-585@d98e8a64ddf3` (hierarchical sizes must multiply to
  CP; `a2a+p2p` needs them)
- Megatron-LM `megatron/core/parallel_state.py:1127-1128@d98e8a64ddf3` (the product check again at group
  creation)
- Megatron-LM `megatron/core/transformer/transformer_config.py:3103-3108@d98e8a64ddf3` (a per-layer list
  needs one entry per layer)
- Megatron-Bridge `src/megatron/bridge/training/config.py:1671-1697@067f987df03b` (list length, `a2a+p2p`
  without hierarchical sizes, and their product)
)md",
                         kReads};

bool valid_type(const std::string& t) {
  return t == "p2p" || t == "all_gather" || t == "a2a" || t == "a2a+p2p";
}

class CpCommConfig final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto cp = job.get_int(Key::kContextParallelSize);
    const Fact* type = job.fact(Key::kCpCommType);
    const Fact* hcp = job.fact(Key::kHierarchicalContextParallelSizes);
    std::vector<std::string> types;
    if (type && type->value.kind() == Value::Kind::kString) types.push_back(type->value.text());
    if (type && type->value.kind() == Value::Kind::kList)
      for (const auto& v : type->value.items())
        if (v.kind() == Value::Kind::kString) types.push_back(v.text());
    auto finding = [&](const Fact* at, std::string msg, std::string help) {
      Finding f;
      f.location = at->location.in_file() ? at->location : Location{job.path(), job.range()};
      f.message = std::move(msg);
      f.help = std::move(help);
      out.push_back(std::move(f));
    };
    const Fact* variant = job.fact(Key::kExperimentalAttentionVariant);
    if (variant && variant->value.kind() == Value::Kind::kString && variant->value.text() == "dsa") {
      // DSA attention has its own CP path: it accepts allgather (any spelling) and nothing else.
      if (!cp || *cp <= 1) return;
      if (type && type->value.is_unknown()) return;
      if (!type && !job.describes_model()) return;  // the default p2p counts only where defaults are known
      std::string t = types.empty() ? "p2p" : types.front();
      std::erase(t, '_');
      std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
      if (t == "allgather") return;
      finding(type ? type : variant,
              fmt::format(
                  "DSA attention with CP={} and cp_comm_type \"{}\"{}: Megatron-Core asserts \"DSAttention "
                  "context parallelism currently supports cp_comm_type=allgather only\"",
                  *cp, types.empty() ? "p2p" : types.front(), type ? "" : " (the default)"),
              "set cp_comm_type to allgather");
      return;
    }
    // `allgather` is DSA's spelling: where the attention variant is not known (a Bridge model provider
    // parlint does not see may set DSA), it is not judged.
    Framework fw = job.framework();
    bool variant_known =
        variant || job.describes_model() || megatron_lm_family(fw) || fw == Framework::kNemo1;
    for (const auto& t : types) {
      if (valid_type(t) || (t == "allgather" && !variant_known)) continue;
      finding(
          type,
          fmt::format("cp_comm_type \"{}\" is not a communication type Transformer Engine accepts; it raises "
                      "\"Unsupported communication type\" on the first forward pass",
                      t),
          t == "allgather" ? "spell it all_gather" : "use p2p, all_gather, a2a or a2a+p2p");
      return;
    }
    if (cp && *cp > 1 && type && type->value.kind() == Value::Kind::kList) {
      auto layers = job.get_int(Key::kNumLayers);
      if (layers && static_cast<std::int64_t>(type->value.items().size()) != *layers) {
        finding(
            type,
            fmt::format("cp_comm_type lists {} entries but the model has {} layers; Megatron-Core asserts "
                        "\"Length of cp_comm_type should equal to the total number of transformer layers\"",
                        type->value.items().size(), *layers),
            "give one entry per layer, or a single type for all layers");
        return;
      }
    }
    bool a2a_p2p = std::find(types.begin(), types.end(), "a2a+p2p") != types.end();
    if (a2a_p2p && cp && *cp > 1 && (!hcp || hcp->value.kind() == Value::Kind::kNull)) {
      finding(
          type,
          "cp_comm_type a2a+p2p needs hierarchical_context_parallel_sizes; Megatron-LM and Megatron-Bridge "
          "assert (without it, CP communication is silently disabled)",
          fmt::format("set hierarchical_context_parallel_sizes to two sizes whose product is CP={}", *cp));
      return;
    }
    if (hcp && hcp->value.kind() == Value::Kind::kList && cp) {
      std::int64_t product = 1;
      for (const auto& v : hcp->value.items()) {
        auto x = v.as_int();
        if (!x) return;
        product *= *x;
      }
      if (product != *cp)
        finding(hcp,
                fmt::format(
                    "the product of hierarchical_context_parallel_sizes {} is {}, not CP={}; Megatron-Core "
                    "asserts \"Product of hierarchical_context_parallel_sizes ... must equal "
                    "context_parallel_size\"",
                    hcp->value.to_string(), product, *cp),
                fmt::format("choose sizes whose product is {}", *cp));
    }
  }
};

PARLINT_REGISTER_RULE(CpCommConfig);

}  // namespace
}  // namespace parlint
