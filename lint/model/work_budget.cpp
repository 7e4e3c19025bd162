#include "lint/model/work_budget.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace parlint {

BudgetLimits BudgetLimits::from_environment(BudgetLimits defaults) {
  const char* env = std::getenv("PARLINT_FILE_BUDGET");
  if (!env || !*env) return defaults;
  std::string_view s(env);
  auto comma = s.find(',');
  auto number = [](std::string_view t) -> std::optional<std::uint64_t> {
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v == 0) return std::nullopt;
    return v;
  };
  auto ms = number(s.substr(0, comma));
  if (!ms) return defaults;
  BudgetLimits out = defaults;
  out.time = std::chrono::milliseconds(*ms);
  if (comma != std::string_view::npos) {
    auto units = number(s.substr(comma + 1));
    if (!units) return defaults;
    out.work = *units;
  }
  return out;
}

WorkBudget::WorkBudget(BudgetLimits limits) : limits_(limits), started_(std::chrono::steady_clock::now()) {}

bool WorkBudget::check_clock() {
  next_clock_check_ = spent_ + kClockInterval;
  if (std::chrono::steady_clock::now() - started_ > limits_.time) return run_out(true);
  return true;
}

bool WorkBudget::run_out(bool by_time) {
  exhausted_ = true;
  by_time_ = by_time;
  return false;
}

std::string WorkBudget::reason() const {
  if (by_time_) {
    auto ms = limits_.time.count();
    std::string limit = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
    return "reading the file took longer than parlint's budget of " + limit + " per file";
  }
  auto units = limits_.work % 1'000'000 == 0 ? std::to_string(limits_.work / 1'000'000) + " million"
                                             : std::to_string(limits_.work);
  return "reading the file took more work than parlint's budget per file (" + units +
         " units: syntax nodes, statements, launches and bytes of text)";
}

UnreadRegion over_budget_region(const SourceText& text, int from_line, const WorkBudget& budget) {
  int last = std::max(1, text.line_count());
  if (last > 1 && text.line(last).empty()) --last;  // the final newline ends a line; it starts none
  int first = std::clamp(from_line, 1, last);
  return {{{first, 1}, text.position(last, text.line(last).size())},
          budget.reason(),
          "the lines before were linted; a file this costly to read is unusual: report it to parlint with "
          "the file if you can, or raise the budget with PARLINT_FILE_BUDGET=<milliseconds>,<units>"};
}

}  // namespace parlint
