// The parse-only floor for whole-process comparisons: reads the same files parlint would (folders walked
// for .yaml/.yml, .py, .sh/.sbatch/.slurm) and parses each with tree-sitter or yaml-cpp, nothing more.
// parlint check cannot be faster than this on one thread.
#include <tree_sitter/api.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "parsers/tree_sitter/tree_sitter_languages.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::recursive_directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  TSParser* bash = ts_parser_new();
  TSParser* python = ts_parser_new();
  ts_parser_set_language(bash, parlint::bash_language());
  ts_parser_set_language(python, parlint::python_language());
  std::size_t bytes = 0, nodes = 0;
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes += text.size();
    std::string ext = p.extension().string();
    if (ext == ".yaml" || ext == ".yml") {
      try {
        nodes += YAML::LoadAll(text).size();
      } catch (const YAML::Exception&) {
      }
      continue;
    }
    TSParser* parser = ext == ".py" ? python : bash;
    TSTree* tree =
        ts_parser_parse_string(parser, nullptr, text.data(), static_cast<std::uint32_t>(text.size()));
    nodes += ts_node_child_count(ts_tree_root_node(tree));
    ts_tree_delete(tree);
  }
  ts_parser_delete(bash);
  ts_parser_delete(python);
  std::printf("%zu files, %zu bytes, %zu top-level nodes\n", files.size(), bytes, nodes);
  return 0;
}
