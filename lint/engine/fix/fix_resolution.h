#pragma once
// A rule's fix request -> text edits: finds where each value is written and spells the new value the way
// the old one was spelled (True/False in Python, true/false in YAML and overrides, a presence flag removed).
// Only text that reads exactly the old value is edited; anything else means no fix.
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "lint/model/source_text.h"
#include "rules/api/fix.h"

namespace parlint {

// The text of a file by path (nullptr when it cannot be read).
using SourceLookup = std::function<const SourceText*(const std::string& path)>;

std::optional<Fix> resolve_fix(const FixRequest& request, const SourceLookup& source_of);

// `edits` (all in the file of `source`, sorted, not overlapping) applied to its text.
std::string apply_edits(const SourceText& source, std::span<const TextEdit> edits);

// Whether two edits touch the same text (two insertions at one place count as touching).
bool edits_overlap(const TextEdit& a, const TextEdit& b);

// A line of the old text -> its line after `edits` (a line inside a replaced range maps to the edit's start).
int line_after_edits(int line, std::span<const TextEdit> edits);

}  // namespace parlint
