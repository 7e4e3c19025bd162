// libFuzzer: suppression comments (`# parlint: ignore[...]`, disable/enable ranges, file-ignore).
#include "lint/engine/suppressions.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  parlint::SourceText source(parlint::fuzz::text(data, size));
  parlint::Suppressions s("fuzz.yaml", source);
  int lines = source.line_count();
  for (const char* code : {"PL101", "PL201", "PL901"}) {
    for (int line : {1, lines / 2, lines, lines + 1}) {
      parlint::Diagnostic d;
      d.code = code;
      d.location = {"fuzz.yaml", {{line, 1}, {line, 2}}};
      (void)s.suppresses(d);
    }
  }
  (void)s.unused({"PL101", "PL201"});
  (void)s.invalid();
  return 0;
}
