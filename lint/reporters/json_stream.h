#pragma once
// A JSON document written piece by piece, in the layout of nlohmann's dump(2) (two spaces a level, `[]` and
// `{}` when empty), so that a report of many findings never holds them all as one tree and its text: each
// finding is converted, written and dropped. Invalid UTF-8 from input files is replaced, as dump() does.
#include <cstddef>
#include <ostream>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlint {

class JsonStream {
 public:
  explicit JsonStream(std::ostream& out);
  ~JsonStream() = default;
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  // Containers: the document itself (no key), a member of an object (a key), or an item of an array.
  void begin_object(std::string_view key = {});
  void begin_array(std::string_view key = {});
  void end();  // closes the innermost container; after the document's, ends the line
  // A whole value: a member of the current object, or an item of the current array.
  void member(std::string_view key, const nlohmann::ordered_json& value);
  void item(const nlohmann::ordered_json& value);

 private:
  struct Open {
    char closer;              // '}' or ']'
    std::size_t entries = 0;  // written so far
  };
  void next(std::string_view key);  // the separator, the indentation and the key of the next entry
  void open(std::string_view key, char opener, char closer);

  std::ostream& out_;
  nlohmann::detail::serializer<nlohmann::ordered_json> serializer_;
  std::vector<Open> open_;  // the containers begun and not yet ended, outermost first
};

}  // namespace parlint
