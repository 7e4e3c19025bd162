#pragma once
// What one file may cost to read: a wall-clock limit and a limit on the work done (syntax nodes walked,
// statements read, bytes of values built). The parsers charge their work as they go and stop when it
// runs out; the lines they did not get to are reported as unread (PL903) and every other file of the run
// is linted as usual. Every shape of input is meant to cost time linear in its size, so the budget is a
// safety net against a shape that is not: never an error, never an exit code.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "lint/model/parsed_file.h"
#include "lint/model/source_text.h"

namespace parlint {

struct BudgetLimits {
  std::chrono::milliseconds time{10'000};
  // Units of work: one per syntax node walked or statement read, one per byte of text built. What a
  // parser holds is built from that work, so this bounds its memory too (a unit is at most a few bytes
  // held). The largest file of the public corpus spends under 2 million.
  std::uint64_t work = 400'000'000;

  // PARLINT_FILE_BUDGET=<milliseconds>[,<units>] replaces the defaults (docs/reliability.md); a malformed
  // value leaves them.
  static BudgetLimits from_environment(BudgetLimits defaults);
};

class WorkBudget {
 public:
  explicit WorkBudget(BudgetLimits limits = {});

  // Charges `units`; false once the file is over budget (and from then on).
  bool spend(std::uint64_t units = 1) {
    if (exhausted_) return false;
    spent_ += units;
    if (spent_ > limits_.work) return run_out(false);
    if (spent_ >= next_clock_check_) return check_clock();
    return true;
  }
  bool exhausted() const { return exhausted_; }
  std::uint64_t spent() const { return spent_; }
  // Why it ran out, for the PL903 note: "reading it took longer than parlint's 10 s budget per file".
  std::string reason() const;

 private:
  bool check_clock();
  bool run_out(bool by_time);

  static constexpr std::uint64_t kClockInterval = 1u << 16;  // units between looks at the clock
  BudgetLimits limits_;
  std::chrono::steady_clock::time_point started_;
  std::uint64_t spent_ = 0;
  std::uint64_t next_clock_check_ = kClockInterval;
  bool exhausted_ = false;
  bool by_time_ = false;
};

// The lines of `text` from `from_line` to its last line with text, reported unread (PL903) because
// `budget` ran out there (the reading of the file stopped at that line).
UnreadRegion over_budget_region(const SourceText& text, int from_line, const WorkBudget& budget);

}  // namespace parlint
