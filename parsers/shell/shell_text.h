#pragma once
// Text produced by shell expansion, with the origin of every byte in a source file, so that a
// string re-parsed as shell (bash -c "$CMD") still points into the original file.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/fact.h"
#include "lint/model/work_budget.h"

namespace parlint {

struct ByteOrigin {
  std::int32_t file = -1;  // index into the parser's file table; -1 = produced, not written
  std::uint32_t offset = 0;
};

// Where each byte of an expanded text came from, stored as runs: a stretch of bytes copied from one
// place in a file is one run, and so is a stretch of produced bytes. One entry per byte made expansion
// allocate nine bytes for every byte of text.
class ByteOrigins {
 public:
  ByteOrigins() = default;
  // A copy is charged to the work meter (lint/model/work_budget.h) by the bytes it describes: a text's
  // copy costs what its bytes and runs do, and a script that copies long values at every branch must
  // run out of its budget by the same units on every machine.
  ByteOrigins(const ByteOrigins& other) : runs_(other.runs_), size_(other.size_) { charge_copy(); }
  ByteOrigins& operator=(const ByteOrigins& other) {
    runs_ = other.runs_;
    size_ = other.size_;
    charge_copy();
    return *this;
  }
  ByteOrigins(ByteOrigins&&) noexcept = default;
  ByteOrigins& operator=(ByteOrigins&&) noexcept = default;

  // The origin of the next byte.
  void push(ByteOrigin o) {
    if (runs_.empty() || !continues(runs_.back(), o)) runs_.push_back({size_, o});
    ++size_;
    WorkMeter::charge(1);
  }
  // The origins of `n` bytes copied in a row from one place: n pushes of first, first + 1, ... at once.
  void push_run(ByteOrigin first, std::uint32_t n) {
    if (n == 0) return;
    if (runs_.empty() || !continues(runs_.back(), first)) runs_.push_back({size_, first});
    size_ += n;
    WorkMeter::charge(n);
  }
  // The origins of other's bytes, after these.
  // Only the first run can continue the last one here: the runs of `other` are already maximal, so the
  // rest are copied as they are, shifted (an expansion of a long value copies its runs in one go).
  void append(const ByteOrigins& other) {
    if (other.runs_.empty()) return;
    std::size_t from = 0;
    if (!runs_.empty() && continues(runs_.back(), other.runs_.front().origin)) from = 1;
    std::uint32_t shift = size_;
    WorkMeter::charge(kCopyUnits + other.size_ / 8 + other.runs_.size());
    for (std::size_t r = from; r < other.runs_.size(); ++r)
      runs_.push_back({other.runs_[r].start + shift, other.runs_[r].origin});
    size_ += other.size_;
  }
  // The origins of other's bytes [from, to), after these.
  void append_slice(const ByteOrigins& other, std::size_t from, std::size_t to) {
    to = std::min<std::size_t>(to, other.size_);
    if (from >= to) return;
    WorkMeter::charge(kCopyUnits / 4 + (to - from) / 8);
    for (std::size_t r = other.run_index(from); r < other.runs_.size() && other.runs_[r].start < to; ++r) {
      std::size_t first = std::max<std::size_t>(from, other.runs_[r].start);
      std::size_t last = std::min<std::size_t>(to, other.run_end(r));
      ByteOrigin o = origin_in(other.runs_[r], first);
      if (runs_.empty() || !continues(runs_.back(), o)) runs_.push_back({size_, o});
      size_ += static_cast<std::uint32_t>(last - first);
    }
  }
  // Produced origins for bytes up to `size`.
  void pad_to(std::size_t size) {
    if (size <= size_) return;
    ByteOrigin produced{};
    if (runs_.empty() || !continues(runs_.back(), produced)) runs_.push_back({size_, produced});
    size_ = static_cast<std::uint32_t>(size);
  }
  // The origin of byte i; a produced origin past the end.
  ByteOrigin at(std::size_t i) const {
    if (i >= size_) return {};
    return origin_in(runs_[run_index(i)], i);
  }
  ByteOrigin back() const { return size_ ? at(size_ - 1) : ByteOrigin{}; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The origins of bytes [from, size).
  ByteOrigins slice(std::size_t from) const {
    ByteOrigins out;
    if (from >= size_) return out;
    for (std::size_t r = run_index(from); r < runs_.size(); ++r) {
      std::size_t first = std::max<std::size_t>(from, runs_[r].start);
      out.runs_.push_back({out.size_, origin_in(runs_[r], first)});
      out.size_ += run_end(r) - static_cast<std::uint32_t>(first);
    }
    return out;
  }
  // Calls f(first byte's origin, number of bytes) for each run, in order.
  template <class F>
  void for_each_run(F f) const {
    for (std::size_t r = 0; r < runs_.size(); ++r) f(runs_[r].origin, run_end(r) - runs_[r].start);
  }

 private:
  struct Run {
    std::uint32_t start;  // index of the run's first byte
    ByteOrigin origin;    // of that byte; the next bytes follow it in the file (or are produced too)
  };
  bool continues(const Run& last, ByteOrigin o) const {
    if (o.file != last.origin.file) return false;
    return o.file < 0 || o.offset == last.origin.offset + (size_ - last.start);
  }
  static ByteOrigin origin_in(const Run& run, std::size_t i) {
    if (run.origin.file < 0) return run.origin;
    return {run.origin.file, run.origin.offset + static_cast<std::uint32_t>(i - run.start)};
  }
  std::uint32_t run_end(std::size_t r) const { return r + 1 < runs_.size() ? runs_[r + 1].start : size_; }
  std::size_t run_index(std::size_t i) const {
    auto it = std::upper_bound(runs_.begin(), runs_.end(), i,
                               [](std::size_t v, const Run& r) { return v < r.start; });
    return static_cast<std::size_t>(it - runs_.begin()) - 1;
  }

  static constexpr std::uint64_t kCopyUnits = 16;  // an allocation
  void charge_copy() const { WorkMeter::charge(kCopyUnits + size_ / 8 + runs_.size()); }

  std::vector<Run> runs_;
  std::uint32_t size_ = 0;
};

// A placeholder byte for text only known at run time ($(hostname), $1): keeps word structure intact.
inline constexpr char kUnknownByte = '\x01';

// What one text carries besides its bytes is bounded, whatever the script's shape: text built from
// itself in branches (A="$A --x" in sequential ifs) inherits its parts' reasons and assignments each
// time, and copying them whole made cost grow with the product of the branches. The first reasons and
// the first distinct assignments are kept: they explain the value; the rest repeat them.
inline constexpr std::size_t kMaxUnknownReasons = 32;
inline constexpr std::size_t kMaxVia = 16;

struct ShellText {
  std::string text;
  ByteOrigins origin;  // of every byte of text
  std::vector<std::string> unknown_reasons;
  bool weak = false;
  std::string weak_note;
  std::vector<RelatedLocation> via;  // assignments whose values were used
  // Non-empty when the value is empty on one path the script can take: when that is ("the if at line 3
  // ([ $NODES -le 4 ]) is false"). The text then holds the other paths' (unknown) value.
  std::string empty_when;
  // Where this text (an array element, a word) was written, if known: its first and last bytes. Kept
  // as byte origins and turned into a Location only when a finding needs it.
  ByteOrigin written_first{}, written_last{};

