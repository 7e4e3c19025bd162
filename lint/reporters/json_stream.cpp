#include "lint/reporters/json_stream.h"

#include <string>

namespace parlint {

JsonStream::JsonStream(std::ostream& out)
    : out_(out),
      serializer_(nlohmann::detail::output_adapter<char>(out), ' ',
                  nlohmann::ordered_json::error_handler_t::replace) {}

void JsonStream::next(std::string_view key) {
  if (open_.empty()) return;  // the document itself
  out_ << (open_.back().entries++ == 0 ? "\n" : ",\n") << std::string(2 * open_.size(), ' ');
  // Keys are parlint's own ASCII names: written as they are.
  if (!key.empty()) out_ << '"' << key << "\": ";
}

void JsonStream::open(std::string_view key, char opener, char closer) {
  next(key);
  out_ << opener;
  open_.push_back({closer});
}

void JsonStream::begin_object(std::string_view key) {
  open(key, '{', '}');
}

void JsonStream::begin_array(std::string_view key) {
  open(key, '[', ']');
}

void JsonStream::end() {
  Open closing = open_.back();
  open_.pop_back();
  if (closing.entries > 0) out_ << '\n' << std::string(2 * open_.size(), ' ');
  out_ << closing.closer;
  if (open_.empty()) out_ << '\n';
}

void JsonStream::member(std::string_view key, const nlohmann::ordered_json& value) {
  next(key);
  serializer_.dump(value, true, false, 2, static_cast<unsigned>(2 * open_.size()));
}

void JsonStream::item(const nlohmann::ordered_json& value) {
  member({}, value);
}

}  // namespace parlint
