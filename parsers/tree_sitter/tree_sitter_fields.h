#pragma once
// A node's child by grammar field, with the field's id looked up once. ts_node_child_by_field_name
// compares the name with every field name of the grammar on each call, which was a tenth of the
// Python reader's own time.
//
//   child_by_field<python_language, "arguments">(call)
#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>

namespace parlint {

// A string literal usable as a template argument.
template <std::size_t N>
struct FieldName {
  constexpr FieldName(const char (&s)[N]) {  // NOLINT: implicit from a literal on purpose
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
  static constexpr std::uint32_t size() { return static_cast<std::uint32_t>(N - 1); }
  char text[N];
};

template <const TSLanguage* (*Language)(), FieldName Name>
TSNode child_by_field(TSNode node) {
  static const TSFieldId id = ts_language_field_id_for_name(Language(), Name.text, Name.size());
  return ts_node_child_by_field_id(node, id);
}

}  // namespace parlint
