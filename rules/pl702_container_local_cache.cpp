// PL702 container-local-cache: NEMO_HOME / HF_HOME inside the container on a multi-node job.
#include <fmt/format.h>

#include "rules/api/describe.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The settings this rule reads (RuleInfo::reads).
constexpr Key kReads[] = {Key::kNodes, Key::kNnodes, Key::kNemoHome, Key::kHfHome};

constexpr RuleInfo kInfo{
    "PL702",
    "container-local-cache",
    Severity::kWarning,
    "multi-node job with NEMO_HOME / HF_HOME set to a container-local path (/root/.cache, ~, /tmp)",
    R"md(# PL702 container-local-cache

## What it does
Reports `NEMO_HOME` or `HF_HOME` pointing into the container or the node's local disk
(`/root/.cache…`, `~…`, `$HOME…`, `/tmp…`) in a job that runs on more than one node.

## Why
Each node then downloads the model, tokenizer and datasets on its own, and NeMo/Megatron-Bridge
convert the checkpoint on every node: minutes to hours of duplicated work, rate limits on the Hub,
and caches that vanish with the container. Rank 0 may write a converted checkpoint that the other
nodes never see.

## Example
```bash
#!/bin/bash
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
export HF_HOME=/root/.cache/huggingface
srun python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config
```

## Fix
```bash
#!/bin/bash
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
export HF_HOME=/lustre/fsw/shared/hf_home
srun python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config
```

## Framework behaviour
NeMo and Megatron-Bridge use these folders for model downloads and converted checkpoints.

## References
- NeMo `nemo/lightning/base.py:26-30@8cfedd720346` (`NEMO_HOME`, default `~/.cache/nemo`, holds datasets
  and models)
- NeMo `nemo/collections/llm/recipes/finetune_default.py:199-202@8cfedd720346` (checkpoints converted from
  Hugging Face are saved under `NEMO_HOME/models`)
- Megatron-Bridge `src/megatron/bridge/data/datasets/gpt_sft.py:46-48@067f987df03b` (the same `NEMO_HOME`
  dataset cache)
- huggingface_hub `src/huggingface_hub/constants.py:157-167@ee0a4510f4bc` (`HF_HOME`, default
  `~/.cache/huggingface`; downloaded models and datasets go to `HF_HOME/hub`)
)md",
    kReads};

bool container_local(std::string_view v) {
  return v.starts_with("/root") || v.starts_with("~") || v.starts_with("/tmp") || v.starts_with("$HOME") ||
         v.starts_with("${HOME}");
}

class ContainerLocalCache final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    auto nodes = job.get_int(Key::kNodes);
    auto nnodes = job.get_int(Key::kNnodes);
    std::int64_t n = std::max(nodes.value_or(0), nnodes.value_or(0));
    if (n <= 1) return;
    for (Key key : {Key::kHfHome, Key::kNemoHome}) {
      const Fact* f = job.fact(key);
      if (!f || f->value.kind() != Value::Kind::kString || !container_local(f->value.text())) continue;
      Finding x;
      x.location = f->location;
      x.message = fmt::format(
          "{}={} is local to each node's container, and this job runs on {} nodes: every node "
          "downloads and converts its own copy, and the cache is lost with the container",
          key_name(key), f->value.text(), n);
      x.help = fmt::format("point {} at a shared filesystem (Lustre, NFS, GPFS) that every node mounts",
                           key_name(key));
      out.push_back(std::move(x));
    }
  }
};

PARLINT_REGISTER_RULE(ContainerLocalCache);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
