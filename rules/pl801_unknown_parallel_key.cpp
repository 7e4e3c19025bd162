// PL801 unknown-parallel-key: a flag or key that looks like a parallel setting but is not one.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "lint/rule.h"

namespace parlint {
namespace {

constexpr RuleInfo kInfo{
    "PL801", "unknown-parallel-key", Severity::kWarning,
    "a flag or key that looks like a parallel setting but is not one; suggests the right spelling",
    R"md(# PL801 unknown-parallel-key

## What it does
Checks the flags of training entry points and the `key=value` overrides under `model`, `trainer`,
`trainer.strategy`, `strategy` and `parallelism`. A name that is not a setting of the framework but
contains `parallel`, or is within two edits of a parallel setting, is reported with the closest
correct spelling (`--tensor-parallel-size` → `--tensor-model-parallel-size`,
`model.expert_tensor_model_parallel_size` → `model.expert_tensor_parallel_size`).

## Why
Megatron-LM rejects unknown flags, but Megatron-Bridge skips unknown override keys with a warning
lost in the log, and NeMo's `MegatronStrategy(**kwargs)` ignores them silently: the job runs with the
default (TP=1, EP=1) and nobody notices until throughput or memory is wrong.

## Example
```bash
#!/bin/bash
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-parallel-size 8
```

## Fix
```bash
#!/bin/bash
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 8
```

## Framework behaviour
Megatron-LM: `unrecognized arguments`. Megatron-Bridge: "Key ... not found in config object ...
Skipping." NeMo 2: silently ignored.

## References
- reference/megatron-rules.md §9 (aliases), reference/syntax-in-the-wild.md §8 (**kwargs)
)md"};

// The parallel settings a misspelling is compared with.
constexpr std::array kParallelKeys = {Key::kTensorModelParallelSize,
                                      Key::kPipelineModelParallelSize,
                                      Key::kVirtualPipelineModelParallelSize,
                                      Key::kContextParallelSize,
                                      Key::kExpertModelParallelSize,
                                      Key::kExpertTensorParallelSize,
                                      Key::kSequenceParallel,
                                      Key::kHierarchicalContextParallelSizes,
                                      Key::kPipelineModelParallelLayout,
                                      Key::kCpCommType,
                                      Key::kNumLayersInFirstPipelineStage,
                                      Key::kNumLayersInLastPipelineStage};

// Real Megatron-LM flags and config fields that contain "parallel" but are not in the key table.
constexpr std::string_view kKnownParallelNames[] = {"data_parallel_random_init",
                                                    "data_parallel_sharding_strategy",
                                                    "pipeline_model_parallel_split_rank",
                                                    "encoder_tensor_model_parallel_size",
                                                    "encoder_pipeline_model_parallel_size",
                                                    "decoder_first_pipeline_num_layers",
                                                    "tensor_parallel_num_weight_shards",
                                                    "expert_tensor_parallel_num_weight_shards",
                                                    "hybrid_context_parallel",
                                                    "pipeline_model_parallel_comm_backend",
                                                    "async_tensor_model_parallel_allreduce",
                                                    "no_async_tensor_model_parallel_allreduce",
                                                    "parallel_output",
                                                    "defer_embedding_wgrad_compute",
                                                    "use_tp_pp_dp_mapping",
                                                    "num_distributed_optimizer_instances",
                                                    "context_parallel_size",
                                                    "ddp_average_in_collective",
                                                    "virtual_pipeline_model_parallel_size",
                                                    "moe_extended_tp",
                                                    "parallel_attention",
                                                    "num_virtual_stages_per_pipeline_rank",
                                                    "microbatch_group_size_per_virtual_pipeline_stage",
                                                    "eval_context_parallel_size",
                                                    "sequence_parallel_size"};

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Words of a snake_case name, for a distance that forgives a missing or extra word.
std::vector<std::string_view> words_of(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  while (b <= s.size()) {
    auto u = s.find('_', b);
    out.push_back(s.substr(b, u == std::string_view::npos ? u : u - b));
    if (u == std::string_view::npos) break;
    b = u + 1;
  }
  return out;
}

int word_distance(std::string_view a, std::string_view b) {
  auto wa = words_of(a), wb = words_of(b);
  std::vector<int> prev(wb.size() + 1), cur(wb.size() + 1);
  for (std::size_t j = 0; j <= wb.size(); ++j) prev[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= wa.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= wb.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (wa[i - 1] == wb[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[wb.size()];
}

bool in_scope(const UnrecognizedSetting& u) {
  if (u.is_flag) return true;
  std::string_view s = u.spelling;
  for (std::string_view package : {"training.", "fine_tuning."})
    if (s.starts_with(package)) s.remove_prefix(package.size());
  auto dot = s.rfind('.');
  std::string_view section = dot == std::string_view::npos ? "" : s.substr(0, dot);
  return section.empty() || section == "model" || section == "model.config" || section == "trainer" ||
         section == "trainer.strategy" || section == "strategy" || section == "parallelism";
}

class UnknownParallelKey final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    for (const UnrecognizedSetting& u : job.unrecognized()) {
      if (!in_scope(u)) continue;
      std::string_view spelled = u.spelling;
      std::string name;
      if (u.is_flag) {
        name = std::string(spelled.substr(2));
        std::replace(name.begin(), name.end(), '-', '_');
      } else {
        auto dot = spelled.rfind('.');
        name = std::string(dot == std::string_view::npos ? spelled : spelled.substr(dot + 1));
      }
      if (std::find(std::begin(kKnownParallelNames), std::end(kKnownParallelNames), name) !=
          std::end(kKnownParallelNames))
        continue;
      Key best = kParallelKeys[0];
      int best_score = 1 << 20, best_chars = 1 << 20;
      for (Key k : kParallelKeys) {
        int chars = edit_distance(name, key_name(k));
        int score = std::min(chars, 2 * word_distance(name, key_name(k)));
        if (score < best_score || (score == best_score && chars < best_chars)) {
          best_score = score;
          best_chars = chars;
          best = k;
        }
      }
      bool looks_parallel = name.find("parallel") != std::string::npos;
      if (best_score > 2 && !looks_parallel) continue;
      std::string suggestion;
      if (u.is_flag) {
        std::string flag(key_name(best));
        std::replace(flag.begin(), flag.end(), '_', '-');
        suggestion = "--" + flag;
        if (best == Key::kVirtualPipelineModelParallelSize)
          suggestion = "--num-virtual-stages-per-pipeline-rank";
      } else {
        auto dot = spelled.rfind('.');
        suggestion = (dot == std::string_view::npos ? "" : std::string(spelled.substr(0, dot + 1))) +
                     std::string(key_name(best));
      }
      Finding f;
      f.location = u.location;
      std::string consequence =
          u.is_flag ? "Megatron-LM rejects unknown flags (\"unrecognized arguments\"); other launchers pass "
                      "them on "
                      "unread"
          : job.framework() == Framework::kNemo2
              ? "NeMo 2's MegatronStrategy(**kwargs) silently drops it, so the default stays in effect"
          : job.framework() == Framework::kMegatronBridge
              ? "Megatron-Bridge skips unknown keys with a warning, so the default stays in effect"
              : "the framework ignores or rejects it, and the default stays in effect";
      f.message = fmt::format("{} is not a {} setting; did you mean {}? {}", u.spelling,
                              framework_display_name(job.framework()), suggestion, consequence);
      f.help = fmt::format("spell it {}", suggestion);
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(UnknownParallelKey);

}  // namespace
}  // namespace parlint
