// Agreement with Megatron-Core itself: every configuration of tests/data/mcore-golden.jsonl, written as
// a NeMo 1 style YAML and linted with the GPUs per node and NVLink domain set to its world size.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "test_support.h"

namespace parlint {
namespace {

struct GoldenCase {
  std::string id;
  std::string yaml;
  int world = 0;
  std::vector<std::string> expect, forbid;
};

std::vector<GoldenCase> load_cases() {
  std::ifstream in(std::string(PARLINT_SOURCE_DIR) + "/tests/data/mcore-golden.jsonl");
  std::vector<GoldenCase> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    GoldenCase c;
    c.id = j["id"];
    c.world = j["world_size"];
    // JSON is YAML: the fields become the model section verbatim.
    c.yaml = "trainer:\n  num_nodes: 1\n  devices: " + std::to_string(c.world) +
             "\nmodel: " + j["fields"].dump() + "\n";
    c.expect = j["expect_codes"].get<std::vector<std::string>>();
    c.forbid = j["forbid_codes"].get<std::vector<std::string>>();
    out.push_back(std::move(c));
  }
  return out;
}

TEST(Golden, AgreesWithMegatronCore) {
  auto cases = load_cases();
  ASSERT_EQ(cases.size(), 309u);
  int checked = 0, agreed = 0;
  for (const auto& c : cases) {
    EngineOptions o = testing::default_options();
    o.lint.gpus_per_node = c.world;
    o.lint.nvlink_domain = c.world;
    auto found = testing::codes(testing::lint(c.yaml, o, c.id + ".yaml"));
    std::set<std::string> got(found.begin(), found.end());
    bool ok = true;
    for (const auto& code : c.expect) {
      if (!RuleRegistry::instance().find(code)) continue;  // a rule of a later issue
      ++checked;
      if (!got.count(code)) {
        ok = false;
        ADD_FAILURE() << c.id << ": expected " << code << "\n" << c.yaml;
      }
    }
    for (const auto& code : c.forbid) {
      if (!RuleRegistry::instance().find(code)) continue;
      ++checked;
      if (got.count(code)) {
        ok = false;
        ADD_FAILURE() << c.id << ": must not report " << code << "\n" << c.yaml;
      }
    }
    agreed += ok;
  }
  std::cout << "[golden] " << agreed << "/" << cases.size() << " cases agree (" << checked
            << " code expectations of implemented rules checked)\n";
}

}  // namespace
}  // namespace parlint
