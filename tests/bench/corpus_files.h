#pragma once
// The benchmark corpus (tests/bench/gen_corpus.py) read into memory, by kind.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace parlint::bench {

struct CorpusFile {
  std::string path;
  std::string text;
};

struct Corpus {
  std::vector<CorpusFile> yaml, python, shell;
  std::vector<std::string> paths;  // every file, for whole-run benchmarks
};

inline Corpus load_corpus(const std::string& dir) {
  Corpus c;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    CorpusFile f{e.path().string(), std::string(std::istreambuf_iterator<char>(in), {})};
    std::string ext = e.path().extension().string();
    c.paths.push_back(f.path);
    if (ext == ".yaml")
      c.yaml.push_back(std::move(f));
    else if (ext == ".py")
      c.python.push_back(std::move(f));
    else
      c.shell.push_back(std::move(f));
  }
  return c;
}

}  // namespace parlint::bench
