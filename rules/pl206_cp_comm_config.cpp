// PL206 cp-comm-config: context-parallel communication settings Transformer Engine accepts.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kContextParallelSize,
                          Key::kHierarchicalContextParallelSizes,
                          Key::kCpCommType,
                          Key::kExperimentalAttentionVariant,
                          Key::kNumLayers,
                          Key::kWindowSize,
                          Key::kNumAttentionHeads,
                          Key::kNumQueryGroups,
                          Key::kTensorModelParallelSize};

constexpr RuleInfo kInfo{
    "PL206",
    "cp-comm-config",
    Severity::kError,
    "cp_comm_type not in {p2p, all_gather, a2a, a2a+p2p}; a2a+p2p without "
    "hierarchical_context_parallel_sizes; their product != CP; a2a with heads per TP rank "
    "that the a2a CP size does not divide; sliding-window attention without a2a or "
    "all_gather",
    R"md(# PL206 cp-comm-config

## What it does
Checks the context-parallel communication settings: every `cp_comm_type` is one of `p2p`, `all_gather`,
`a2a`, `a2a+p2p` (a per-layer list must have one entry per layer); `a2a+p2p` needs
`hierarchical_context_parallel_sizes`, whose product must equal CP. With `a2a` (or the a2a level of
`a2a+p2p`, the first hierarchical size) every TP rank's query heads (`heads / TP`) and key/value heads
(`groups / TP`, or one replicated head when TP exceeds the groups) must divide by the a2a CP size.
Sliding-window attention (`window_size` other than `(-1, 0)` / `(-1, -1)`) with CP > 1 needs `a2a` or
`all_gather`; the default `p2p` is refused.

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

`parlint check --fix` respells a single written type (a **safe** fix, since Transformer Engine refuses the
old spelling): `allgather` becomes `all_gather`, and under DSA attention any other type becomes `allgather`.
A per-layer list and the hierarchical sizes are left to you: several sizes multiply to CP.

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
- TransformerEngine `transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py`
  `:4246-4249@d0067d0da6cb` (a2a: "cp_comm_type='a2a' requires num_heads % cp_size == 0 for Q, K, V"),
  `:5054-5060` (sliding-window attention only with a2a or all_gather)

Not checked, because current Transformer Engine accepts them (older releases refused them, and parlint
cannot see the version): MLA with `all_gather` or `a2a` (refused before TE 2.9), an a2a head dimension
that is not a multiple of 8.
)md",
    kReads,
    FixAvailability::kSafe};

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
    auto finding = [&](const Fact* at, std::string msg, std::string help,
                       std::optional<FixRequest> fix = std::nullopt) {
      Finding f;
      f.location = at->location.in_file() ? at->location : Location{job.path(), job.range()};
      f.message = std::move(msg);
      f.help = std::move(help);
      f.fix = std::move(fix);
      out.push_back(std::move(f));
    };
    // One written type (not a per-layer list) respelled: safe, Transformer Engine refuses the old one.
    auto respell = [&](const char* to) -> std::optional<FixRequest> {
      if (!type || type->value.kind() != Value::Kind::kString) return std::nullopt;
      return FixRequest{FixApplicability::kSafe,
                        fmt::format("set cp_comm_type to {}", to),
                        {set_value(*type, Value::string(to))}};
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
              "set cp_comm_type to allgather", respell("allgather"));
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
          t == "allgather" ? "spell it all_gather" : "use p2p, all_gather, a2a or a2a+p2p",
          t == "allgather" ? respell("all_gather") : std::nullopt);
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
      if (product != *cp) {
        finding(hcp,
                fmt::format(
                    "the product of hierarchical_context_parallel_sizes {} is {}, not CP={}; Megatron-Core "
                    "asserts \"Product of hierarchical_context_parallel_sizes ... must equal "
                    "context_parallel_size\"",
                    hcp->value.to_string(), product, *cp),
                fmt::format("choose sizes whose product is {}", *cp));
        return;
      }
    }
    if (!cp || *cp <= 1) return;
    if (a2a_heads(job, *cp, types, hcp, type, out)) return;
    sliding_window(job, *cp, types, type, out);
  }

 private:
  // C7: a2a exchanges heads for sequence: each TP rank's heads must split over the a2a CP group.
  static bool a2a_heads(const Job& job, std::int64_t cp, const std::vector<std::string>& types,
                        const Fact* hcp, const Fact* type, std::vector<Finding>& out) {
    if (types.size() != 1 || (types[0] != "a2a" && types[0] != "a2a+p2p")) return false;
    std::int64_t a2a = cp;
    if (types[0] == "a2a+p2p") {
      if (!hcp || hcp->value.kind() != Value::Kind::kList || hcp->value.items().empty()) return false;
      auto first = hcp->value.items().front().as_int();
      if (!first) return false;
      a2a = *first;
    }
    auto heads = job.get_int(Key::kNumAttentionHeads), groups = job.get_int(Key::kNumQueryGroups),
         tp = job.get_int(Key::kTensorModelParallelSize);
    if (a2a <= 1 || !heads || !tp || *tp < 1 || *heads % *tp != 0) return false;
    const std::int64_t q = *heads / *tp;
    const std::int64_t kv = groups ? (*groups >= *tp ? *groups / *tp : 1) : q;
    if (q % a2a == 0 && kv % a2a == 0) return false;
    Finding f;
    f.location = type->location.in_file() ? type->location : Location{job.path(), job.range()};
    f.message = fmt::format(
        "cp_comm_type {} exchanges heads across an a2a group of {}, but each TP rank holds {} query and {} "
        "key/value "
        "heads (heads {}, groups {}, TP={}); Transformer Engine asserts \"cp_comm_type='a2a' requires "
        "num_heads % "
        "cp_size == 0 for Q, K, V\" in the first forward pass",
        types[0], a2a, q, kv, *heads, groups ? std::to_string(*groups) : std::string("= heads"), *tp);
    f.help = types[0] == "a2a"
                 ? "use p2p (or a2a+p2p with an a2a size that divides the heads per TP rank)"
                 : "choose an a2a size (the first hierarchical size) that divides the heads per TP rank";
    out.push_back(std::move(f));
    return true;
  }

  // C10: Transformer Engine's sliding-window attention under CP runs only with a2a or all_gather.
  static void sliding_window(const Job& job, std::int64_t cp, const std::vector<std::string>& types,
                             const Fact* type, std::vector<Finding>& out) {
    const Fact* window = job.fact(Key::kWindowSize);
    if (!window || !window->location.in_file()) return;
    std::vector<std::int64_t> w;
    if (window->value.kind() == Value::Kind::kList) {
      for (const Value& v : window->value.items())
        if (auto i = v.as_int()) w.push_back(*i);
    } else if (window->value.kind() == Value::Kind::kString) {  // --window-size 4096,0
      std::string t = window->value.text();
      std::size_t comma = t.find(',');
      if (comma != std::string::npos) {
        try {
          w = {std::stoll(t.substr(0, comma)), std::stoll(t.substr(comma + 1))};
        } catch (const std::exception&) {
          return;  // not two numbers
        }
      }
    }
    if (w.size() != 2 || (w[0] == -1 && (w[1] == 0 || w[1] == -1))) return;
    if (type && type->value.is_unknown()) return;
    const std::string t = types.empty() ? "p2p" : types.front();
    if (types.size() > 1 || t == "a2a" || t == "all_gather") return;
    if (!type && !job.is_written(Key::kContextParallelSize)) return;
    Finding f;
    f.location = type && type->location.in_file() ? type->location : window->location;
    f.message = fmt::format(
        "sliding-window attention (window_size {}, {}) with CP={} and cp_comm_type {}{}; Transformer Engine "
        "asserts "
        "\"Context parallelism does not support sliding window attention with cp_comm_type='{}'!\"",
        window->value.to_string(), describe_source(*window, job.path()), cp, t, type ? "" : " (the default)",
        t);
    f.help = "use cp_comm_type a2a or all_gather for sliding-window attention";
    out.push_back(std::move(f));
  }
};

PARLINT_REGISTER_RULE(CpCommConfig);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
