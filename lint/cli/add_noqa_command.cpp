// parlint check --add-noqa: a suppression comment for every finding, then how many were added (ruff
// prints "Added N noqa directives."); what no comment can hide is listed on stderr, and how many
// findings `check` still reports.
#include <fmt/format.h>

#include <iostream>

#include "lint/cli/commands.h"
#include "lint/engine/fix/add_suppressions.h"
#include "lint/reporters/reporter.h"

namespace parlint::cli {

int run_add_noqa(const std::vector<std::string>& paths, const EngineOptions& options) {
  AddedSuppressions added = add_suppressions(paths, options, "TODO: reason");
  for (const auto& line : added.not_suppressed) std::cerr << "parlint: " << escape_control(line) << "\n";
  for (const auto& e : added.errors)
    std::cerr << "parlint: " << escape_control(e.path) << ": " << escape_control(e.message) << "\n";
  std::cerr << fmt::format("Added {} suppression comment{} for {} finding{} in {} file{}.\n", added.comments,
                           added.comments == 1 ? "" : "s", added.findings, added.findings == 1 ? "" : "s",
                           added.files, added.files == 1 ? "" : "s");
  if (added.left > 0)
    std::cerr << fmt::format("{} finding{} remain{} (above).\n", added.left, added.left == 1 ? "" : "s",
                             added.left == 1 ? "s" : "");
  for (const auto& e : added.errors)
    if (e.internal) return kExitInternal;
  return added.errors.empty() ? kExitClean : kExitUsage;
}

}  // namespace parlint::cli
