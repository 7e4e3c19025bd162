// libFuzzer: the python extraction and everything after it (jobs, rules, suppressions).
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  parlint::fuzz::check_as("fuzz.py", data, size);
  return 0;
}
