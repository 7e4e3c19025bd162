#pragma once
// The GPUs the deepspeed launcher takes (deepspeed/launcher/runner.py): the hosts of its hostfile
// ("worker-0 slots=8" lines) or of --include ("worker-0:0,1@worker-1:0,1"), cut to --num_nodes hosts
// and --num_gpus GPUs each.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parlint {

struct DeepspeedHost {
  std::string name;
  std::optional<int> slots;  // GPUs of the host it takes; nullopt = all of them (":SLOTS" omitted)
};

// The hosts of a hostfile, in order; nullopt when deepspeed would refuse it (a line that is neither a
// comment nor "host slots=N", a host twice, no host at all).
std::optional<std::vector<DeepspeedHost>> parse_deepspeed_hostfile(std::string_view text);

// The hosts of an --include filter; nullopt when it is not one (an empty host, a slot that is not a
// number).
std::optional<std::vector<DeepspeedHost>> parse_deepspeed_include(std::string_view filter);

// The GPUs every host gives, when they all give the same known number.
std::optional<int> uniform_slots(const std::vector<DeepspeedHost>& hosts);

}  // namespace parlint
