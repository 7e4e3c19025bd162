#pragma once
// The value of a setting: known (int, bool, string, list), explicitly null, or unknown with a reason.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace parlint {

class Value {
 public:
  enum class Kind { kUnknown, kNull, kInt, kBool, kString, kList };

  Value() : kind_(Kind::kNull) {}
  // A reason quotes the text it could not read; bytes below 0x20 there (a parser's placeholder for text
  // known only at run time) become "…", so no internal marker reaches a report.
  static Value unknown(std::string reason) { return Value(Kind::kUnknown, readable(std::move(reason))); }
  static Value null() { return Value(Kind::kNull, {}); }
  static Value integer(std::int64_t v) {
    Value x(Kind::kInt, {});
    x.int_ = v;
    return x;
  }
  static Value boolean(bool v) {
    Value x(Kind::kBool, {});
    x.bool_ = v;
    return x;
  }
  static Value string(std::string v) { return Value(Kind::kString, std::move(v)); }
  static Value list(std::vector<Value> items) {
    Value x(Kind::kList, {});
    x.items_ = std::move(items);
    return x;
  }

  Kind kind() const { return kind_; }
  bool is_unknown() const { return kind_ == Kind::kUnknown; }
  bool is_known() const { return kind_ != Kind::kUnknown; }
  std::optional<std::int64_t> as_int() const {
    return kind_ == Kind::kInt ? std::optional(int_) : std::nullopt;
  }
  std::optional<bool> as_bool() const { return kind_ == Kind::kBool ? std::optional(bool_) : std::nullopt; }
  const std::string& text() const { return text_; }  // string value, or the reason when unknown
  const std::string& unknown_reason() const { return text_; }
  const std::vector<Value>& items() const { return items_; }

  // How the value reads in a message: 16, true, "p2p", [2, 4], null, unknown.
  std::string to_string() const;
  bool operator==(const Value& other) const;

 private:
  static std::string readable(std::string text);
  Value(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}
  Kind kind_;
  std::int64_t int_ = 0;
  bool bool_ = false;
  std::string text_;
  std::vector<Value> items_;
};

}  // namespace parlint
