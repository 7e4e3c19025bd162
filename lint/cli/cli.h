#pragma once

namespace parlint {

// Parses the command line and runs a subcommand; returns the process exit code (DESIGN §4).
int run_cli(int argc, char** argv);

}  // namespace parlint
