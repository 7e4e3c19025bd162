#pragma once
// The framework adapters, one file per framework (parsers/frameworks/<framework>.cpp), of launches and of
// documents, and the registries the parsers are given. Adding a framework: its file, its line here and in
// registry.cpp.
#include "parsers/adapter/document_adapter.h"
#include "parsers/adapter/launch_adapter.h"

namespace parlint {

const LaunchAdapter& verl_adapter();                  // verl.cpp
const LaunchAdapter& chatlearn_adapter();             // chatlearn.cpp
const LaunchAdapter& ms_swift_adapter();              // ms_swift.cpp
const LaunchAdapter& hugging_face_trainer_adapter();  // hugging_face_trainer.cpp
const LaunchAdapter& slime_adapter();                 // slime.cpp
const LaunchAdapter& megatron_deepspeed_adapter();    // megatron_deepspeed.cpp

// Every launch adapter, in the order they are asked (registry.cpp).
const LaunchAdapters& framework_adapters();

const DocumentAdapter& nemo_rl_adapter();           // nemo_rl.cpp
const DocumentAdapter& verl_config_adapter();       // verl.cpp
const DocumentAdapter& roll_adapter();              // roll.cpp
const DocumentAdapter& chatlearn_config_adapter();  // chatlearn.cpp
const DocumentAdapter& gpt_neox_adapter();          // gpt_neox.cpp
const DocumentAdapter& flagscale_adapter();         // flagscale.cpp
const DocumentAdapter& primus_adapter();            // primus.cpp: experiment files
const DocumentAdapter& primus_preset_adapter();     // primus.cpp: its model files and module presets

// Every document adapter, in the order they are asked (registry.cpp).
const DocumentAdapters& framework_documents();

}  // namespace parlint
