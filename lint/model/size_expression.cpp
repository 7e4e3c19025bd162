#include "lint/model/size_expression.h"

namespace parlint {
namespace {

bool is_size_target(Key k) {
  return k == Key::kNodes || k == Key::kGpusPerNode || k == Key::kWorldSize;
}

}  // namespace

std::optional<SizeExpression> size_expression_of(const std::string& target,
                                                 const std::vector<ProductOperand>& operands,
                                                 Location location, std::string text) {
  auto target_key = key_for_variable_name(target);
  if (!target_key || !is_size_target(*target_key)) return std::nullopt;
  SizeExpression e;
  e.location = std::move(location);
  e.target = target;
  e.target_key = *target_key;
  e.text = std::move(text);
  for (const auto& o : operands)
    if (auto k = key_for_variable_name(o.name); k && !is_size_target(*k)) {
      e.factors.push_back(*k);
      e.factor_values.push_back(o.value);
    }
  if (e.factors.empty()) return std::nullopt;
  return e;
}

}  // namespace parlint
