// AMD Primus (AMD-AGI/Primus @ fd1eeabbad15): Megatron-LM and other back ends on AMD Instinct GPUs.
// An experiment file names, per module, its back end, the module preset, the model file and the
// overrides (primus/core/launcher/parser.py:257-328@fd1eeabbad15):
//
//   modules:
//     pre_trainer:
//       framework: megatron
//       config: pre_trainer.yaml        # primus/configs/modules/megatron/pre_trainer.yaml
//       model: ${PRIMUS_MODEL:glm5}.yaml  # primus/configs/models/megatron/glm5.yaml
//       overrides: {num_layers: 78, pipeline_model_parallel_size: 8, ...}
//
// Primus merges the model file under the module preset (on a clash the preset wins, parser.py:320 with
// yaml_utils.py:121), the overrides over both (parser.py:322-324), and hands the keys Megatron-LM's
// argparse knows to Megatron-LM (argument_builder.py:151-156), whose validate_args then runs. Presets and
// model files are flat Megatron-LM arguments that `extends:` a parent beside them, the later parent and
// then the file itself winning (core/config/yaml_loader.py:134-169). `${VAR:default}` is the
// environment's VAR, else the default (yaml_loader.py:12,90-128): a default is a fallback the launch's
// environment (PRIMUS_TP, PRIMUS_PP, ... exported by its run scripts) may replace.
#include <algorithm>

#include "parsers/frameworks/adapters.h"
#include "parsers/frameworks/document_keys.h"

namespace parlint {
namespace {

using namespace document_keys;

// Primus's own `${VAR:default}` spelled with its default (the environment is not known here); nullopt
// when a part of the text has none (`${PRIMUS_MODEL}.yaml`: Primus refuses to load without it).
std::optional<std::string> with_defaults(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    auto open = text.find("${");
    if (open == std::string_view::npos) {
      out += text;
      break;
    }
    out += text.substr(0, open);
    auto close = text.find('}', open);
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view inner = text.substr(open + 2, close - open - 2);
    auto colon = inner.find(':');
    if (colon == std::string_view::npos || inner.find("${") != std::string_view::npos) return std::nullopt;
    out += inner.substr(colon + 1);
    text.remove_prefix(close + 1);
  }
  return out;
}

// A key Primus hands to Megatron-LM only if Megatron-LM's argparse defines it
// (primus/backends/megatron/argument_builder.py:151-156@fd1eeabbad15): Megatron-LM has no
// virtual_pipeline_model_parallel_size option and derives the value from num_virtual_stages_per_pipeline_rank
// or num_layers_per_virtual_pipeline_stage, else none (megatron/training/arguments.py:741-771@d3528a21301d,
// the Megatron-LM Primus pins).
// Not said where the file writes what Megatron-LM derives it from (a pipeline layout, the stages per rank),
// or where the value is 1 (no virtual pipeline either way).
void not_applied_vpp(DriverKey& k, const std::vector<DriverKey>& keys) {
  if (k.path->back() != "virtual_pipeline_model_parallel_size" || k.scalar.empty() || k.scalar == "null" ||
      k.scalar == "~" || k.scalar == "1" || with_defaults(k.scalar) == std::optional<std::string>("1"))
    return;
  const bool derived_from_others = std::any_of(keys.begin(), keys.end(), [&](const DriverKey& other) {
    const std::string& name = other.path->back();
    return other.path->size() == k.path->size() && !other.scalar.empty() && other.scalar != "null" &&
           (name == "pipeline_model_parallel_layout" || name == "num_virtual_stages_per_pipeline_rank" ||
            name == "num_layers_per_virtual_pipeline_stage");
  });
  if (derived_from_others) return;
  k.not_applied =
      "Primus passes Megatron-LM only the keys its argparse defines, and Megatron-LM has no "
      "virtual_pipeline_model_parallel_size option: it derives the virtual pipeline from "
      "num_virtual_stages_per_pipeline_rank or num_layers_per_virtual_pipeline_stage";
  k.runs = "no virtual pipeline (Megatron-LM's default)";
  k.fix = "write num_virtual_stages_per_pipeline_rank with the same value";
}

// What Primus does with the layout it hands to Megatron-LM: its build_args patch turns sequence
// parallelism off at TP 1 (primus/backends/megatron/patches/args/sequence_parallel_tp1_patches.py:11-40
// @fd1eeabbad15).
DriverTraits primus_traits() {
  DriverTraits t;
  t.name = "Primus";
  t.turns_sp_off_at_tp1 = true;
  return t;
}

class PrimusExperiment final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "Primus"; }
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    // The first module whose back end is Megatron-LM (a module's name holds "trainer": pre_trainer,
    // post_trainer). Other back ends (torchtitan, maxtext, megatron_bridge) are not claimed: their blocks
    // are read as layouts of their own, if they hold one.
    const DriverKey* backend = nullptr;
    for (const auto& k : keys)
      if (k.path->size() == 3 && (*k.path)[0] == "modules" && (*k.path)[2] == "framework" &&
          k.scalar == "megatron") {
        backend = &k;
        break;
      }
    if (!backend) return std::nullopt;
    const std::string module = (*backend->path)[1];
    DriverConfig out{Framework::kMegatronLM, "Primus " + module + " (Megatron-LM)", "", "", false, false};
    out.traits = primus_traits();
    // The model file below the module preset, both found in the Primus tree the experiment belongs to.
    for (const auto& file : {std::pair{"model", "primus/configs/models/megatron/"},
                             std::pair{"config", "primus/configs/modules/megatron/"}}) {
      const std::string field = file.first, folder = file.second;
      auto it = std::find_if(keys.begin(), keys.end(), [&](const DriverKey& k) {
        return k.path->size() == 3 && (*k.path)[0] == "modules" && (*k.path)[1] == module &&
               (*k.path)[2] == field;
      });
      if (it == keys.end() || it->scalar.empty()) continue;
      if (auto name = with_defaults(it->scalar)) {
        out.presets.push_back("tree:" + std::string(folder) + *name);
        if (*name != it->scalar)
          out.notes.push_back("modules." + module + "." + field + " is " + it->scalar + ": read as " + *name +
                              ", its default; the launch's environment may choose another");
      } else {
        out.notes.push_back("modules." + module + "." + field + " is " + it->scalar +
                            ", known only from the launch's environment: what it sets is unknown");
        out.unread_presets.push_back(std::string(field) + " file " + it->scalar);
      }
    }
    for (auto& k : keys) {
      const auto& p = *k.path;
      if (p.size() > 3 && p[0] == "modules" && p[1] == module && p[2] == "overrides") {
        read_under(k, 3, {"model"});
        k.quiet = true;  // Primus's and the back end's own switches sit beside Megatron-LM's arguments
        not_applied_vpp(k, keys);
      } else {
        k.own_key = true;  // work_group, exp_name, workspace, platform, the module's own fields
      }
    }
    return out;
  }
};

