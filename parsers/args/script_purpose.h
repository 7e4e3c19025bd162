#pragma once
// What a Python script is for, as its name says: generation, serving, evaluation and round-trip
// conversion scripts load the model on GPUs without training it (Megatron-Bridge's
// hf_to_megatron_generate_text.py, hf_megatron_roundtrip_multi_gpu.py, cord_v2_inference.py, Megatron-LM's
// tools/run_text_generation_server.py): training-only checks and advice do not apply to them.
#include <string_view>

namespace parlint {

// `script`: a path or a file name ("examples/conversion/hf_to_megatron_generate_vlm.py").
bool runs_without_training(std::string_view script);

}  // namespace parlint
