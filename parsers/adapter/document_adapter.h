#pragma once
// The interface through which the YAML reader hands a document to the framework that drives Megatron-Core
// under keys of its own (NeMo-RL, verl, ROLL, ChatLearn, FlagScale; GPT-NeoX, whose documents are no
// job). The reader gives every key as written; the adapter (parsers/frameworks/, one file per framework)
// says what each one is — a setting read as a config path parlint knows, a key of the framework's own, a
// key not in effect — and what the document's job is: its framework, name, model, world, the facts it
// computes from several keys. Paths are never rewritten: the reader keeps what was written.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lint/model/driver_traits.h"
#include "lint/model/parsed_file.h"

namespace parlint {

// One key of a document, as the YAML reader read it.
struct DriverKey {
  const std::vector<std::string>* path;  // as written
  std::string scalar;                    // the value when it is a scalar, else empty
  Location location = {};                // where the value is written
  std::vector<std::string> items = {};   // the values when it is a list of scalars
  // What the adapter says it is:
  std::vector<std::string> read_as = {};  // set: the setting read at this config path instead
  bool own_key = false;                   // a key of the framework's own (not a setting parlint reads)
  bool quiet = false;                     // read it if it is a setting, but never report it as unknown
  bool dropped = false;                   // not in effect (megatron_cfg of a config that does not enable it)
  // Set: a setting the framework never applies, and how it ignores it (PL802 reports it where written);
  // `runs` says what runs instead ("no virtual pipeline (Megatron-LM's default)").
  std::string not_applied = {};
  std::string runs = {};
  std::string fix = {};  // what to write instead
};

// The job a framework reads a document as.
struct DriverConfig {
  Framework framework;         // the framework whose semantics apply
  std::string name;            // "NeMo-RL policy (megatron_cfg)", "verl actor", "FlagScale"
  std::string model;           // a Hugging Face id or model path it names
  std::string base;            // a config it inherits (NeMo-RL `defaults: parent.yaml`)
  bool world_unknown = false;  // the job gets part of the cluster only (non-colocated generation)
  bool not_megatron = false;   // the config runs another backend (DTensor, FSDP): no Megatron job
  std::optional<bool> megatron_on = std::nullopt;  // the config's own Megatron switch, when it writes one
  // What the adapter completes once the configs this one inherits are read (lint/model/inherited_state.h).
  std::shared_ptr<const InheritedState> inherited = nullptr;
  bool from_checkpoint = false;  // what the config leaves out comes from the model's checkpoint
  DriverTraits traits = {};      // what it does with the settings (lint/model/driver_traits.h)
  std::vector<Fact> facts = {};  // what it computes from several keys (a role's GPUs, a cluster's share)
  std::vector<std::string> notes = {};                // for plan: how those were computed
  std::vector<ModelReference> model_references = {};  // keys that may name its model (ModelReference)
  // Configs the framework merges below this one (and below `base`), lowest first (a model file, then
  // a module preset). "tree:" + a path: found in the folder of the document or one above it.
  std::vector<std::string> presets = {};
  std::vector<std::string> unread_presets = {};  // ones it names that cannot be read ("model file ${X}.yaml")
};

// One job of a document that holds several (ROLL's workers, NeMo-RL's policy and PPO value model): the
// keys it reads, each by its index among the document's keys, the path it is read at when that differs
// from the written one (a value model read with the policy's schema), and the key whose value it takes
// when it only refers to one (`${policy.X}`).
struct DocumentRole {
  struct Key {
    std::size_t index;
    std::vector<std::string> path = {};          // empty: as written
    std::optional<std::size_t> value_from = {};  // the key whose value it takes
  };
  std::string role;         // "value model"; empty for the document's own job
  std::string description;  // the job's name, when the role names it
  std::vector<Key> keys;    // in the document's order
  bool generates =
      true;  // false: the role runs no rollout engine (the framework's refusals of it are not its)
};

class DocumentAdapter {
 public:
  virtual ~DocumentAdapter() = default;
  virtual std::string_view name() const = 0;
  // The jobs a document of this framework holds, when more than one; empty: the document is one job.
  virtual std::vector<DocumentRole> roles(const std::vector<DriverKey>& /*keys*/) const { return {}; }
  // The job the framework reads the document as, saying in `keys` what each key is; nullopt (and `keys`
  // untouched) when the document is not this framework's.
  virtual std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const = 0;
};

// The document adapters the YAML reader asks, in order: the first that reads a document has it.
class DocumentAdapters {
 public:
  DocumentAdapters() = default;
  explicit DocumentAdapters(std::vector<const DocumentAdapter*> adapters) : adapters_(std::move(adapters)) {}
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const {
    for (const DocumentAdapter* a : adapters_)
      if (auto c = a->read(keys)) return c;
    return std::nullopt;
  }
  // The jobs of a document that holds several, as the first adapter that splits it says.
  std::vector<DocumentRole> roles(const std::vector<DriverKey>& keys) const {
    for (const DocumentAdapter* a : adapters_)
      if (auto r = a->roles(keys); !r.empty()) return r;
    return {};
  }

 private:
  std::vector<const DocumentAdapter*> adapters_;
};

}  // namespace parlint
