#pragma once
// Text produced by shell expansion, with the origin of every byte in a source file, so that a
// string re-parsed as shell (bash -c "$CMD") still points into the original file.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lint/fact.h"

namespace parlint {

struct ByteOrigin {
  std::int32_t file = -1;  // index into the parser's file table; -1 = produced, not written
  std::uint32_t offset = 0;
};

// A placeholder byte for text only known at run time ($(hostname), $1): keeps word structure intact.
inline constexpr char kUnknownByte = '\x01';

struct ShellText {
  std::string text;
  std::vector<ByteOrigin> origin;  // one per byte of text
  std::vector<std::string> unknown_reasons;
  bool weak = false;
  std::string weak_note;
  std::vector<RelatedLocation> via;  // assignments whose values were used
  Location written;                  // where this text (an array element, a word) was written, if known

  bool unknown() const { return !unknown_reasons.empty(); }
  bool empty() const { return text.empty(); }
  void push(char c, ByteOrigin o) {
    text.push_back(c);
    origin.push_back(o);
  }
  void append(const ShellText& other) {
    text += other.text;
    origin.insert(origin.end(), other.origin.begin(), other.origin.end());
    merge_meta(other);
  }
  void merge_meta(const ShellText& other) {
    unknown_reasons.insert(unknown_reasons.end(), other.unknown_reasons.begin(), other.unknown_reasons.end());
    if (other.weak && !weak) {
      weak = true;
      weak_note = other.weak_note;
    }
    via.insert(via.end(), other.via.begin(), other.via.end());
  }
  void add_unknown(std::string reason) {
    push(kUnknownByte, {});
    unknown_reasons.push_back(std::move(reason));
  }
};

}  // namespace parlint
