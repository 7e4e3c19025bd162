// Every rule declares the keys it reads (RuleInfo::reads). This runs each rule on the jobs of every
// fixture with the job recording what is asked of it, and fails on a key a rule read but did not declare.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "lint/engine/pipeline.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {

TEST(RuleKeys, EveryRuleDeclaresTheKeysItReads) {
  namespace fs = std::filesystem;
  std::map<std::string, std::set<Key>> undeclared;  // rule code -> keys read but not declared
  std::size_t jobs = 0;
  FileReader reader = FileReader::disk();
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(PARLINT_SOURCE_DIR) / "fixtures")) {
    if (!entry.is_regular_file() || entry.path().extension() == ".expected" ||
        entry.path().filename() == "README.md")
      continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string path = entry.path().string();
    SourceText source(text.str());
    ParsedFile parsed = parse_source(path, source, reader);
    for (const RawJob& raw : parsed.jobs) {
      Job job(path, raw, LintOptions{});
      ++jobs;
      for (const auto& rule : RuleRegistry::instance().rules()) {
        Job::KeyReads log{};
        job.record_reads(&log);
        std::vector<Finding> findings;
        rule->check_job(job, findings);
        job.record_reads(nullptr);
        auto declared = rule->info().reads;
        for (std::size_t k = 0; k < kKeyCount; ++k)
          if (log[k] && std::find(declared.begin(), declared.end(), static_cast<Key>(k)) == declared.end())
            undeclared[std::string(rule->info().code)].insert(static_cast<Key>(k));
      }
    }
  }
  EXPECT_GT(jobs, 200u);  // the fixtures were found and read
  std::string report;
  for (const auto& [code, keys] : undeclared) {
    report += code + " reads but does not declare:";
    for (Key k : keys) report += " Key::" + std::string(key_name(k));
    report += "\n";
  }
  EXPECT_TRUE(undeclared.empty()) << report;
}

TEST(RuleKeys, DeclaredKeysAreListedOnce) {
  for (const auto& rule : RuleRegistry::instance().rules()) {
    std::set<Key> seen;
    for (Key k : rule->info().reads)
      EXPECT_TRUE(seen.insert(k).second) << rule->info().code << " " << key_name(k);
  }
}

}  // namespace
}  // namespace parlint
