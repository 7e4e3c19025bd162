// libFuzzer: the configuration loaders, .parlint.yaml and pyproject.toml's [tool.parlint] (keys, rule
// lists, severities, cluster mappings, globs), on the same bytes.
#include "lint/engine/config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = parlint::fuzz::text(data, size);
  auto config = parlint::parse_config(text, "/fuzz/.parlint.yaml");
  if (config) {
    (void)config->excludes("/fuzz/a/b.yaml");
    (void)config->ignored_for("/fuzz/examples/x.sh");
  }
  // The TOML reader only parses text that names parlint: give it some that does.
  auto table = parlint::parse_pyproject_config("[tool.parlint]\n" + text, "/fuzz/pyproject.toml");
  if (table && *table) (void)(*table)->ignored_for("/fuzz/examples/x.sh");
  return 0;
}
