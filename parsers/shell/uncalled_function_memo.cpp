#include "parsers/shell/uncalled_function_memo.h"

#include <algorithm>
#include <utility>

namespace parlint {

void UncalledFunctionMemo::begin(const std::string& path, const TSTree* tree) {
  auto it = std::find_if(files_.begin(), files_.end(), [&](const File& f) { return f.path == path; });
  File file;
  file.path = path;
  if (it != files_.end()) {
    file = std::move(*it);
    files_.erase(it);
  }
  file.previous = std::move(file.current);
  file.current.clear();
  file.previous_tree = std::move(file.tree);
  file.tree.reset(ts_tree_copy(tree), [](TSTree* t) { ts_tree_delete(t); });
  if (files_.size() >= kMaxFiles) files_.erase(files_.begin());
  files_.push_back(std::move(file));
}

std::vector<UncalledFunctionMemo::Walk>* UncalledFunctionMemo::find(const Key& key) {
  if (files_.empty()) return nullptr;
  File& file = files_.back();
  if (auto it = file.current.find(key); it != file.current.end()) return &it->second;
  auto old = file.previous.find(key);
  if (old == file.previous.end()) return nullptr;
  // Kept on: moved to this lint's walks.
  auto node = file.previous.extract(old);
  return &file.current.insert(std::move(node)).position->second;
}

void UncalledFunctionMemo::keep(const Key& key, Walk walk) {
  if (files_.empty()) return;
  ++kept_;
  std::vector<Walk>& walks = files_.back().current[key];
  walks.insert(walks.begin(), std::move(walk));
  if (walks.size() > kMaxWalks) walks.pop_back();
}

}  // namespace parlint
