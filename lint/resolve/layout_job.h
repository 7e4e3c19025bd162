#pragma once
// A job described by numbers alone: `parlint plan --tp 4 --pp 4 --model llama3-70b --gpus 64`, or a layout
// --suggest proposes. Each value is located in the options written out as one line (the path
// kCommandLinePath), so that every rule reads it as a setting made there and the job goes through the same
// rules as a file's (DESIGN §2: one pipeline for check and plan).
#include <cstdint>
#include <optional>
#include <string>

#include "lint/model/parsed_file.h"

namespace parlint {

struct LayoutSpec {
  std::optional<std::int64_t> tp, pp, cp, ep, etp, vpp, gpus, nodes, gpus_per_node, seq, mbs, gbs;
  std::optional<bool> sequence_parallel, distributed_optimizer;
  std::string recompute;  // "selective", "full" or "none" (no recompute); empty: not said
  std::string model;      // a built-in model, a Megatron-Bridge recipe or a Hugging Face id
  std::string cluster;    // only written into the line (the profile itself is an engine option)
};

struct LayoutJob {
  RawJob job;
  std::string options;  // the options as one line: "--model llama3-70b --tp 4 --pp 4 --gpus 64"
};

LayoutJob layout_job(const LayoutSpec& spec);

}  // namespace parlint
