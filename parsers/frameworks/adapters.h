#pragma once
// The framework adapters of launches, one file each (parsers/frameworks/<framework>.cpp), and the registry
// the parsers are given. Adding a framework: its file, a line here and a line in registry.cpp.
#include "parsers/args/launch_adapter.h"

namespace parlint {

const LaunchAdapter& verl_adapter();                  // verl.cpp
const LaunchAdapter& chatlearn_adapter();             // chatlearn.cpp
const LaunchAdapter& ms_swift_adapter();              // ms_swift.cpp
const LaunchAdapter& hugging_face_trainer_adapter();  // hugging_face_trainer.cpp
const LaunchAdapter& slime_adapter();                 // slime.cpp
const LaunchAdapter& megatron_deepspeed_adapter();    // megatron_deepspeed.cpp

// Every launch adapter, in the order they are asked (registry.cpp).
const LaunchAdapters& framework_adapters();

}  // namespace parlint
