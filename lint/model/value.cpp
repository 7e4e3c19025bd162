#include "lint/model/value.h"

#include <algorithm>

namespace parlint {

std::string Value::readable(std::string text) {
  if (std::none_of(text.begin(), text.end(), [](char c) { return c == '\x01'; })) return text;
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x01') {
      out.push_back(text[i]);
    } else if (i == 0 || text[i - 1] != '\x01') {
      out += "\u2026";
    }
  }
  return out;
}

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
