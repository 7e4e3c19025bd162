// PL406 hybrid-pattern-pipeline: a hybrid (Mamba / Nemotron-H) layer pattern and the pipeline split.
#include <fmt/format.h>

#include "lint/knowledge/hybrid_pattern.h"
#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kHybridLayerPattern,
                          Key::kNumLayers,
                          Key::kPipelineModelParallelSize,
                          Key::kVirtualPipelineModelParallelSize,
                          Key::kNumLayersPerVirtualPipelineStage,
                          Key::kPipelineModelParallelLayout,
                          Key::kNumLayersInFirstPipelineStage,
                          Key::kNumLayersInLastPipelineStage,
                          Key::kAccountForEmbeddingInPipelineSplit,
                          Key::kAccountForLossInPipelineSplit};

constexpr RuleInfo kInfo{
    "PL406",
    "hybrid-pattern-pipeline",
    Severity::kError,
    "a hybrid layer pattern Megatron-Core refuses, or one that does not split over the pipeline "
    "(segments % PP, layers % PP, VPP on a Megatron-Bridge hybrid model)",
    R"md(# PL406 hybrid-pattern-pipeline

## What it does
Checks a hybrid model's layer pattern (`--hybrid-layer-pattern`, its deprecated name
`--hybrid-override-pattern`, a provider's `hybrid_layer_pattern` / `hybrid_override_pattern`) and how it
is split over the pipeline:
- only the symbols `M G * D + - E` (and `|` between pipeline segments of the main pattern, `/` before
  each MTP depth); no attention (`*`) together with MLA (`+`) or DSA (`D`); identical MTP depths;
- the layer count is the pattern's: a different `num_layers` is ignored by Megatron-LM (warning) and
  refused by Megatron-Bridge (error);
- with `|` segments: their number divides by PP (Megatron-LM derives VPP = segments / PP), and no
  first/last-stage layer counts;
- without `|` and PP > 1 (the deprecated automatic split): the layers divide by PP (or, with
  first/last-stage counts, the middle layers by the middle stages), and no virtual pipeline;
- Megatron-LM refuses the other pipeline-split settings with a pattern (layers per virtual stage,
  virtual stages per rank, a pipeline layout, the account_for_* flags);
- Megatron-Bridge's hybrid models (`HybridModelProvider`: Nemotron-H, Nemotron Nano v2, Nemotron 3)
  refuse any virtual pipeline size.

Parlint takes a hybrid model's layer count from its pattern for the other rules too.

## Why
Megatron-Core parses the pattern when the model is built and raises `ValueError` (`In main pattern, 'x'
is not a valid layer symbol`, `The number of pipe-delimited segments ... must be evenly divisible by
pipeline_model_parallel_size`, `Number of layers (L) must be evenly divisible by
pipeline-model-parallel-size (PP) when no pipe separators are specified`). Megatron-LM asserts on the
pipeline flags when it validates its arguments. Megatron-Bridge's `HybridModelProvider.provide()`
asserts `Virtual pipeline model parallelism is temporarily unsupported in Hybrid models`.

## Example
```bash
torchrun --nproc_per_node=8 pretrain_hybrid.py --pipeline-model-parallel-size 4 \
  --hybrid-layer-pattern "M-M-M*-|M-M-M*-|M-M-M-" --hidden-size 1024 --num-attention-heads 8
```

## Fix
```bash
torchrun --nproc_per_node=8 pretrain_hybrid.py --pipeline-model-parallel-size 3 \
  --hybrid-layer-pattern "M-M-M*-|M-M-M*-|M-M-M-" --hidden-size 1024 --num-attention-heads 8
```

## Framework behaviour
| check | Megatron-LM | Megatron-Bridge |
|---|---|---|
| pattern symbols, attention with MLA/DSA, MTP depths | `ValueError` | `ValueError` |
| `num_layers` ≠ the pattern's | warns and uses the pattern (warning) | asserts (error) |
| segments % PP, first/last counts with segments | asserts in `validate_args` | `ValueError` at build |
| layers % PP without segments, VPP without segments | `ValueError` at build | `ValueError` at build |
| layers per virtual stage, layout, account_for_* | asserts | not checked by parlint |
| any VPP | derived from the segments | asserts in `provide()` |

## References
- Megatron-LM `megatron/core/models/hybrid/hybrid_layer_allocation.py:14-25,258-298@d98e8a64ddf3`
  (symbols, MTP depths), `:377-441` (the automatic split), `:459-465` (segments % PP)
- Megatron-LM `megatron/training/arguments.py:785-862@d98e8a64ddf3` (layer count from the pattern, the
  pipeline flags refused, VPP from the segments)
- Megatron-Bridge `src/megatron/bridge/models/hybrid/hybrid_provider.py:236-251,291-294@067f987df03b`
  (num_layers must match, no VPP)
)md",
    kReads};

