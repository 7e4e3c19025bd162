// PL405 mtp-pipeline-placement: where a pipeline layout puts the multi-token-prediction layers.
#include <fmt/format.h>

#include <algorithm>

#include "lint/knowledge/pipeline_layout.h"
#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kPipelineModelParallelLayout, Key::kPipelineModelParallelSize,
                          Key::kMtpNumLayers};

constexpr RuleInfo kInfo{
    "PL405",
    "mtp-pipeline-placement",
    Severity::kError,
    "a pipeline layout puts MTP layers before decoder layers, outside a rank's last virtual stage, or "
    "splits them across stages",
    R"md(# PL405 mtp-pipeline-placement

## What it does
Checks where `pipeline_model_parallel_layout` (`--pipeline-model-parallel-layout`) places the
multi-token-prediction layers (`m`, or `"mtp"` in the list form):
- no decoder layer (`t`) comes after the first MTP layer;
- MTP layers sit only in the last virtual pipeline stage of a pipeline rank (so never in the first
  rank's earlier stages);
- the rank whose last stage holds MTP layers holds all of them (`mtp_num_layers`).

Both forms of the layout are read: the string (`"Et*3|(tt|)*29,m|L"`) and the list of stages
(`[["embedding", "decoder"], ..., ["mtp", "loss"]]`). Stage `i` of the layout runs on pipeline rank
`i % PP` as its virtual stage `i // PP`. Counts of layers, the embedding and the loss are PL402's.

## Why
Megatron-Core builds the MTP block after the decoder, on one virtual stage, and validates the layout
before it builds the model (`PipelineParallelLayerLayout.validate_layer_layout`), asserting
`decoder layers must be placed before MTP layers`, `Currently we restrict that the MTP should be always in
the last virtual pipeline stage of that rank` or `All of the MTP layers must be in the same one virtual
pipeline stage`. A layout that puts the MTP layers on a rank that is not the last one is accepted:
Megatron-Core then runs MTP "standalone" on that rank (it does not warn).

## Example
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --num-layers 8 --mtp-num-layers 1 \
  --pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "Ettttm|ttttL"
```

## Fix
```bash
torchrun --nproc_per_node=8 pretrain_gpt.py --num-layers 8 --mtp-num-layers 1 \
  --pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "Etttt|ttttmL"
```

## Framework behaviour
Megatron-Core (and so Megatron-LM, Megatron-Bridge and NeMo 2, which pass the layout to it) asserts
when the model is built. A layout built by code parlint cannot read (a recipe's layout builder) is not
checked.

## References
- Megatron-LM `megatron/core/transformer/pipeline_parallel_layer_layout.py:41-55@d98e8a64ddf3` (stage `i`
  on rank `i % PP`), `:115-135` (the MTP placement assertions), `:136-145` (MTP standalone)
)md",
    kReads};

class MtpPipelinePlacement final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    const Fact* layout = job.fact(Key::kPipelineModelParallelLayout);
    if (!layout || !layout->location.in_file()) return;
    std::string error;
    auto parsed = pipeline_layout_from_value(layout->value, error);
    if (!parsed) return;  // malformed layouts are PL402's
    auto pp = job.get_int(Key::kPipelineModelParallelSize);
    const auto& stages = parsed->stages;
    const auto n = static_cast<std::int64_t>(stages.size());
    std::int64_t total_mtp = 0;
    for (const auto& s : stages) total_mtp += std::count(s.begin(), s.end(), 'm');
    if (total_mtp == 0) return;
    auto report = [&](std::string message, std::string help) {
      Finding f;
      f.location = layout->location;
      f.message = std::move(message);
      f.help = std::move(help);
      out.push_back(std::move(f));
    };

    // L2: in layer order (the layout's stage order), nothing but MTP and the loss after the first m.
    bool seen_mtp = false;
    for (std::int64_t i = 0; i < n; ++i)
      for (char c : stages[i]) {
        if (c == 'm') seen_mtp = true;
        if (seen_mtp && c == 't')
          return report(
              fmt::format("stage {} of the pipeline layout places a decoder layer after an MTP layer; "
                          "Megatron-Core asserts \"decoder layers must be placed before MTP layers\"",
                          i),
              "move the m entries after the last t (into the last stage, before L)");
      }
    if (!pp || *pp < 1 || n % *pp != 0) return;  // the stage count itself is PL402's
    const std::int64_t vpp = n / *pp;
    auto mtp_in = [&](std::int64_t stage) {
      return static_cast<std::int64_t>(std::count(stages[stage].begin(), stages[stage].end(), 'm'));
    };
    // L3 (and L5): only a rank's last virtual stage may hold MTP layers.
    for (std::int64_t i = 0; i < n - *pp; ++i)
      if (mtp_in(i) > 0)
        return report(
            fmt::format(
                "stage {} of the pipeline layout (pipeline rank {}, virtual stage {} of {}) holds MTP "
                "layers; Megatron-Core asserts \"Currently we restrict that the MTP should be always "
                "in the last virtual pipeline stage of that rank\"",
                i, i % *pp, i / *pp, vpp),
            fmt::format("place the MTP layers in one of the last {} stages (each rank's last virtual stage), "
                        "normally the very last one with the loss",
                        *pp));
    // L4: the rank whose last stage holds MTP layers holds all of them.
    const auto mtp_fact = job.fact(Key::kMtpNumLayers);
    const std::int64_t want = mtp_fact && mtp_fact->value.as_int() ? *mtp_fact->value.as_int() : total_mtp;
    for (std::int64_t i = n - *pp; i < n; ++i)
      if (auto here = mtp_in(i); here > 0 && here != want)
        return report(
            fmt::format(
                "stage {} of the pipeline layout (the last virtual stage of pipeline rank {}) holds {} of "
                "the {} MTP layers; Megatron-Core asserts \"All of the MTP layers must be in the same "
                "one virtual pipeline stage\"",
                i, i % *pp, here, want),
            "put all m entries in one stage");
  }
};

PARLINT_REGISTER_RULE(MtpPipelinePlacement);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