// A Primus module preset or model file: flat Megatron-LM arguments over the parent it `extends:`.
class PrimusPreset final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "Primus"; }
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    if (keys.empty()) return std::nullopt;
    const std::string& path = keys.front().location.path;
    const bool in_tree = path.find("configs/models/megatron/") != std::string::npos ||
                         path.find("configs/modules/megatron/") != std::string::npos;
    if (!in_tree) return std::nullopt;
    const DriverKey* extends = find(keys, {"extends"});
    DriverConfig out{Framework::kMegatronLM, "Primus Megatron-LM preset", "", "", false, false};
    out.traits = primus_traits();
    // Primus reads `extends:` (a list or one name); its older `bases:` key is no longer read
    // (yaml_loader.py@fd1eeabbad15), so a file that still writes it inherits nothing.
    if (extends) {
      if (!extends->items.empty()) {
        // Every model and module file of this commit extends one parent; with several, the later wins,
        // and only a single chain is followed: the rest is unknown.
        out.base = extends->items.back();
        if (extends->items.size() > 1) out.unread_presets.push_back("the parents it extends before the last");
      } else if (!extends->scalar.empty()) {
        out.base = extends->scalar;
      }
    }
    for (auto& k : keys) {
      if (k.path->size() == 1 && (*k.path)[0] != "extends" && (*k.path)[0] != "bases") {
        read_under(k, 0, {"model"});
        k.quiet = true;  // Primus's own keys sit beside Megatron-LM's arguments
        not_applied_vpp(k, keys);
      } else {
        k.own_key = true;
      }
    }
    return out;
  }
};

}  // namespace

const DocumentAdapter& primus_adapter() {
  static const PrimusExperiment adapter;
  return adapter;
}

const DocumentAdapter& primus_preset_adapter() {
  static const PrimusPreset adapter;
  return adapter;
}

}  // namespace parlint
