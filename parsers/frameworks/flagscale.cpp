// FlagScale: a Megatron-LM fork whose documents hold Megatron-LM's arguments under system.<field> and
// model.<field>, and its runner's nnodes / nproc_per_node under experiment.runner.
#include "parsers/frameworks/adapters.h"
#include "parsers/frameworks/document_keys.h"

namespace parlint {
namespace {

using namespace document_keys;

class FlagScale final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "FlagScale"; }
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    auto parallel = [](const DriverKey& k) {
      return k.path->size() == 2 && (*k.path)[0] == "system" &&
             ((*k.path)[1] == "tensor_model_parallel_size" || (*k.path)[1] == "pipeline_model_parallel_size");
    };
    bool system = std::any_of(keys.begin(), keys.end(), parallel);
    bool runner = find(keys, {"experiment", "runner", "nnodes"}) ||
                  find(keys, {"experiment", "runner", "nproc_per_node"});
    bool task = find(keys, {"experiment", "task", "backend"}) != nullptr;
    if (!system && !(runner && task)) return std::nullopt;
    // Its compressors load a Hugging Face model (model.model_cls: AutoModelForCausalLM, and
    // from_pretrained's device_map) and quantize it on one device (flagscale/compress/compressor.py:68-69
    // and compressor_llava_ov.py@da4935ec6019): the system block beside it never reaches Megatron-LM.
    if (find(keys, {"model", "model_cls"}) || find(keys, {"model", "device_map"})) {
      for (auto& k : keys) k.own_key = true;
      return DriverConfig{Framework::kUnknown,
                          "FlagScale compression of a Hugging Face model (not read)",
                          "",
                          "",
                          false,
                          true};
    }
    DriverConfig out{
        Framework::kMegatronLM, "FlagScale (Megatron-LM arguments under system/model)", "", "", false, false};
    for (auto& k : keys) {
      const auto& p = *k.path;
      if (p.size() == 2 && p[0] == "system") {
        read_under(k, 1, {"model"});
        k.quiet = true;  // FlagScale's own system switches sit beside Megatron-LM's arguments
      } else if (p.size() == 2 && p[0] == "model") {
        k.quiet = true;  // Megatron-LM arguments, and FlagScale's own model keys
      } else if (p == std::vector<std::string>{"experiment", "runner", "nnodes"}) {
        k.read_as = {"trainer", "num_nodes"};
      } else if (p == std::vector<std::string>{"experiment", "runner", "nproc_per_node"}) {
        k.read_as = {"trainer", "devices"};
      } else {
        k.own_key = true;  // system.precision.*, system.logging.*, experiment.*, data.*, ...
      }
    }
    return out;
  }
};

}  // namespace

const DocumentAdapter& flagscale_adapter() {
  static const FlagScale adapter;
  return adapter;
}

}  // namespace parlint
