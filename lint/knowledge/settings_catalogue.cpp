#include "lint/knowledge/settings_catalogue.h"

#include <algorithm>
#include <cstddef>

namespace parlint {
namespace generated {
extern const std::string_view kRealFlagNames[];
extern const std::size_t kRealFlagNames_size;
extern const std::string_view kRealToolFlagNames[];
extern const std::size_t kRealToolFlagNames_size;
extern const std::string_view kRealKeyNames[];
extern const std::size_t kRealKeyNames_size;
}  // namespace generated

namespace {

bool contains(const std::string_view* table, std::size_t size, std::string_view name) {
  return std::binary_search(table, table + size, name);
}

}  // namespace

std::string normalise_setting_name(std::string_view name) {
  std::size_t lead = name.find_first_not_of('-');
  std::string out(lead == std::string_view::npos ? std::string_view{} : name.substr(lead));
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

bool is_training_flag(std::string_view flag) {
  return contains(generated::kRealFlagNames, generated::kRealFlagNames_size, normalise_setting_name(flag));
}

bool is_tool_flag(std::string_view flag) {
  return contains(generated::kRealToolFlagNames, generated::kRealToolFlagNames_size,
                  normalise_setting_name(flag));
}

bool is_real_setting_key(std::string_view key) {
  return contains(generated::kRealKeyNames, generated::kRealKeyNames_size, normalise_setting_name(key));
}

}  // namespace parlint