bool is_set(const Fact* f) {
  return f && f->value.is_known() && f->value.kind() != Value::Kind::kNull && f->value.as_bool() != false;
}

class HybridPatternPipeline final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Framework fw = job.framework();
    const bool mlm = fw == Framework::kMegatronLM, bridge = fw == Framework::kMegatronBridge;
    const Fact* pattern_fact = job.fact(Key::kHybridLayerPattern);
    const bool has_pattern = pattern_fact && pattern_fact->value.kind() == Value::Kind::kString;
    if (bridge && (has_pattern || (job.recipe() && job.recipe()->builds_hybrid_model())) &&
        bridge_vpp(job, out))
      return;
    if (!has_pattern || !pattern_fact->location.in_file()) return;
    if (!mlm && !bridge && fw != Framework::kUnknown && fw != Framework::kNemo2) return;
    auto parsed = parse_hybrid_pattern(pattern_fact->value.text());
    Finding f;
    f.location = pattern_fact->location;
    auto report = [&](std::string message, std::string help, const Fact* other = nullptr,
                      Severity severity = Severity::kError) {
      f.severity = severity;
      f.message = std::move(message);
      f.help = std::move(help);
      if (other && other->location.in_file()) f.related = related_locations(*other, "set here");
      out.push_back(std::move(f));
    };
    if (!parsed.error.empty())
      return report(
          fmt::format("the hybrid layer pattern is refused: Megatron-Core raises \"{}\"", parsed.error),
          "use only M G * D + - E, '|' between pipeline segments and '/' before identical MTP "
          "depths; do not mix * with + or D");
    const HybridPattern& p = *parsed.pattern;
    if (const Fact* L = job.fact_in_file(Key::kNumLayers);
        L && L->value.as_int() && *L->value.as_int() != p.layers) {
      if (bridge)
        return report(
            fmt::format("num_layers={} but the hybrid layer pattern has {} layers; Megatron-Bridge "
                        "asserts \"num_layers ({}) does not match the number of layers derived from "
                        "hybrid_layer_pattern ({})\"",
                        *L->value.as_int(), p.layers, *L->value.as_int(), p.layers),
            fmt::format("set num_layers to {} or remove it", p.layers), L);
      if (mlm) {
        report(
            fmt::format("--num-layers {} differs from the {} layers of the hybrid layer pattern; Megatron-LM "
                        "warns \"--hybrid-layer-pattern is set; ignoring --num-layers\" and builds {} layers",
                        *L->value.as_int(), p.layers, p.layers),
            "remove --num-layers (the pattern decides) or make the pattern match it", L, Severity::kWarning);
        f = Finding{};
        f.location = pattern_fact->location;
      }
    }
    if (mlm) {
      struct Refused {
        Key key;
        const char* flag;
      };
      for (Refused r :
           {Refused{Key::kNumLayersPerVirtualPipelineStage, "--num-layers-per-virtual-pipeline-stage"},
            Refused{Key::kVirtualPipelineModelParallelSize, "--num-virtual-stages-per-pipeline-rank"},
            Refused{Key::kPipelineModelParallelLayout, "--pipeline-model-parallel-layout"},
            Refused{Key::kAccountForEmbeddingInPipelineSplit, "--account-for-embedding-in-pipeline-split"},
            Refused{Key::kAccountForLossInPipelineSplit, "--account-for-loss-in-pipeline-split"}})
        if (const Fact* w = job.fact_in_file(r.key); is_set(w))
          return report(
              fmt::format("{} with --hybrid-layer-pattern; Megatron-LM asserts \"{} should not be used "
                          "with --hybrid-layer-pattern\" (the pattern's '|' segments define the stages)",
                          r.flag, r.flag),
              "remove it and describe the stages with '|' in the pattern", w);
    }
    const Fact* first = job.fact_in_file(Key::kNumLayersInFirstPipelineStage);
    const Fact* last = job.fact_in_file(Key::kNumLayersInLastPipelineStage);
    auto pp = job.get_int(Key::kPipelineModelParallelSize);
    const auto segments = static_cast<std::int64_t>(p.segments.size());
    if (p.has_pipes()) {
      if (is_set(first) || is_set(last))
        return report(
            "num_layers_in_first/last_pipeline_stage with a pattern that has '|' segments; Megatron-Core "
            "raises "
            "\"Cannot specify num_layers_in_first_pipeline_stage or num_layers_in_last_pipeline_stage when "
            "hybrid_layer_pattern contains pipe ('|') separators\"",
            "remove the first/last-stage counts: the segments define the stages",
            is_set(first) ? first : last);
      if (pp && *pp > 0 && segments % *pp != 0)
        return report(
            fmt::format("the hybrid layer pattern has {} '|' segments, not divisible by PP={}; {} \"The "
                        "number of hybrid pipeline segments ... must be evenly divisible by "
                        "--pipeline-model-parallel-size\"",
                        segments, *pp, mlm ? "Megatron-LM asserts" : "Megatron-Core raises"),
            fmt::format("use a multiple of {} segments (VPP = segments / PP), or a PP that divides {}", *pp,
                        segments),
            job.fact(Key::kPipelineModelParallelSize));
      return;
    }
    if (!pp || *pp <= 1 || !job.is_written(Key::kPipelineModelParallelSize)) return;
    const Fact* pp_fact = job.fact(Key::kPipelineModelParallelSize);
    if (const Fact* vpp = job.fact_in_file(Key::kVirtualPipelineModelParallelSize);
        !mlm && vpp && vpp->value.as_int() && *vpp->value.as_int() > 1)
      return report(
          "a virtual pipeline with a hybrid layer pattern that has no '|' segments; Megatron-Core raises "
          "\"Virtual pipeline parallelism (vp_stage != None) is not supported when hybrid_layer_pattern "
          "has no pipe ('|') separators\"",
          "add '|' between PP·VPP segments of the pattern, or remove the virtual pipeline", vpp);
    if (!is_set(first) && !is_set(last)) {
      if (p.layers % *pp != 0)
        return report(
            fmt::format("the hybrid layer pattern has {} layers and no '|' segments, not divisible by "
                        "PP={}; Megatron-Core raises \"Number of layers ({}) must be evenly divisible by "
                        "pipeline-model-parallel-size ({}) when no pipe separators are specified\"",
                        p.layers, *pp, p.layers, *pp),
            "split the pattern into PP segments with '|' (this also replaces the deprecated "
            "automatic split)",
            pp_fact);
      return;
    }
    auto fv = is_set(first) ? first->value.as_int() : std::optional<std::int64_t>(0);
    auto lv = is_set(last) ? last->value.as_int() : std::optional<std::int64_t>(0);
    if (!fv || !lv) return;
    const std::int64_t middle_stages = *pp - (is_set(first) ? 1 : 0) - (is_set(last) ? 1 : 0);
    const std::int64_t middle_layers = p.layers - *fv - *lv;
    if (middle_stages > 0 && middle_layers % middle_stages != 0)
      return report(
          fmt::format("{} of the pattern's {} layers remain for {} middle stages; Megatron-Core raises "
                      "\"Middle layers ({}) must be evenly divisible by middle pipeline stages ({})\"",
                      middle_layers, p.layers, middle_stages, middle_layers, middle_stages),
          "adjust the first/last-stage counts, or split the pattern with '|'", is_set(first) ? first : last);
  }

  // H8: Megatron-Bridge's HybridModelProvider has no virtual pipeline.
  static bool bridge_vpp(const Job& job, std::vector<Finding>& out) {
    const Fact* vpp = job.fact(Key::kVirtualPipelineModelParallelSize);
    if (!vpp || !vpp->location.in_file() || !vpp->value.as_int() || *vpp->value.as_int() <= 1) return false;
    Finding f;
    f.location = vpp->location;
    f.message = fmt::format(
        "VPP={} on a Megatron-Bridge hybrid model (HybridModelProvider{}); it asserts \"Virtual pipeline "
        "model "
        "parallelism is temporarily unsupported in Hybrid models\" when it builds the model",
        *vpp->value.as_int(), job.recipe() ? ", recipe " + job.recipe()->function : std::string());
    f.help = "remove the virtual pipeline (virtual_pipeline_model_parallel_size=None) for this model";
    out.push_back(std::move(f));
    return true;
  }
};

PARLINT_REGISTER_RULE(HybridPatternPipeline);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
