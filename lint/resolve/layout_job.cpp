#include "lint/resolve/layout_job.h"

#include <fmt/format.h>

#include "lint/knowledge/model_table.h"
#include "lint/resolve/job.h"

namespace parlint {
namespace {

// The options line being written, and where each option lands in it.
class OptionLine {
 public:
  Location add(std::string_view option, std::string_view value = {}) {
    if (!text_.empty()) text_ += ' ';
    int start = column();
    text_ += option;
    if (!value.empty()) {
      text_ += ' ';
      text_ += value;
    }
    return Location{std::string(kCommandLinePath), {{1, start}, {1, column()}}};
  }
  const std::string& text() const { return text_; }

 private:
  int column() const { return static_cast<int>(text_.size()) + 1; }  // the options are ASCII
  std::string text_;
};

Fact option_fact(Key key, Value value, Location at, std::string spelling) {
  Fact f;
  f.key = key;
  f.value = std::move(value);
  f.location = std::move(at);
  f.origin = Origin::kLauncherFlag;
  f.spelling = std::move(spelling);
  return f;
}

}  // namespace

LayoutJob layout_job(const LayoutSpec& l) {
  LayoutJob out;
  RawJob& job = out.job;
  OptionLine line;
  job.description = "layout from the command line";
  auto number = [&](Key key, const std::optional<std::int64_t>& v, const char* option) {
    if (!v) return std::optional<Location>();
    Location at = line.add(option, std::to_string(*v));
    job.facts.push_back(option_fact(key, Value::integer(*v), at, option));
    return std::optional<Location>(at);
  };
  auto flag = [&](Key key, const std::optional<bool>& v, const char* on, const char* off) {
    if (!v) return;
    const char* option = *v ? on : off;
    job.facts.push_back(option_fact(key, Value::boolean(*v), line.add(option), option));
  };
  if (!l.model.empty()) line.add("--model", l.model);
  number(Key::kTensorModelParallelSize, l.tp, "--tp");
  number(Key::kPipelineModelParallelSize, l.pp, "--pp");
  number(Key::kVirtualPipelineModelParallelSize, l.vpp, "--vpp");
  number(Key::kContextParallelSize, l.cp, "--cp");
  number(Key::kExpertModelParallelSize, l.ep, "--ep");
  number(Key::kExpertTensorParallelSize, l.etp, "--etp");
  flag(Key::kSequenceParallel, l.sequence_parallel, "--sequence-parallel", "--no-sequence-parallel");
  auto gpus_at = number(Key::kWorldSize, l.gpus, "--gpus");
  number(Key::kNodes, l.nodes, "--nodes");
  number(Key::kGpusPerNode, l.gpus_per_node, "--gpus-per-node");
  if (l.gpus && !l.nodes && l.gpus_per_node && *l.gpus_per_node > 0)
    job.facts.push_back(option_fact(Key::kNodes,
                                    Value::integer((*l.gpus + *l.gpus_per_node - 1) / *l.gpus_per_node),
                                    *gpus_at, "--gpus / --gpus-per-node"));
  number(Key::kSeqLength, l.seq, "--seq-length");
  number(Key::kMicroBatchSize, l.mbs, "--mbs");
  number(Key::kGlobalBatchSize, l.gbs, "--gbs");
  flag(Key::kUseDistributedOptimizer, l.distributed_optimizer, "--distributed-optimizer",
       "--no-distributed-optimizer");
  if (!l.recompute.empty())
    job.facts.push_back(option_fact(Key::kRecomputeGranularity, Value::string(l.recompute),
                                    line.add("--recompute", l.recompute), "--recompute"));
  if (!l.cluster.empty()) line.add("--cluster", l.cluster);
  if (!l.model.empty()) {
    if (const RecipeInfo* recipe = find_recipe(l.model)) {
      job.recipe.name = l.model;
      job.recipe.by_runner = true;  // planned as run_recipe.py --recipe NAME runs it
      // A recipe whose name targets a GPU count and GPU (..._256gpu_b300_..._config) is planned there
      // unless the command line says otherwise.
      if (recipe->gpus && !l.gpus && !l.nodes) {
        Fact f;
        f.key = Key::kWorldSize;
        f.value = Value::integer(*recipe->gpus);
        f.origin = Origin::kRecipeName;
        f.spelling = "the GPU count the name " + recipe->function + " states";
        job.facts.push_back(std::move(f));
      }
      job.hardware = recipe->hardware;
    } else {
      job.model = l.model;
    }
  }
  out.options = line.text();
  return out;
}

}  // namespace parlint
