// The other half of RuleKeys: a rule declares the keys it reads (RuleInfo::reads), and every parser is held
// to fill each of them wherever its syntax spells it. For every key some rule reads, each Megatron-LM flag
// that sets it (shell), each config path that sets it (YAML) and each Bridge config field (Python) is
// written once in a file of its own, and the resolved job must hold the key from that file. A key no
// syntax spells must be one an adapter or a launcher computes (listed below, with who fills it).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lint/engine/pipeline.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {

// Keys no file spells directly: a launcher, an adapter or the environment computes them.
const std::map<Key, const char*> kComputed = {
    {Key::kNodes, "#SBATCH --nodes, a framework's node count (launch_adapters_test, shell_parser_test)"},
    {Key::kGpusPerNode, "#SBATCH --gpus-per-node, a framework's devices (shell_parser_test)"},
    {Key::kNtasksPerNode, "#SBATCH --ntasks-per-node (shell_parser_test)"},
    {Key::kNprocPerNode, "torchrun --nproc_per_node (shell_parser_test)"},
    {Key::kNnodes, "torchrun --nnodes (shell_parser_test)"},
    {Key::kWorldSize, "the launch's world, computed in resolution"},
    {Key::kRolloutTensorParallelSize, "a framework adapter (launch/document_adapters_test)"},
    {Key::kRolloutDataParallelSize, "a framework adapter"},
    {Key::kRolloutPipelineParallelSize, "a framework adapter"},
    {Key::kRolloutExpertParallelSize, "a framework adapter"},
    {Key::kRolloutWorldSize, "a framework adapter (document_adapters_test)"},
    {Key::kRolloutName, "a framework adapter"},
    {Key::kRolloutAsyncEngine, "a framework adapter"},
    {Key::kRolloutStepBatchSize, "a framework adapter"},
    {Key::kRolloutSamples, "a framework adapter"},
    {Key::kRolloutGroupSize, "a framework adapter"},
    {Key::kRolloutGpusPerEngine, "a framework adapter"},
    {Key::kRolloutDpAttention, "a framework adapter"},
    {Key::kChecksCudaDeviceMaxConnections, "the Megatron checkout a launch runs (framework source)"},
};

// A value of the key's type, as the syntax writes it.
std::string value_text(Key key, bool yaml) {
  switch (key_type(key)) {
    case KeyType::kInt:
      return "3";
    case KeyType::kBool:
      return "true";
    case KeyType::kList:
      return yaml ? "[2, 2]" : "2 2";
    case KeyType::kAny:
      break;
  }
  return "x";
}

std::set<Key> keys_rules_read() {
  std::set<Key> out;
  for (const auto& rule : RuleRegistry::instance().rules())
    for (Key k : rule->info().reads) out.insert(k);
  return out;
}

// Whether the job parsed from `text` holds `key` from the file itself.
bool fills(const std::string& path, const std::string& text, Key key) {
  SourceText source(text);
  ParsedFile parsed = parse_source(path, source, FileReader::disk());
  for (const RawJob& raw : parsed.jobs) {
    Job job(path, raw, LintOptions{});
    const Fact* f = job.fact(key);
    if (f && f->location.in_file() && f->location.path == path) return true;
  }
  return false;
}

// The config sections a Megatron-Core field is written under (Megatron-Bridge's ConfigContainer, NeMo's
// model:, a flat document).
const std::vector<std::vector<std::string>> kSections = {{"model"},        {"train"},     {"ddp"},
                                                         {"dataset"},      {"optimizer"}, {"checkpoint"},
                                                         {"comm_overlap"}, {"dist"},      {}};

TEST(ParserContract, EveryKeyARuleReadsIsFilledWhereverItsSpelled) {
  std::vector<std::string> failures;
  std::size_t checked = 0;
  for (Key key : keys_rules_read()) {
    if (kComputed.count(key)) continue;
    const std::string name(key_name(key));
    std::size_t spellings = 0;
    auto expect = [&](const std::string& path, const std::string& text, const std::string& what) {
      ++spellings;
      ++checked;
      if (!fills(path, text, key)) failures.push_back(name + ": " + what);
    };
    if (is_environment_variable(key)) {
      expect("env.sh",
             "export " + name + "=" + value_text(key, false) +
                 "\ntorchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2\n",
             "export " + name);
      continue;
    }
    // Shell: each Megatron-LM flag that sets the key, on a launch of a Megatron-LM entry point.
    for (const std::string& flag : megatron_flags_for(key)) {
      std::string value = key_type(key) == KeyType::kBool ? "" : " " + value_text(key, false);
      expect("launch.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py " + flag + value + "\n", flag);
    }
    // YAML and Python: each section whose path the key is read at.
    for (const auto& section : kSections) {
      std::vector<std::string> path = section;
      path.push_back(name);
      auto match = match_config_path(path);
      if (!match || match->key != key || match->inverted) continue;
      std::string dotted, yaml, indent;
      for (const auto& part : section) {
        dotted += part + ".";
        yaml += indent + part + ":\n";
        indent += "  ";
      }
      expect("config.yaml", yaml + indent + name + ": " + value_text(key, true) + "\n",
             "YAML " + dotted + name);
      if (section.empty()) continue;
      std::string python_value = key_type(key) == KeyType::kBool   ? "True"
                                 : key_type(key) == KeyType::kList ? "[2, 2]"
                                 : key_type(key) == KeyType::kAny  ? "\"x\""
                                                                   : "3";
      expect("recipe.py",
             "from megatron.bridge.recipes.llama import llama3_8b_pretrain_config\n"
             "cfg = llama3_8b_pretrain_config()\n"
             "cfg." +
                 dotted + name + " = " + python_value + "\n",
             "Python cfg." + dotted + name);
    }
    if (spellings == 0)
      failures.push_back(name +
                         ": a rule reads it, but no parser spells it and no adapter is "
                         "listed as computing it");
  }
  EXPECT_GT(checked, 100u);  // the spellings were found
  std::string report;
  for (const auto& f : failures) report += "  not filled: " + f + "\n";
  EXPECT_TRUE(failures.empty()) << report;
}

// Every computed key is still one some rule reads: a stale entry hides nothing, but says something false.
TEST(ParserContract, ComputedKeysAreReadByARule) {
  auto read = keys_rules_read();
  for (const auto& [key, who] : kComputed)
    EXPECT_TRUE(read.count(key)) << key_name(key) << " (" << who << ")";
}

}  // namespace
}  // namespace parlint
