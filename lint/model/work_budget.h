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
  // Units of work: what a syntax node walked, a statement read, a launch assembled, a byte parsed and a
  // byte of text built or copied cost, weighed so that a unit takes about the same time whatever the
  // input's shape (2-30 ns here, tests/scaling_shapes.py). The limit is counted, not timed, so a file is
  // read as far on a loaded CI runner as on a quiet laptop. What a parser holds is built from that work,
  // so this bounds its memory too. The largest file of the public corpus spends under 5 million.
  std::uint64_t work = 400'000'000;
  // A last-resort guard far above what the work limit lets any input take (a few seconds): only a shape
  // whose cost the units miss can reach it, and then the answer depends on the machine.
  std::chrono::milliseconds time{60'000};

  // PARLINT_FILE_BUDGET=<milliseconds>[,<units>] replaces the defaults (docs/reliability.md); a malformed
  // value leaves them.
  static BudgetLimits from_environment(BudgetLimits defaults);
};

// Work done below the parsers' own accounting, where it is cheap to count and hard to pass a budget to:
// the text values build and copy (a value copied into each branch, a long value split into words). The
// thread's meter only grows; a budget charges itself what the meter gained since it last looked, so the
// same input costs the same units on any machine and under any load.
class WorkMeter {
 public:
  static void charge(std::uint64_t units) { units_ += units; }
  static std::uint64_t reading() { return units_; }

 private:
  static inline thread_local std::uint64_t units_ = 0;
};

class WorkBudget {
 public:
  explicit WorkBudget(BudgetLimits limits = {});

  // Charges `units` and the work metered since the last call; false once the file is over budget (and
  // from then on).
  bool spend(std::uint64_t units = 1) {
    if (exhausted_) return false;
    std::uint64_t metered = WorkMeter::reading();
    spent_ += units + (metered - meter_seen_);
    meter_seen_ = metered;
    if (spent_ > limits_.work) return run_out(false);
    if (spent_ >= next_clock_check_) return check_clock();
    return true;
  }
  bool exhausted() const { return exhausted_; }
  std::uint64_t spent() const { return spent_; }
  // Work charged to the meter since the last spend(): the next spend() charges it to this budget.
  std::uint64_t unabsorbed() const { return WorkMeter::reading() - meter_seen_; }
  std::uint64_t remaining() const { return exhausted_ || spent_ >= limits_.work ? 0 : limits_.work - spent_; }
  // Why it ran out, for the PL903 note: "reading it took longer than parlint's 10 s budget per file".
  std::string reason() const;

 private:
  bool check_clock();
  bool run_out(bool by_time);

  static constexpr std::uint64_t kClockInterval = 1u << 16;  // units between looks at the clock
  BudgetLimits limits_;
  std::chrono::steady_clock::time_point started_;
  std::uint64_t spent_ = 0;
  std::uint64_t meter_seen_ = WorkMeter::reading();
  std::uint64_t next_clock_check_ = kClockInterval;
  bool exhausted_ = false;
  bool by_time_ = false;
};

// The lines of `text` from `from_line` to its last line with text, reported unread (PL903) because
// `budget` ran out there (the reading of the file stopped at that line).
UnreadRegion over_budget_region(const SourceText& text, int from_line, const WorkBudget& budget);

}  // namespace parlint
