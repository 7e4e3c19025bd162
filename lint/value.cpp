#include "lint/value.h"

namespace parlint {

std::string Value::to_string() const {
  switch (kind_) {
    case Kind::kUnknown:
      return "unknown";
    case Kind::kNull:
      return "null";
    case Kind::kInt:
      return std::to_string(int_);
    case Kind::kBool:
      return bool_ ? "true" : "false";
    case Kind::kString:
      return "\"" + text_ + "\"";
    case Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < items_.size(); ++i) out += (i ? ", " : "") + items_[i].to_string();
      return out + "]";
    }
  }
  return "unknown";
}

bool Value::operator==(const Value& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::kUnknown:
      return false;  // two unknowns are never known to agree
    case Kind::kNull:
      return true;
    case Kind::kInt:
      return int_ == o.int_;
    case Kind::kBool:
      return bool_ == o.bool_;
    case Kind::kString:
      return text_ == o.text_;
    case Kind::kList:
      return items_ == o.items_;
  }
  return false;
}

}  // namespace parlint
