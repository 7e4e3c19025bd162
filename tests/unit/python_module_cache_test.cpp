// PythonModuleCache: a module kept once is handed to every file of the run as the same text and tree, alike
// to a fresh parse, on any thread; and parse_python reads a file the same with it or not.
#include "parsers/python/python_module_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "parsers/python/python_parser.h"
#include "parsers/tree_sitter/tree_sitter_children.h"
#include "parsers/tree_sitter/tree_sitter_languages.h"

namespace parlint {
namespace {

namespace fs = std::filesystem;

SharedTsTree parse(std::string_view text) {
  return TsTree(ts_parser_parse_string(thread_python_parser(), nullptr, text.data(),
                                       static_cast<std::uint32_t>(text.size())));
}

// Kind and extent of every node, in document order.
void nodes_of(TSNode n, std::vector<std::string>& out) {
  out.push_back(std::string(ts_node_type(n)) + "@" + std::to_string(ts_node_start_byte(n)) + "-" +
                std::to_string(ts_node_end_byte(n)));
  for (TSNode c : Children(n)) nodes_of(c, out);
}

std::vector<std::string> nodes_of(const TSTree* tree) {
  std::vector<std::string> out;
  nodes_of(ts_tree_root_node(tree), out);
  return out;
}

const std::string kModule =
    "def base_recipe(tp=2):\n    cfg = ConfigContainer()\n"
    "    cfg.model.tensor_model_parallel_size = tp\n    return cfg\n\nSEQ = 4096\n";

PythonModuleCache::Module module_of(const std::string& text, std::uint64_t units) {
  auto source = std::make_shared<const SourceText>(text);
  return {source, parse(source->text()), units};
}

TEST(PythonModuleCache, HandsOutTheKeptTextAndTree) {
  PythonModuleCache cache;
  EXPECT_FALSE(cache.find("base.py"));
  PythonModuleCache::Module module = module_of(kModule, 7);
  cache.keep("base.py", module);
  auto a = cache.find("base.py");
  auto b = cache.find("base.py");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->source, module.source);  // one text and one tree for the run
  EXPECT_EQ(a->tree, b->tree);
  EXPECT_EQ(a->units, 7u);
  EXPECT_EQ(nodes_of(a->tree.get()), nodes_of(parse(kModule).get()));
  EXPECT_FALSE(cache.find("other.py"));
}

TEST(PythonModuleCache, TheFirstKeptWinsAndOutlivesTheCache) {
  std::optional<PythonModuleCache::Module> kept;
  {
    PythonModuleCache cache;
    cache.keep("base.py", module_of(kModule, 7));
    cache.keep("base.py", module_of("x = 1\n", 9));
    EXPECT_EQ(cache.size(), 1u);
    kept = cache.find("base.py");
  }
  ASSERT_TRUE(kept);  // its holders keep it: the last one deletes the tree
  EXPECT_EQ(kept->units, 7u);
  EXPECT_EQ(kept->source->text(), kModule);
  EXPECT_EQ(nodes_of(kept->tree.get()), nodes_of(parse(kModule).get()));
}

TEST(PythonModuleCache, KeepsNoMoreTextThanItsBound) {
  PythonModuleCache cache;
  // 17 MiB of text (its tree does not matter to the bound): left for each file to parse itself.
  cache.keep("huge.py",
             {std::make_shared<const SourceText>(std::string(17u << 20, '#')), parse("x = 1\n"), 0});
  EXPECT_FALSE(cache.find("huge.py"));
  EXPECT_EQ(cache.size(), 0u);
}

// Threads take the kept tree and walk it at once, while the thread that parsed it still does
// (a ThreadSanitizer build reports any write among them).
TEST(PythonModuleCache, ThreadsReadOneTree) {
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += kModule + "def f" + std::to_string(i) + "():\n    return base_recipe()\n";
  const std::vector<std::string> expected = nodes_of(parse(text).get());
  std::vector<std::vector<std::string>> seen(4);
  {
    PythonModuleCache cache;
    PythonModuleCache::Module parsed = module_of(text, 0);
    cache.keep("big.py", parsed);
    std::vector<std::jthread> threads;
    for (auto& out : seen)
      threads.emplace_back([&cache, &out] {
        for (int round = 0; round < 5; ++round) out = nodes_of(cache.find("big.py")->tree.get());
      });
    EXPECT_EQ(nodes_of(parsed.tree.get()), expected);
  }
  for (const auto& s : seen) EXPECT_EQ(s, expected);
}

// Two recipes import one module: the second takes it from the cache, and each reads as it does alone.
TEST(PythonModuleCache, ImportersReadTheSameWithTheCache) {
  fs::path dir = fs::temp_directory_path() / ("parlint_module_cache_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  write("base.py", kModule);
  std::string a = write("a.py",
                        "from .base import base_recipe\n\ndef a_config():\n    cfg = base_recipe(tp=4)\n"
                        "    cfg.model.pipeline_model_parallel_size = 2\n    return cfg\n");
  std::string b = write("b.py",
                        "from .base import base_recipe\n\ndef b_config():\n    cfg = base_recipe()\n"
                        "    cfg.model.context_parallel_size = 2\n    return cfg\n");
  auto lint = [](const std::string& path, PythonModuleCache* cache) {
    std::ifstream in(path);
    SourceText text(std::string(std::istreambuf_iterator<char>(in), {}));
    ParsedFile parsed = parse_python(path, text, FileReader::disk(), nullptr, cache);
    std::string out;
    for (const RawJob& job : parsed.jobs)
      for (const Fact& f : job.facts)
        out += job.description + " " + std::string(key_name(f.key)) + "=" + f.value.to_string() + " at " +
               f.location.path + ":" + std::to_string(f.location.range.start.line) + "\n";
    return out;
  };
  std::string alone_a = lint(a, nullptr), alone_b = lint(b, nullptr);
  EXPECT_NE(alone_a.find("tensor_model_parallel_size=4"), std::string::npos) << alone_a;
  PythonModuleCache cache;
  EXPECT_EQ(lint(a, &cache), alone_a);
  EXPECT_EQ(cache.size(), 1u);  // base.py, parsed for a.py
  EXPECT_EQ(lint(b, &cache), alone_b);
  EXPECT_EQ(cache.size(), 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace parlint
