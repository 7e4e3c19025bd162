#pragma once
// A fact: one setting as a file (or a default, or a profile) states it, with where it came from.
#include <string>
#include <vector>

#include "lint/model/keys.h"
#include "lint/model/source_range.h"
#include "lint/model/value.h"

namespace parlint {

enum class Origin {
  kPythonAssign,
  kPythonKwarg,
  kYaml,
  kOverride,
  kMegatronFlag,
  kSbatchDirective,
  kLauncherFlag,
  kEnv,
  kRecipeDefault,
  kRecipeName,  // a GPU count encoded in a recipe's name (..._16gpu_h100_...)
  kFrameworkDefault,
  kClusterProfile,
  kDerived,
};
std::string_view origin_name(Origin origin);

struct RelatedLocation {
  Location location;
  std::string message;
  // A selector that chose this value among others the file also writes (a `case` on a constant): an
  // edit made for this value would change the others' too.
  bool choice = false;
};

struct Fact {
  Key key;
  Value value;
  Location location;  // where the setting is made (the primary location for findings)
  Origin origin = Origin::kYaml;
  std::string spelling;      // the key as written: "model.tensor_model_parallel_size", "--num-experts"
  bool value_apart = false;  // the value is a word of its own ("--nnodes 4", "-N 2"), not "--nnodes=4"
  int priority = 1;          // see KeyMatch::priority
  bool weak = false;         // only a fallback (a parameter default, ${SLURM_NNODES:-1} outside SLURM)
  std::string weak_note;     // how to name the fallback in a message: "the default num_nodes=1"
  std::vector<RelatedLocation> written_at;  // where the value itself was written (an interpolation target)
  std::string receiver;  // a Python attribute assignment's object: "cfg" of cfg.model.sequence_parallel
  // A script's argparse default (`--etp` of add_argument("--etp", default=1)): a launch of the script that
  // passes the option sets the value instead.
  std::string default_of;
};

// Two different values for one key written in one place; the later one wins.
struct Conflict {
  Fact winner;
  Fact loser;
  // Set by a framework adapter when the framework never applies the loser (a role that runs on another
  // role's parallel groups): how it ignores it. PL802 reports it at the loser.
  std::string not_applied = {};
  std::string fix = {};  // what to write instead, when the adapter knows (else: remove it)
};

}  // namespace parlint
