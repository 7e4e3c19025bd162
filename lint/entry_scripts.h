#pragma once
// Cross-file resolution for launches: a shell launch that runs a local Python file takes that file's
// settings (its module body, or the function named by --recipe) at lower precedence than the launch's
// own command-line arguments.
#include <string>

#include "parsers/parsed_file.h"

namespace parlint {

// Resolves entry scripts of `file`'s jobs relative to the launching script's folder, then the working
// directory; files that do not exist (a framework's own run_recipe.py) are left alone.
void merge_entry_scripts(ParsedFile& file, std::size_t max_file_size);

}  // namespace parlint
