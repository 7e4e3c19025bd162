// libFuzzer: the language server's message framing, and the whole server on the same bytes (every
// request and notification it accepts, with documents it then lints).
#include <sstream>

#include "lint/lsp/language_server.h"
#include "lint/lsp/message_transport.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes = parlint::fuzz::text(data, size);
  {
    std::istringstream in(bytes);
    parlint::lsp::MessageReader reader(in, 1 << 20);
    for (int i = 0; i < 10000; ++i)
      if (reader.next().kind == parlint::lsp::Incoming::Kind::kEnd) break;
  }
  std::istringstream in(bytes);
  std::ostringstream out;
  parlint::lsp::ServerOptions options;
  options.debounce = std::chrono::milliseconds(0);
  options.max_message_bytes = 1 << 20;
  options.engine.discover_config = false;
  (void)parlint::lsp::run_language_server(in, out, options);
  return 0;
}
