#pragma once
// What the document adapters share: finding a document's keys by path and saying what they are read as.
#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "parsers/adapter/document_adapter.h"

namespace parlint::document_keys {

inline bool starts_with(const std::vector<std::string>& path, std::initializer_list<const char*> prefix) {
  if (path.size() < prefix.size()) return false;
  std::size_t i = 0;
  for (const char* p : prefix)
    if (path[i++] != p) return false;
  return true;
}

inline bool is_path(const std::vector<std::string>& path, std::initializer_list<const char*> whole) {
  return path.size() == whole.size() && starts_with(path, whole);
}

inline std::string dotted(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

inline bool falsy(const std::string& s) {
  return s == "false" || s == "False" || s == "FALSE" || s == "0";
}

// The key read as `with` followed by what comes after its first `drop` parts
// (policy.megatron_cfg.tensor_model_parallel_size read as model.tensor_model_parallel_size).
inline void read_under(DriverKey& key, std::size_t drop, std::initializer_list<const char*> with) {
  std::vector<std::string> out(with.begin(), with.end());
  out.insert(out.end(), key.path->begin() + static_cast<std::ptrdiff_t>(drop), key.path->end());
  key.read_as = std::move(out);
}

inline const DriverKey* find(const std::vector<DriverKey>& keys, std::initializer_list<const char*> path) {
  for (const auto& k : keys)
    if (is_path(*k.path, path)) return &k;
  return nullptr;
}

}  // namespace parlint::document_keys
