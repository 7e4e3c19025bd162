// Google Benchmark: each stage of parlint on the generated corpus (PARLINT_BENCH_CORPUS, written by
// tests/bench/gen_corpus.py; `make bench` does both). Throughput is reported in bytes per second.
//   raw parse      tree-sitter / yaml-cpp alone: the floor the parsers cannot go below
//   extract        parlint's parsers: syntax -> facts (includes the raw parse)
//   resolve+rules  facts -> jobs -> every rule
//   report         the reporters on a run's diagnostics
//   check          the whole engine on every file (the CLI without process start-up)
#include <benchmark/benchmark.h>
#include <tree_sitter/api.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <sstream>

#include "lint/engine/engine.h"
#include "lint/model/source_text.h"
#include "lint/reporters/reporter.h"
#include "lint/resolve/job.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/python/python_parser.h"
#include "parsers/shell/shell_parser.h"
#include "parsers/tree_sitter/tree_sitter_languages.h"
#include "parsers/yaml/yaml_parser.h"
#include "rules/api/rule.h"
#include "tests/bench/corpus_files.h"

namespace parlint::bench {
namespace {

const Corpus& corpus() {
  static const Corpus c = [] {
    const char* dir = std::getenv("PARLINT_BENCH_CORPUS");
    if (!dir) {
      std::fprintf(stderr, "set PARLINT_BENCH_CORPUS to a folder written by tests/bench/gen_corpus.py\n");
      std::exit(2);
    }
    return load_corpus(dir);
  }();
  return c;
}

std::int64_t bytes_of(const std::vector<CorpusFile>& files) {
  std::int64_t n = 0;
  for (const auto& f : files) n += static_cast<std::int64_t>(f.text.size());
  return n;
}

EngineOptions all_rules() {
  EngineOptions o;
  o.rules = *RuleSelection::make({}, {});
  o.discover_config = false;
  return o;
}

void raw_tree_sitter(benchmark::State& state, const std::vector<CorpusFile>& files,
                     const TSLanguage* language) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, language);
  for (auto _ : state)
    for (const auto& f : files) {
      TSTree* tree =
          ts_parser_parse_string(parser, nullptr, f.text.data(), static_cast<std::uint32_t>(f.text.size()));
      benchmark::DoNotOptimize(tree);
      ts_tree_delete(tree);
    }
  ts_parser_delete(parser);
  state.SetBytesProcessed(state.iterations() * bytes_of(files));
}

void BM_RawParse_Shell(benchmark::State& s) {
  raw_tree_sitter(s, corpus().shell, bash_language());
}
void BM_RawParse_Python(benchmark::State& s) {
  raw_tree_sitter(s, corpus().python, python_language());
}
void BM_RawParse_Yaml(benchmark::State& state) {
  for (auto _ : state)
    for (const auto& f : corpus().yaml) benchmark::DoNotOptimize(YAML::LoadAll(f.text));
  state.SetBytesProcessed(state.iterations() * bytes_of(corpus().yaml));
}

// Each parser on its own, every file it refers to read from disk as in a run.
template <typename Parse>
void extract(benchmark::State& state, const std::vector<CorpusFile>& files, Parse parse) {
  std::vector<SourceText> sources;
  for (const auto& f : files) sources.emplace_back(f.text);
  for (auto _ : state)
    for (std::size_t i = 0; i < files.size(); ++i) benchmark::DoNotOptimize(parse(files[i].path, sources[i]));
  state.SetBytesProcessed(state.iterations() * bytes_of(files));
}
void BM_Extract_Shell(benchmark::State& s) {
  extract(s, corpus().shell,
          [](std::string_view p, const SourceText& t) { return parse_shell(p, t, framework_adapters()); });
}
void BM_Extract_Python(benchmark::State& s) {
  extract(s, corpus().python, [](std::string_view p, const SourceText& t) { return parse_python(p, t); });
}
void BM_Extract_Yaml(benchmark::State& s) {
  extract(s, corpus().yaml,
          [](std::string_view p, const SourceText& t) { return parse_yaml(p, t, framework_documents()); });
}

// Jobs and every rule, from already-parsed files.
void BM_ResolveAndRules(benchmark::State& state) {
  std::vector<ParsedFile> parsed;
  std::vector<SourceText> sources;
  for (const auto* list : {&corpus().yaml, &corpus().python, &corpus().shell})
    for (const auto& f : *list) sources.emplace_back(f.text);
  std::size_t k = 0;
  for (const auto* list : {&corpus().yaml, &corpus().python, &corpus().shell})
    for (const auto& f : *list) {
      const SourceText& s = sources[k++];
      parsed.push_back(f.path.ends_with(".yaml") ? parse_yaml(f.path, s, framework_documents())
                       : f.path.ends_with(".py") ? parse_python(f.path, s)
                                                 : parse_shell(f.path, s, framework_adapters()));
    }
  LintOptions options;
  std::size_t findings = 0;
  for (auto _ : state) {
    for (const auto& p : parsed) {
      std::vector<Finding> out;
      for (const auto& rule : RuleRegistry::instance().rules()) rule->check_file(p, out);
      for (const auto& raw : p.jobs) {
        Job job(p.path, raw, options);
        for (const auto& rule : RuleRegistry::instance().rules()) rule->check_job(job, out);
      }
      findings += out.size();
    }
  }
  state.counters["files"] = static_cast<double>(parsed.size());
  benchmark::DoNotOptimize(findings);
}

void BM_Report(benchmark::State& state) {
  static const RunResult result = run_check({std::getenv("PARLINT_BENCH_CORPUS")}, all_rules());
  using Fn = void (*)(const RunResult&, const ReportOptions&, std::ostream&);
  Fn fns[] = {report_text, report_gcc, report_json, report_github, report_sarif};
  Fn fn = fns[state.range(0)];
  ReportOptions options;
  for (auto _ : state) {
    std::ostringstream out;
    fn(result, options, out);
    benchmark::DoNotOptimize(out.str().size());
  }
  state.counters["diagnostics"] = static_cast<double>(result.diagnostics.size());
}

void BM_CheckCorpus(benchmark::State& state) {
  EngineOptions options = all_rules();
  options.jobs = static_cast<int>(state.range(0));
  std::int64_t bytes = bytes_of(corpus().yaml) + bytes_of(corpus().python) + bytes_of(corpus().shell);
  for (auto _ : state) benchmark::DoNotOptimize(run_check({std::getenv("PARLINT_BENCH_CORPUS")}, options));
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["files"] = static_cast<double>(corpus().paths.size());
}

}  // namespace

BENCHMARK(BM_RawParse_Shell)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Extract_Shell)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RawParse_Python)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Extract_Python)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RawParse_Yaml)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Extract_Yaml)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResolveAndRules)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Report)->DenseRange(0, 4)->ArgName("text|gcc|json|github|sarif")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CheckCorpus)->Arg(1)->Arg(2)->ArgName("jobs")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace parlint::bench

BENCHMARK_MAIN();
