#pragma once
// A source range as parlint's JSON documents write it (check --format json, plan --format json):
// {"start": {"line", "column"}, "end": {...}}, 1-based lines and code-point columns.
#include <nlohmann/json.hpp>

#include "lint/model/source_range.h"

namespace parlint {

nlohmann::ordered_json range_json(const SourceRange& r);

}  // namespace parlint
