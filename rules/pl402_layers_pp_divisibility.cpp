// PL402 layers-pp-divisibility: layers must split evenly over pipeline (and virtual pipeline) stages.
#include <fmt/format.h>

#include <algorithm>

#include "lint/knowledge/pipeline_layout.h"
#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kHybridLayerPattern,
                          Key::kPipelineModelParallelSize,
                          Key::kVirtualPipelineModelParallelSize,
                          Key::kNumLayersInFirstPipelineStage,
                          Key::kNumLayersInLastPipelineStage,
                          Key::kAccountForEmbeddingInPipelineSplit,
                          Key::kAccountForLossInPipelineSplit,
                          Key::kPipelineModelParallelLayout,
                          Key::kNumLayersPerVirtualPipelineStage,
                          Key::kMtpNumLayers,
                          Key::kNumLayers};

constexpr RuleInfo kInfo{"PL402",
                         "layers-pp-divisibility",
                         Severity::kError,
                         "layers (+1 each for account_for_embedding/loss) not divisible by PP (or PP·VPP); "
                         "uneven first/last stages or "
                         "a pipeline layout inconsistent",
                         R"md(# PL402 layers-pp-divisibility

## What it does
Checks that the transformer layers can be split over the pipeline:
- without a layout or uneven stages: `L + a + b` (a, b = 1 when `account_for_embedding_in_pipeline_split`
  / `account_for_loss_in_pipeline_split`) must be divisible by PP, and each rank's layers by VPP;
- with `num_layers_in_first/last_pipeline_stage`: positive counts, not combined with the account_for
  flags, the middle layers divisible by the middle stages, and each stage divisible by VPP;
- with `pipeline_model_parallel_layout`: only `E L t m` characters, one `E` first and one `L` last, as
  many `t` as layers, and a stage count divisible by PP (the layout's stages / PP must equal VPP when set).
  The list form (`[["embedding", "decoder"], ..., ["decoder", "loss"]]`, what Megatron-Bridge's
  DeepSeek, Kimi and Moonlight recipes build) is held to the same counts; its names must be LayerType
  members (`encoder` is refused with NotImplementedError). Where the MTP layers go is PL405's; a hybrid
  model's split over the pipeline (its layer pattern) is PL406's.
Megatron-LM's `--num-layers-per-virtual-pipeline-stage n` must divide each rank's layers.

## Why
Megatron-Core raises in `TransformerConfig.__post_init__` ("number of middle layers ... must be divisible
by middle pipeline_model_parallel_size", "Mismatch: ... middle layers remaining", layout errors) or at
model build ("num_layers should be divisible by pipeline_model_parallel_size") on Megatron-Bridge and NeMo.

## Example
```yaml
model:
  num_layers: 30
  pipeline_model_parallel_size: 4
```

## Fix
```yaml
model:
  num_layers: 30
  pipeline_model_parallel_size: 4
  account_for_embedding_in_pipeline_split: true
  account_for_loss_in_pipeline_split: true
```

## Framework behaviour
Megatron-Core and Megatron-LM refuse the configuration; Megatron-Bridge and NeMo fail when the model is
built, on every rank. Megatron-DeepSpeed is not checked: with `--deepspeed` its pipeline is DeepSpeed's
`PipelineModule`, which spreads the layers over the stages by its partition method and needs no
divisibility (`megatron/model/gpt_model.py:463@f4157bea`); only its non-DeepSpeed path asserts
(`megatron/model/transformer.py:1613@f4157bea`), which parlint does not tell apart.

Megatron-Bridge's `run_recipe.py`, given `-pp`/`-vp` (or `model.pipeline_model_parallel_size=`) for a
recipe that registers a layout builder (DeepSeek-V3, Kimi-K2, Kimi-K2.5-VL, Moonlight), rebuilds the
layout with it; the builder has layouts for a few (PP, VP) pairs (read from its table into
`rules/data/bridge_recipes.yaml`) and raises `ValueError` for any other. For a recipe without a builder
the runner keeps its first/last-stage layer counts only while they still fit the new PP, and otherwise
drops them: the layers then split evenly, and that is what is checked.

## References
- Megatron-Bridge `scripts/training/recipe_runner.py:373-427@067f987df03b` (layouts rebuilt by the
  recipe's builder after PP/VP overrides; stale first/last-stage counts dropped)
- Megatron-Bridge `src/megatron/bridge/recipes/deepseek/h100/deepseek_v3.py:50-67@067f987df03b` (a
  builder's (PP, VP) table and its ValueError)
- Megatron-LM `megatron/core/transformer/transformer_config.py:2229-2239@d98e8a64ddf3` (first/last-stage
  counts not together with the account_for flags)
- Megatron-LM `megatron/core/transformer/transformer_config.py:2242-2287@d98e8a64ddf3` (a layout excludes
  the other pipeline settings; an explicit VPP must match it)
- Megatron-LM `megatron/core/transformer/transformer_config.py:2302-2367@d98e8a64ddf3` (uneven stages:
  positive counts, middle layers over middle stages, every stage divisible by VPP)
- Megatron-LM `megatron/core/transformer/transformer_config.py:2370-2414@d98e8a64ddf3` (account_for flags:
  (L + a + b) % PP, then each rank's layers % VPP)
- Megatron-LM `megatron/core/transformer/pipeline_parallel_layer_layout.py:62-71,148-149@d98e8a64ddf3`
  (list-form names, encoder refused)
- Megatron-LM `megatron/core/transformer/pipeline_parallel_layer_layout.py:41-45@d98e8a64ddf3` (layout
  stages divisible by PP), `:95-110` (one `E` first, one `L` last, as many `t` as layers), `:315-318`
  (only `E L t m` characters)
- Megatron-LM `megatron/core/transformer/transformer_block.py:156-158@d98e8a64ddf3` and `:175-178` (at
  model build: L % PP and each rank's layers % VPP; the general check on Megatron-Bridge and NeMo)
- Megatron-LM `megatron/training/arguments.py:968-973@d98e8a64ddf3`
  (`--num-layers-per-virtual-pipeline-stage` must divide each rank's layers)
- Megatron-Bridge `src/megatron/bridge/models/gpt_provider.py:251-255@067f987df03b` ((L // PP) % VPP)
)md",
                         kReads};

class LayersPpDivisibility final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  // Megatron-Bridge's recipe runner rebuilds a builder recipe's layout for the PP and VP given on the
  // command line (recipe_runner.py:373-427); the builder has layouts for a few pairs and refuses the rest.
  static bool builder_refuses(const Job& job, std::vector<Finding>& out) {
    const RecipeInfo* r = job.recipe();
    if (!r || !job.recipe_runner() || r->layout_pairs.empty()) return false;
    auto by_launch = [&](const Fact* f) {
      return f && f->origin != Origin::kRecipeDefault && f->location.path == job.path();
    };
    const Fact* pp_fact = job.fact(Key::kPipelineModelParallelSize);
    const Fact* vp_fact = job.fact(Key::kVirtualPipelineModelParallelSize);
    if (!(by_launch(pp_fact) || by_launch(vp_fact)) || by_launch(job.fact(Key::kPipelineModelParallelLayout)))
      return false;
    auto pp = job.get_int(Key::kPipelineModelParallelSize);
    auto vp = vp_fact && vp_fact->value.kind() != Value::Kind::kNull ? vp_fact->value.as_int()
                                                                     : std::optional<std::int64_t>(1);
    if (!pp || !vp) return false;
    std::string pairs;
    for (const auto& [p, v] : r->layout_pairs) {
      if (p == *pp && v == *vp) return false;
      pairs += fmt::format("{}({}, {})", pairs.empty() ? "" : ", ", p, v);
    }
    Finding f;
    const Fact* at = by_launch(pp_fact) ? pp_fact : vp_fact;
    f.location = at->location;
    f.message = fmt::format(
        "run_recipe.py rebuilds the pipeline layout of {} with {}() for PP={}, VP={}, which has layouts only "
        "for (PP, VP) in {}; it raises ValueError \"Invalid PP and VP size: {} and {} to infer PP layout\"",
        r->function, r->layout_builder, *pp, *vp, pairs, *pp, *vp);
    f.help = "choose PP and VP from those pairs, or give model.pipeline_model_parallel_layout yourself";
    out.push_back(std::move(f));
    return true;
  }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    if (job.framework() == Framework::kMegatronDeepSpeed) return;  // DeepSpeed partitions the layers
    if (builder_refuses(job, out)) return;
    // A hybrid model's pattern decides its pipeline split (PL406).
    if (const Fact* p = job.fact(Key::kHybridLayerPattern); p && p->value.kind() == Value::Kind::kString)
      return;
    auto L = job.get_int(Key::kNumLayers), pp = job.get_int(Key::kPipelineModelParallelSize);
    if (!L || !pp || *pp < 1 || *L < 1) return;
    Split s{job,
            out,
            *L,
            *pp,
            job.get_int(Key::kVirtualPipelineModelParallelSize),
            job.get_bool(Key::kAccountForEmbeddingInPipelineSplit).value_or(false),
            job.get_bool(Key::kAccountForLossInPipelineSplit).value_or(false)};
    const Fact* layout = job.fact(Key::kPipelineModelParallelLayout);
    const Fact* first = job.fact(Key::kNumLayersInFirstPipelineStage);
    const Fact* last = job.fact(Key::kNumLayersInLastPipelineStage);
    std::string error;
    auto parsed = layout && layout->location.in_file() ? pipeline_layout_from_value(layout->value, error)
                                                       : std::optional<PipelineLayout>();
    if (layout && layout->location.in_file() && (parsed || !error.empty()))
      return check_layout(s, *layout, parsed, error, first, last);
    if (layout) return;  // a layout parlint cannot read (a recipe builder): its own stage count decides
    if (first || last) return check_uneven_stages(s, first, last);
    check_even_split(s);
  }

 private:
  // What the three ways of splitting the layers share: the sizes, and where a finding goes.
  struct Split {
    const Job& job;
    std::vector<Finding>& out;
    std::int64_t L, pp;
    std::optional<std::int64_t> vpp;
    bool a, b;  // account_for_embedding / account_for_loss_in_pipeline_split
    void report(const Fact* at, std::string message, std::string help) const {
      Finding f;
      f.location = at && at->location.in_file() ? at->location : primary(job);
      f.message = std::move(message);
      f.help = std::move(help);
      if (const Fact* l = job.fact(Key::kNumLayers);
          l && l->location.in_file() && l->location.range != f.location.range)
        f.related.push_back({l->location, "num_layers set here"});
      out.push_back(std::move(f));
    }
  };

  // pipeline_model_parallel_layout written: its stages against the model and the sizes.
  static void check_layout(const Split& s, const Fact& layout_fact,
                           const std::optional<PipelineLayout>& parsed, const std::string& error,
                           const Fact* first, const Fact* last) {
    const Fact* layout = &layout_fact;
    if (first || last || s.a || s.b) {
      s.report(layout,
               "pipeline_model_parallel_layout cannot be combined with uneven first/last stages or the "
               "account_for_* flags; Megatron-Core raises \"pipeline_model_parallel_layout cannot be set "
               "with other pipeline layout arguments\"",
               "keep either the layout or the other pipeline settings");
      return;
    }
    if (!parsed) {
      const bool list = layout->value.kind() == Value::Kind::kList;
      s.report(layout, "pipeline_model_parallel_layout is malformed: " + error,
               list ? "name only embedding, decoder, mtp and loss in each stage's list"
                    : "use only E, t, m, L, '|', x*n and (...)*n");
      return;
    }
    std::size_t E = 0, Lc = 0, t = 0, m = 0;
    for (const auto& stage : parsed->stages) {
      E += std::count(stage.begin(), stage.end(), 'E');
      Lc += std::count(stage.begin(), stage.end(), 'L');
      t += std::count(stage.begin(), stage.end(), 't');
      m += std::count(stage.begin(), stage.end(), 'm');
    }
    std::int64_t stages = static_cast<std::int64_t>(parsed->stages.size());
    if (E != 1 || parsed->stages.front().rfind('E', 0) != 0)
      return s.report(layout,
                      "the pipeline layout must start with the embedding E exactly once (Megatron-Core: "
                      "\"Embedding must be specified exactly once\")",
                      "put a single E at the start of the first stage");
    if (Lc != 1 || parsed->stages.back().empty() || parsed->stages.back().back() != 'L')
      return s.report(layout, "the pipeline layout must end with the loss L exactly once",
                      "put a single L at the end");
    if (static_cast<std::int64_t>(t) != s.L)
      return s.report(
          layout,
          fmt::format("the pipeline layout places {} decoder layers but num_layers={}; Megatron-Core "
                      "raises \"Number of decoder layers ... must match num_layers\"",
                      t, s.L),
          fmt::format("place exactly {} t in the layout", s.L));
    // mtp_num_layers defaults to none (0) when the configuration describes the whole model.
    auto mtp = s.job.get_int(Key::kMtpNumLayers);
    if (!mtp && s.job.describes_model() && !s.job.fact(Key::kMtpNumLayers)) mtp = 0;
    if (mtp && static_cast<std::int64_t>(m) != *mtp)
      return s.report(layout,
                      fmt::format("the pipeline layout places {} MTP layers (m) but mtp_num_layers={}; "
                                  "Megatron-Core asserts \"Number of mtp layers in layout must match "
                                  "mtp_num_layers\"",
                                  m, *mtp),
                      *mtp == 0 ? std::string("remove the m entries or set mtp_num_layers")
                                : "place exactly " + std::to_string(*mtp) + " m");
    if (stages % s.pp != 0)
      return s.report(
          layout,
          fmt::format("the pipeline layout has {} stages, not divisible by PP={}; Megatron-Core "
                      "raises \"pipeline_model_parallel_layout must be divisible by "
                      "pipeline_model_parallel_size\"",
                      stages, s.pp),
          fmt::format("use {} or {} stages (PP·VPP)", stages / s.pp * s.pp, (stages / s.pp + 1) * s.pp));
    if (s.vpp && *s.vpp != stages / s.pp)
      return s.report(s.job.fact(Key::kVirtualPipelineModelParallelSize),
                      fmt::format("VPP={} conflicts with the layout's {} stages over PP={} (VPP {})", *s.vpp,
                                  stages, s.pp, stages / s.pp),
                      fmt::format("remove VPP or set it to {}", stages / s.pp));
  }

  // num_layers_in_first/last_pipeline_stage: what is left must fill the middle stages evenly.
  static void check_uneven_stages(const Split& s, const Fact* first, const Fact* last) {
    const Fact* at = first ? first : last;
    if (s.a || s.b)
      return s.report(at,
                      "num_layers_in_first/last_pipeline_stage cannot be combined with "
                      "account_for_embedding/loss_in_pipeline_split; Megatron-Core raises ValueError",
                      "use either uneven stages or the account_for_* flags");
    auto fv = first ? first->value.as_int() : std::optional<std::int64_t>(0);
    auto lv = last ? last->value.as_int() : std::optional<std::int64_t>(0);
    if (!fv || !lv) return;
    if ((first && *fv <= 0) || (last && *lv <= 0))
      return s.report(first && *fv <= 0 ? first : last,
                      "uneven pipeline stages must have at least one layer; Megatron-Core raises "
                      "\"num_layers_in_..._pipeline_stage must be larger than 0\"",
                      "give the first/last stage at least one layer, or remove the setting");
    std::int64_t middle_stages = s.pp - (first ? 1 : 0) - (last ? 1 : 0);
    std::int64_t middle_layers = s.L - *fv - *lv;
    if (middle_layers < 0 || (middle_layers > 0) != (middle_stages > 0))
      return s.report(
          at,
          fmt::format("{} layers remain for {} middle pipeline stages; Megatron-Core raises "
                      "\"Mismatch: {} middle layers remaining but {} middle PP stages available\"",
                      middle_layers, middle_stages, middle_layers, middle_stages),
          "adjust the first/last stage layers so that the rest fill the middle stages");
    if (middle_stages > 0 && middle_layers % middle_stages != 0)
      return s.report(
          at,
          fmt::format("{} middle layers do not divide over {} middle stages; Megatron-Core raises "
                      "\"number of layers at middle stage ... must be divisible\"",
                      middle_layers, middle_stages),
          fmt::format("make L - first - last a multiple of {}", middle_stages));
    if (s.vpp && *s.vpp > 1) {
      if ((first && *fv % *s.vpp) || (last && *lv % *s.vpp) ||
          (middle_stages > 0 && (middle_layers / middle_stages) % *s.vpp))
        return s.report(at,
                        fmt::format("with VPP={} every stage's layers (first {}, last {}, middle {}) must be "
                                    "divisible by VPP; Megatron-Core raises ValueError",
                                    *s.vpp, *fv, *lv, middle_stages > 0 ? middle_layers / middle_stages : 0),
                        "choose stage sizes that are multiples of VPP");
    }
  }

  // The even split: num_layers (with the embedding and loss when counted) over PP, then over VPP.
  static void check_even_split(const Split& s) {
    std::int64_t leff = s.L + s.a + s.b;
    auto per_chunk = s.job.get_int(Key::kNumLayersPerVirtualPipelineStage);
    const Fact* pp_fact = s.job.fact(Key::kPipelineModelParallelSize);
    std::string counted = s.a || s.b ? fmt::format("{} layers (num_layers={}{}{})", leff, s.L,
                                                   s.a ? " + embedding" : "", s.b ? " + loss" : "")
                                     : fmt::format("num_layers={}", s.L);
    if (leff % s.pp != 0) {
      std::vector<std::int64_t> ok;
      for (auto d : divisors(leff))
        if (d > 1 && d <= std::max<std::int64_t>(2 * s.pp, 16)) ok.push_back(d);
      return s.report(
          pp_fact,
          fmt::format("{} is not divisible by PP={}; Megatron-Core raises when the model is built "
                      "(\"num_layers ... should be divisible by pipeline_model_parallel_size\")",
                      counted, s.pp),
          ok.empty() ? std::string("change PP, or count the embedding/loss as layers "
                                   "(account_for_*_in_pipeline_split) or use uneven first/last stages")
                     : fmt::format("use PP {}, count the embedding/loss as layers, or use uneven "
                                   "first/last stages",
                                   join_numbers(ok, " or ")));
    }
    std::int64_t per_rank = leff / s.pp;
    if (per_chunk && *per_chunk > 0 && per_rank % *per_chunk != 0)
      return s.report(s.job.fact(Key::kNumLayersPerVirtualPipelineStage),
                      fmt::format("{} layers per pipeline rank are not divisible by "
                                  "--num-layers-per-virtual-pipeline-stage {}; Megatron-LM asserts",
                                  per_rank, *per_chunk),
                      "use a per-stage count that divides " + std::to_string(per_rank));
    if (s.vpp && *s.vpp > 1 && per_rank % *s.vpp != 0)
      return s.report(
          s.job.fact(Key::kVirtualPipelineModelParallelSize),
          fmt::format("{} layers per pipeline rank are not divisible by VPP={}; Megatron-Core raises "
                      "(\"num_layers_per_pipeline_rank ... should be divisible by vp_size\")",
                      per_rank, *s.vpp),
          fmt::format("use VPP {}", join_numbers(divisors(per_rank), " or ")));
  }

  static Location primary(const Job& job) {
    for (Key k : {Key::kPipelineModelParallelSize, Key::kNumLayers})
      if (const Fact* f = job.fact(k); f && f->location.in_file()) return f->location;
    return {job.path(), job.range()};
  }
};

PARLINT_REGISTER_RULE(LayersPpDivisibility);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
