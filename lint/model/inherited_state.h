#pragma once
// What a framework adapter keeps of one config to finish its job once the configs that config inherits
// (`defaults: parent.yaml`) are read: job resolution hands it the same role's state of each inherited
// config and the adapter completes the job. Opaque to everything but the adapter that made it, so a
// framework's own terms never become fields of the model.
#include <memory>
#include <span>
#include <string>

namespace parlint {

struct RawJob;

class InheritedState {
 public:
  virtual ~InheritedState() = default;
  // Completes `job`, read from the file at `path`, from its own state and the states of the configs it
  // inherits, nearest first (an entry is null where that config's job keeps none). The last one is the
  // root of the chain.
  virtual void complete(RawJob& job, std::span<const InheritedState* const> inherited,
                        const std::string& path) const = 0;
};

}  // namespace parlint