  bool written_known() const { return written_first.file >= 0; }
  void forget_written() { written_first = written_last = ByteOrigin{}; }

  bool unknown() const { return !unknown_reasons.empty(); }
  bool empty() const { return text.empty(); }
  void push(char c, ByteOrigin o) {
    text.push_back(c);
    origin.push(o);
  }
  // Bytes copied in a row from a file (`first` is the origin of the first): push() of each at once.
  void push_run(std::string_view bytes, ByteOrigin first) {
    text.append(bytes);
    origin.push_run(first, static_cast<std::uint32_t>(bytes.size()));
  }
  // Bytes [from, to) of other, with their origins (not its reasons or assignments).
  void append_slice(const ShellText& other, std::size_t from, std::size_t to) {
    text.append(other.text, from, to - from);
    origin.append_slice(other.origin, from, to);
    origin.pad_to(text.size());  // bytes other has no origin for are produced ones
  }
  void append(const ShellText& other) {
    text += other.text;
    origin.append(other.origin);
    merge_meta(other);
  }
  // append(), taking over other's storage when this text is still empty (a value expanded into a
  // string that starts with it).
  void append_moved(ShellText&& other) {
    if (text.empty() && unknown_reasons.empty() && via.empty() && !weak && !written_known() &&
        empty_when.empty()) {
      *this = std::move(other);
      forget_written();  // as append() leaves it: where this text was written is not other's
      return;
    }
    append(other);
  }
  void merge_meta(const ShellText& other, bool with_reasons = true) {
    if (with_reasons)
      for (const auto& r : other.unknown_reasons) add_reason(r);
    if (other.weak && !weak) {
      weak = true;
      weak_note = other.weak_note;
    }
    for (const auto& r : other.via) add_via(r);
    if (empty_when.empty()) empty_when = other.empty_when;
  }
  void add_unknown(std::string reason) {
    push(kUnknownByte, {});
    add_reason(std::move(reason));
  }
  // Past the bound a reason is left out: the text stays unknown (its placeholder bytes say so).
  void add_reason(std::string reason) {
    if (unknown_reasons.size() < kMaxUnknownReasons) unknown_reasons.push_back(std::move(reason));
  }
  void add_via(const RelatedLocation& r) {
    if (via.size() >= kMaxVia) return;
    for (const auto& v : via)
      if (v.location.path == r.location.path && v.location.range == r.location.range &&
          v.message == r.message)
        return;
    via.push_back(r);
  }
};

}  // namespace parlint
