#include "lint/model/fact.h"

namespace parlint {

std::string_view origin_name(Origin origin) {
  switch (origin) {
    case Origin::kPythonAssign:
      return "python-assign";
    case Origin::kPythonKwarg:
      return "python-kwarg";
    case Origin::kYaml:
      return "yaml";
    case Origin::kOverride:
      return "override";
    case Origin::kMegatronFlag:
      return "megatron-flag";
    case Origin::kSbatchDirective:
      return "sbatch-directive";
    case Origin::kLauncherFlag:
      return "launcher-flag";
    case Origin::kEnv:
      return "env";
    case Origin::kRecipeDefault:
      return "recipe-default";
    case Origin::kRecipeName:
      return "recipe-name";
    case Origin::kFrameworkDefault:
      return "framework-default";
    case Origin::kClusterProfile:
      return "cluster-profile";
    case Origin::kDerived:
      return "derived";
  }
  return "unknown";
}

}  // namespace parlint
