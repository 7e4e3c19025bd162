#include "lint/knowledge/pipeline_layout.h"

#include <cctype>

namespace parlint {
namespace {

constexpr std::size_t kMaxUnrolled = 1u << 20;  // a layout longer than this is refused, not expanded

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  // sequence := item* ; item := ('(' sequence ')' | char | '|') repeat?
  bool sequence(std::string& out, int depth) {
    if (depth > 32) return fail("parentheses nested too deeply");
    while (pos_ < s_.size() && s_[pos_] != ')') {
      char c = s_[pos_];
      std::string unit;
      if (c == '(') {
        ++pos_;
        if (!sequence(unit, depth + 1)) return false;
        if (pos_ >= s_.size() || s_[pos_] != ')') return fail("unclosed '('");
        ++pos_;
      } else if (c == ',' || c == ' ') {
        ++pos_;
        continue;
      } else if (c == '|' || c == 'E' || c == 'L' || c == 't' || c == 'm') {
        unit = std::string(1, c);
        ++pos_;
      } else {
        return fail(std::string("invalid layer character '") + c + "'");
      }
      std::size_t repeat = 1;
      if (pos_ < s_.size() && s_[pos_] == '*') {
        ++pos_;
        std::size_t n = 0, digits = 0;
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])) && digits < 9) {
          n = n * 10 + static_cast<std::size_t>(s_[pos_++] - '0');
          ++digits;
        }
        if (digits == 0) return fail("'*' without a count");
        repeat = n;
      }
      if (unit.size() * repeat + out.size() > kMaxUnrolled) return fail("layout too long");
      for (std::size_t i = 0; i < repeat; ++i) out += unit;
    }
    return true;
  }

  bool done() const { return pos_ == s_.size(); }
  const std::string& error() const { return error_; }

 private:
  bool fail(std::string e) {
    error_ = std::move(e);
    return false;
  }
  std::string_view s_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::optional<PipelineLayout> parse_pipeline_layout(std::string_view text, std::string& error) {
  Parser p(text);
  std::string flat;
  if (!p.sequence(flat, 0)) {
    error = p.error();
    return std::nullopt;
  }
  if (!p.done()) {
    error = "unbalanced ')'";
    return std::nullopt;
  }
  PipelineLayout layout;
  std::size_t begin = 0;
  while (true) {
    auto bar = flat.find('|', begin);
    layout.stages.push_back(flat.substr(begin, bar == std::string::npos ? std::string::npos : bar - begin));
    if (bar == std::string::npos) break;
    begin = bar + 1;
  }
  return layout;
}

std::optional<PipelineLayout> pipeline_layout_from_value(const Value& value, std::string& error) {
  error.clear();
  if (value.kind() == Value::Kind::kString) return parse_pipeline_layout(value.text(), error);
  if (value.kind() != Value::Kind::kList) return std::nullopt;
  PipelineLayout layout;
  std::size_t total = 0;
  for (const Value& stage : value.items()) {
    if (stage.kind() != Value::Kind::kList) return std::nullopt;  // not a list of lists (or not known)
    std::string unrolled;
    for (const Value& item : stage.items()) {
      if (item.kind() != Value::Kind::kString) return std::nullopt;
      std::string name;
      for (char c : item.text())
        if (!std::isspace(static_cast<unsigned char>(c)))
          name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      char symbol = name == "embedding" ? 'E'
                    : name == "decoder" ? 't'
                    : name == "mtp"     ? 'm'
                    : name == "loss"    ? 'L'
                                        : '\0';
      if (name == "encoder") {
        error =
            "Megatron-Core raises NotImplementedError \"Encoder layer is not supported for flexible "
            "pipeline layout\"";
        return std::nullopt;
      }
      if (!symbol) {
        error = "\"" + item.text() +
                "\" is not a LayerType (embedding, decoder, mtp, loss): Megatron-Core "
                "asserts \"" +
                name + " is not a valid LayerType\"";
        return std::nullopt;
      }
      if (++total > kMaxUnrolled) {
        error = "layout too long";
        return std::nullopt;
      }
      unrolled += symbol;
    }
    layout.stages.push_back(std::move(unrolled));
  }
  if (layout.stages.empty()) return std::nullopt;
  return layout;
}

}  // namespace parlint
