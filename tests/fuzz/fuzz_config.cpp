// libFuzzer: the .parlint.yaml loader (keys, rule lists, severities, cluster mappings, globs).
#include "lint/config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto config = parlint::parse_config(parlint::fuzz::text(data, size), "/fuzz/.parlint.yaml");
  if (config) {
    (void)config->excludes("/fuzz/a/b.yaml");
    (void)config->ignored_for("/fuzz/examples/x.sh");
  }
  return 0;
}
