#pragma once
// `parlint lsp`: a Language Server Protocol 3.17 server on stdio (DESIGN §6). Diagnostics on open,
// change and save with debouncing (the newest version wins), quick fixes that insert suppression
// comments, hover with the resolved layout, configuration reload, open buffers winning over disk for
// cross-file facts.
#include <chrono>
#include <cstddef>
#include <istream>
#include <ostream>

#include "lint/engine/engine.h"

namespace parlint::lsp {

struct ServerOptions {
  EngineOptions engine;
  std::chrono::milliseconds debounce{25};  // quiet time after the last change before linting
  std::size_t max_message_bytes = 64u << 20;
};

// Serves until `exit` or the end of input; returns the process exit code (0 after `shutdown`).
int run_language_server(std::istream& in, std::ostream& out, const ServerOptions& options);

}  // namespace parlint::lsp
