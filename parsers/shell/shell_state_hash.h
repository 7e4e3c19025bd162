#pragma once
// A hash of the interpreter's state (variables, the SLURM context): two states with the same hash give the
// same reading of the code that reads them. Long texts are hashed whole, then mixed in as numbers.
#include <cstdint>
#include <functional>
#include <string_view>

#include "lint/model/fact.h"
#include "lint/model/work_budget.h"
#include "parsers/args/slurm_options.h"
#include "parsers/shell/shell_text.h"
#include "parsers/shell/shell_variables.h"

namespace parlint::shell {

class StateHash {
 public:
  // `charged`: the hashing is work of the reading itself (read_sourced), charged to the work meter. The
  // language server's memo of uncalled functions hashes uncharged: a lint must cost the units a fresh
  // `parlint check` of the same text costs.
  explicit StateHash(bool charged = true) : charged_(charged) {}

  void bytes(std::string_view s) {
    if (charged_) WorkMeter::charge(s.size() / 16);
    number(std::hash<std::string_view>{}(s));
  }
  void number(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(v >> (8 * i)));
  }
  void location(const Location& l) {
    bytes(l.path);
    number(static_cast<std::uint64_t>(l.range.start.line) << 32 |
           static_cast<std::uint32_t>(l.range.start.column));
    number(static_cast<std::uint64_t>(l.range.end.line) << 32 |
           static_cast<std::uint32_t>(l.range.end.column));
  }
  void text(const ShellText& t) {
    bytes(t.text);
    t.origin.for_each_run([&](ByteOrigin o, std::size_t n) {
      number(static_cast<std::uint32_t>(o.file));
      number(o.offset);
      number(n);
    });
    number(t.unknown_reasons.size());
    for (const auto& r : t.unknown_reasons) bytes(r);
    number(t.weak);
    bytes(t.weak_note);
    number(t.via.size());
    for (const auto& r : t.via) {
      location(r.location);
      bytes(r.message);
      if (!charged_) number(r.choice);
    }
    bytes(t.empty_when);
    number(static_cast<std::uint32_t>(t.written_first.file));
    number(t.written_first.offset);
    number(static_cast<std::uint32_t>(t.written_last.file));
    number(t.written_last.offset);
  }
  // A variable's value and where it was set. Branch values are hashed by identity when charged (a
  // reading's state within one run, where they are shared and never changed), else by content.
  void var(const Var& v) {
    number(v.is_array);
    number(v.exported);
    text(v.value);
    number(v.elements.size());
    for (const auto& e : v.elements) text(e);
    location(v.assigned_at);
    bytes(v.assigned_text);
    if (charged_) {
      number(reinterpret_cast<std::uintptr_t>(v.branch_values.get()));
      return;
    }
    number(v.branch_values ? v.branch_values->size() + 1 : 0);
    if (v.branch_values)
      for (const auto& b : *v.branch_values) {
        bytes(b.branch);
        number(b.value != nullptr);
        if (b.value) var(*b.value);
      }
  }
  void fact(const std::optional<Fact>& f) {
    number(f.has_value());
    if (!f) return;
    number(static_cast<std::uint64_t>(f->key));
    bytes(f->value.to_string());
    location(f->location);
    bytes(f->spelling);
    number(f->weak);
    if (charged_) return;
    number(static_cast<std::uint64_t>(f->value.kind()));
    bytes(f->value.text());
    number(static_cast<std::uint64_t>(f->origin));
    number(static_cast<std::uint64_t>(f->priority));
    bytes(f->weak_note);
    number(f->written_at.size());
    for (const auto& r : f->written_at) {
      location(r.location);
      bytes(r.message);
      number(r.choice);
    }
    bytes(f->receiver);
    bytes(f->default_of);
  }
  void allocation(const Allocation& a) {
    for (const auto* f :
         {&a.nodes, &a.gpus_per_node, &a.ntasks_per_node, &a.ntasks, &a.gpus_total, &a.gpus_per_task})
      fact(*f);
    bytes(a.per_task_unit);
    number(a.exclusive.has_value());
    if (!charged_ && a.exclusive) location(*a.exclusive);
    number(a.any);
  }
  std::uint64_t value() const { return h_; }

 private:
  void mix(unsigned char c) {
    h_ ^= c;
    h_ *= 1099511628211ull;
  }
  bool charged_;
  std::uint64_t h_ = 14695981039346656037ull;
};

}  // namespace parlint::shell
