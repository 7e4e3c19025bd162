// The Python parser on the forms of reference/syntax-in-the-wild.md §7.
#include "parsers/python/python_parser.h"
#include "parsers/args/argparse_flags.h"
#include "parsers/python/python_syntax_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_support.h"

namespace parlint {
namespace {
using testing::find_fact;

ParsedFile py(const std::string& text) {
  SourceText source(text);
  return parse_python("t.py", source);
}

const RawJob* job_named(const ParsedFile& pf, const std::string& name) {
  for (const auto& j : pf.jobs)
    if (j.description == name) return &j;
  return nullptr;
}

std::optional<std::int64_t> int_of(const RawJob& job, Key key) {
  const Fact* f = find_fact(job, key);
  return f ? f->value.as_int() : std::nullopt;
}

TEST(PythonParser, AttributeAssignmentsOnAnyObjectPath) {
  auto pf =
      py("def r():\n    cfg = make()\n    cfg.model.tensor_model_parallel_size = 2\n"
         "    recipe.trainer.strategy.context_parallel_size = 2\n    recipe.trainer.num_nodes = 4\n"
         "    recipe.trainer.devices = 8\n    recipe.data.seq_length = 8192\n    cfg.model.sequence_parallel "
         "= True\n");
  const RawJob* j = job_named(pf, "r()");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(int_of(*j, Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(int_of(*j, Key::kContextParallelSize), 2);
  EXPECT_EQ(int_of(*j, Key::kNodes), 4);
  EXPECT_EQ(int_of(*j, Key::kGpusPerNode), 8);
  EXPECT_EQ(int_of(*j, Key::kSeqLength), 8192);
  const Fact* sp = find_fact(*j, Key::kSequenceParallel);
  EXPECT_EQ(sp->value.as_bool(), true);
  EXPECT_EQ(sp->location.range.start, (SourcePosition{8, 35}));  // at `True`
  EXPECT_EQ(sp->origin, Origin::kPythonAssign);
}

TEST(PythonParser, ConstantsExpressionsTuplesAndAugmentedAssignment) {
  auto pf =
      py("TP = 4\nPP = 8 // TP\n\ndef r():\n    tp, cp = TP * 2, 2\n    cfg.model.tensor_model_parallel_size "
         "= tp\n"
         "    cfg.model.pipeline_model_parallel_size = PP\n    cfg.model.context_parallel_size = cp\n"
         "    cfg.model.context_parallel_size *= 2\n");
  const RawJob* j = job_named(pf, "r()");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(int_of(*j, Key::kTensorModelParallelSize), 8);
  EXPECT_EQ(int_of(*j, Key::kPipelineModelParallelSize), 2);
  EXPECT_EQ(int_of(*j, Key::kContextParallelSize), 4);
  const Fact* pp = find_fact(*j, Key::kPipelineModelParallelSize);
  ASSERT_FALSE(pp->written_at.empty());
  EXPECT_EQ(pp->written_at[0].location.range.start.line, 2);  // PP = 8 // TP
}

TEST(PythonParser, KeywordArgumentsSetattrDictsAndSpread) {
  auto pf =
      py("PAR = {\"tensor_model_parallel_size\": 2, \"pipeline_model_parallel_size\": 2}\n"
         "def r():\n    s = run.Config(nl.MegatronStrategy, context_parallel_size=2, **PAR)\n"
         "    setattr(cfg.model, \"sequence_parallel\", True)\n"
         "    initialize_model_parallel(expert_model_parallel_size=4)\n");
  const RawJob* j = job_named(pf, "r()");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(int_of(*j, Key::kContextParallelSize), 2);
  EXPECT_EQ(find_fact(*j, Key::kSequenceParallel)->value.as_bool(), true);
  EXPECT_EQ(int_of(*j, Key::kExpertModelParallelSize), 4);
  const RawJob* m = job_named(pf, "module");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(int_of(*m, Key::kTensorModelParallelSize), 2);
}

TEST(PythonParser, ReplaceBuildsOnTheBaseObject) {
  auto pf =
      py("BASE = WorkloadBaseConfig(tensor_model_parallel_size=2, pipeline_model_parallel_size=1)\n"
         "FAST = dataclasses.replace(BASE, pipeline_model_parallel_size=4, "
         "virtual_pipeline_model_parallel_size=5)\n");
  const RawJob* base = job_named(pf, "BASE");
  const RawJob* fast = job_named(pf, "FAST");
  ASSERT_NE(base, nullptr);
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(int_of(*base, Key::kPipelineModelParallelSize), 1);
  EXPECT_EQ(int_of(*fast, Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(int_of(*fast, Key::kPipelineModelParallelSize), 4);
  EXPECT_EQ(int_of(*fast, Key::kVirtualPipelineModelParallelSize), 5);
  EXPECT_TRUE(fast->conflicts.empty());
  EXPECT_EQ(job_named(pf, "module"), nullptr);
}

TEST(PythonParser, ParameterDefaultsAreWeakAndFlowIntoTheBody) {
  auto pf =
      py("def pretrain_recipe(num_nodes: int = 1, tensor_parallelism: int = 4, name=None):\n"
         "    return run.Config(nl.MegatronStrategy, tensor_model_parallel_size=tensor_parallelism)\n");
  const RawJob* j = job_named(pf, "pretrain_recipe()");
  ASSERT_NE(j, nullptr);
  const Fact* tp = find_fact(*j, Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->value.as_int(), 4);
  EXPECT_TRUE(tp->weak);
  EXPECT_NE(tp->weak_note.find("tensor_parallelism=4 of pretrain_recipe()"), std::string::npos);
  EXPECT_EQ(tp->location.range.start.line, 2);
  const Fact* nodes = find_fact(*j, Key::kNodes);
  EXPECT_EQ(nodes->value.as_int(), 1);
  EXPECT_EQ(nodes->origin, Origin::kRecipeDefault);
}

// Comments are tree-sitter extras: they sit between a list's items, a call's arguments and a function's
// parameters, and must not count as one (a layout read as [unknown, ...], a positional argument bound to
// the wrong parameter).
TEST(PythonParser, CommentsBetweenItemsArgumentsAndParameters) {
  auto pf =
      py("import os\n"
         "def helper(tp,  # tensor parallel\n           pp=1):\n"
         "    cfg.model.tensor_model_parallel_size = tp\n    cfg.model.pipeline_model_parallel_size = pp\n"
         "def r():\n    helper(4,  # one node\n           2)\n"
         "    cfg.model.pipeline_model_parallel_layout = [  # two stages\n"
         "        [\"embedding\", \"decoder\"],  # first\n        [\"decoder\", \"loss\"],\n    ]\n"
         "    cfg.model.context_parallel_size = (  # long sequences\n        2\n    )\n"
         "    cfg.model.seq_length = 8192 if (  # always\n        True) else 4096\n"
         "    cfg.model.num_layers = int(os.environ.get(\"LAYERS\",  # default\n \"32\"))\n"
         "    cfg.model.hidden_size = int(os.getenv(\"HIDDEN\", default=\"4096\"))\n");
  const RawJob* j = job_named(pf, "r()");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(int_of(*j, Key::kTensorModelParallelSize), 4);
  EXPECT_EQ(int_of(*j, Key::kPipelineModelParallelSize), 2);
  EXPECT_EQ(int_of(*j, Key::kContextParallelSize), 2);
  EXPECT_EQ(int_of(*j, Key::kSeqLength), 8192);
  const Fact* layout = find_fact(*j, Key::kPipelineModelParallelLayout);
  ASSERT_NE(layout, nullptr);
  ASSERT_EQ(layout->value.items().size(), 2u);
  EXPECT_EQ(layout->value.to_string(), R"([["embedding", "decoder"], ["decoder", "loss"]])");
  const Fact* layers = find_fact(*j, Key::kNumLayers);
  ASSERT_NE(layers, nullptr);
  EXPECT_NE(layers->value.unknown_reason().find("32"), std::string::npos) << layers->value.unknown_reason();
  const Fact* hidden = find_fact(*j, Key::kHiddenSize);
  ASSERT_NE(hidden, nullptr);
  EXPECT_NE(hidden->value.unknown_reason().find("(fallback \"4096\")"), std::string::npos)
      << hidden->value.unknown_reason();
}

TEST(PythonParser, UnknownsFromEnvironmentLoopsParametersAndBranches) {
  auto pf = py(
      "import os\nTP = int(os.environ.get(\"TP\", \"4\"))\n"
      "def a(n):\n    s = MegatronStrategy(tensor_model_parallel_size=TP, pipeline_model_parallel_size=n)\n"
      "def b():\n    for tp in (1, 2):\n        cfg.model.tensor_model_parallel_size = tp\n"
      "def c(flag: bool):\n    if flag:\n        cfg.model.tensor_model_parallel_size = 2\n    "
      "else:\n"
      "        cfg.model.tensor_model_parallel_size = 4\n    cfg.model.context_parallel_size = f\"{2}\"\n");
  const RawJob* a = job_named(pf, "a()");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(
      find_fact(*a, Key::kTensorModelParallelSize)->value.unknown_reason().find("environment variable TP"),
      std::string::npos);
  EXPECT_NE(find_fact(*a, Key::kPipelineModelParallelSize)->value.unknown_reason().find("without a default"),
            std::string::npos);
  EXPECT_TRUE(find_fact(*job_named(pf, "b()"), Key::kTensorModelParallelSize)->value.is_unknown());
  const RawJob* c = job_named(pf, "c()");
  EXPECT_NE(find_fact(*c, Key::kTensorModelParallelSize)->value.unknown_reason().find("condition"),
            std::string::npos);
  EXPECT_TRUE(find_fact(*c, Key::kContextParallelSize)->value.is_unknown());
}

// A recipe's defaults choose its branches, as a call without arguments would; the settings made there are
// fallbacks, and the branch that raises never reaches the rest.
TEST(PythonParser, ParameterDefaultsChooseBranchesAsFallbacks) {
  auto pf =
      py("def finetune(num_nodes: int = 1, peft_scheme: Optional[str] = 'LoRA', fast=False):\n"
         "    if peft_scheme is None or peft_scheme.lower() == 'none':\n"
         "        cfg.trainer.strategy.tensor_model_parallel_size = 4\n"
         "        cfg.trainer.strategy.expert_tensor_model_paralel_size = 4\n"
         "    elif peft_scheme.lower() in ['lora', 'dora']:\n"
         "        cfg.trainer.strategy.tensor_model_parallel_size = 8\n"
         "    else:\n        raise ValueError(peft_scheme)\n"
         "    cfg.data.seq_length = 4096 if fast else 2048\n"
         "    if fast:\n        cfg.trainer.strategy.tensor_model_parallel_size = 1\n"
         "def strict(scheme):\n"
         "    if scheme == 'a':\n        cfg.trainer.strategy.tensor_model_parallel_size = 2\n"
         "    else:\n        raise ValueError(scheme)\n");
  const RawJob* f = job_named(pf, "finetune()");
  ASSERT_NE(f, nullptr);
  const Fact* tp = find_fact(*f, Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->value.as_int(), 8);
  EXPECT_EQ(tp->location.range.start.line, 6);
  EXPECT_TRUE(tp->weak);
  EXPECT_NE(tp->weak_note.find("peft_scheme='LoRA'"), std::string::npos);
  const Fact* seq = find_fact(*f, Key::kSeqLength);
  EXPECT_EQ(seq->value.as_int(), 2048);
  EXPECT_TRUE(seq->weak);
  // The misspelling in the branch peft_scheme=None chooses is still reported.
  ASSERT_EQ(f->unrecognized.size(), 1u);
  EXPECT_EQ(f->unrecognized[0].spelling, "trainer.strategy.expert_tensor_model_paralel_size");
  // Only one branch reaches the end: its value holds, and it is not a fallback.
  const Fact* strict_tp = find_fact(*job_named(pf, "strict()"), Key::kTensorModelParallelSize);
  EXPECT_EQ(strict_tp->value.as_int(), 2);
  EXPECT_FALSE(strict_tp->weak);
}

// Bodies of with and try statements run; an override in a branch that may run is not a conflict.
TEST(PythonParser, WithAndTryBodiesAreReadAndBranchOverridesAreNotConflicts) {
  auto pf = py(
      "def f(packing):\n    with ctx():\n        cfg.model.tensor_model_parallel_size = 4\n"
      "    try:\n        cfg.model.pipeline_model_parallel_size = 2\n    except ValueError:\n        pass\n"
      "    cfg.train.micro_batch_size = 1\n    if packing:\n        cfg.train.micro_batch_size = 2\n");
  const RawJob* f = job_named(pf, "f()");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(int_of(*f, Key::kTensorModelParallelSize), 4);
  EXPECT_EQ(int_of(*f, Key::kPipelineModelParallelSize), 2);
  EXPECT_TRUE(find_fact(*f, Key::kMicroBatchSize)->value.is_unknown());
  EXPECT_TRUE(f->conflicts.empty());
}

TEST(PythonParser, BranchesThatAgreeKeepTheValue) {
  auto pf =
      py("def c(flag=False):\n    if flag:\n        cfg.model.tensor_model_parallel_size = 4\n    else:\n"
         "        cfg.model.tensor_model_parallel_size = 4\n");
  EXPECT_EQ(int_of(*job_named(pf, "c()"), Key::kTensorModelParallelSize), 4);
}

TEST(PythonParser, RecipeCallChainsInheritAndArgumentsOverrideDefaults) {
  auto pf =
      py("def base(tensor_parallelism: int = 4):\n"
         "    return Provider(tensor_model_parallel_size=tensor_parallelism, num_layers=32)\n"
         "def big():\n    cfg = base(tensor_parallelism=8)\n    cfg.model.context_parallel_size = 2\n    "
         "return cfg\n");
  const RawJob* big = job_named(pf, "big()");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(int_of(*big, Key::kTensorModelParallelSize), 8);
  EXPECT_FALSE(find_fact(*big, Key::kTensorModelParallelSize)->weak);
  EXPECT_EQ(int_of(*big, Key::kNumLayers), 32);
  EXPECT_EQ(int_of(*big, Key::kContextParallelSize), 2);
}

TEST(PythonParser, RecursionIsBounded) {
  auto pf = py("def a():\n    b()\n    cfg.model.tensor_model_parallel_size = 2\ndef b():\n    a()\n");
  EXPECT_EQ(int_of(*job_named(pf, "a()"), Key::kTensorModelParallelSize), 2);
}

TEST(PythonParser, RecipeNameDeclaresAWorldSize) {
  auto pf = py(
      "def llama3_8b_pretrain_16gpu_h100_bf16_16k_config():\n    cfg.model.tensor_model_parallel_size = 4\n");
  const Fact* w =
      find_fact(*job_named(pf, "llama3_8b_pretrain_16gpu_h100_bf16_16k_config()"), Key::kWorldSize);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->value.as_int(), 16);
  EXPECT_EQ(w->origin, Origin::kRecipeName);
}

TEST(PythonParser, LookalikeKeywordsAreRecorded) {
  auto pf = py("s = MegatronStrategy(expert_tensor_model_parallel_size=1, tensor_model_parallel_size=2)\n");
  ASSERT_EQ(pf.jobs.size(), 1u);
  ASSERT_EQ(pf.jobs[0].unrecognized.size(), 1u);
  EXPECT_EQ(pf.jobs[0].unrecognized[0].spelling, "expert_tensor_model_parallel_size");
}

TEST(PythonParser, SyntaxErrorsAndTheRest) {
  auto pf = py("def r(:\n    pass\ncfg.model.tensor_model_parallel_size = 2\n");
  EXPECT_FALSE(pf.errors.empty());
  std::string deep = "x = " + std::string(50000, '(') + "1" + std::string(50000, ')') + "\n";
  auto pf2 = py(deep);
  EXPECT_TRUE(pf2.jobs.empty());  // valid Python that sets nothing: read to the end without a job
}

// Found by fuzz_python: a parameter default that calls its own function (directly or round a cycle)
// recursed until the stack overflowed. Defaults now count towards the call depth and stack.
TEST(PythonParser, RecursiveParameterDefaultsAreBounded) {
  const char* src =
      "def a(x=b()):\n    return 1\n\ndef b(y=a()):\n    return 2\n\ndef c(z=c(), tp=8):\n"
      "    cfg.model.tensor_model_parallel_size = tp\n    return cfg\n";
  SourceText text(src);
  ParsedFile parsed = parse_python("rec.py", text);
  EXPECT_TRUE(parsed.errors.empty());
  namespace fs = std::filesystem;
  for (const auto& e :
       fs::directory_iterator(fs::path(PARLINT_SOURCE_DIR) / "tests/fuzz/regressions/python")) {
    std::ifstream in(e.path(), std::ios::binary);
    SourceText t(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    (void)parse_python(e.path().string() + ".py", t);
  }
}

}  // namespace
}  // namespace parlint

// The options a script's own argparse defines, as its launches may pass them (PL801's scope).
TEST(ArgparseFlags, OptionStringsOfEachCall) {
  std::string_view src = R"py(
def extra(parser):
    g = parser.add_argument_group("x")
    g.add_argument("--retriever-parallel-size", type=int)
    g.add_argument(
        '--target-tp', "-t",
        type=int)
    parser.add_argument("positional")
    parser.add_argument(NAME, type=int)
    g.add_argument("--retriever-parallel-size")
)py";
  EXPECT_EQ(parlint::argparse_flags_defined(src),
            (std::vector<std::string>{"--retriever-parallel-size", "--target-tp", "-t"}));
  EXPECT_TRUE(parlint::argparse_flags_defined("add_argument(").empty());
  EXPECT_TRUE(parlint::argparse_flags_defined("add_argument('--unclosed").empty());
}

// A Megatron arguments.py refuses to start without the variable only where an assert or raise names it.
TEST(ArgparseFlags, RefusesWithoutVariable) {
  EXPECT_TRUE(parlint::refuses_without_variable(
      "if tp > 1:\n    assert os.environ.get('CUDA_DEVICE_MAX_CONNECTIONS') == \"1\", \\\n        \"msg\"\n",
      "CUDA_DEVICE_MAX_CONNECTIONS"));
  EXPECT_TRUE(
      parlint::refuses_without_variable("    raise RuntimeError(\n        \"Using sequence parallelism "
                                        "requires setting the environment variable \"\n"
                                        "        \"CUDA_DEVICE_MAX_CONNECTIONS to 1\")\n",
                                        "CUDA_DEVICE_MAX_CONNECTIONS"));
  EXPECT_FALSE(parlint::refuses_without_variable(
      "# relies on CUDA_DEVICE_MAX_CONNECTIONS=1\nwarnings.warn('set CUDA_DEVICE_MAX_CONNECTIONS')\n",
      "CUDA_DEVICE_MAX_CONNECTIONS"));
}

namespace parlint {
namespace {

// CPython's tokenizer errors are definite; the grammar's other errors are lines it cannot read.
TEST(PythonSyntaxCheck, DefiniteErrorsOnly) {
  auto error = [](std::string_view text) { return find_python_syntax_error(text); };
  ASSERT_TRUE(error("x = (1,\ny = 2\n"));
  EXPECT_EQ(error("x = (1,\ny = 2\n")->message, "'(' was never closed");
  EXPECT_EQ(error("x = [1)\n")->message, "closing parenthesis ')' does not match opening parenthesis '['");
  EXPECT_EQ(error("x = 1)\n")->offset, 5u);
  EXPECT_EQ(error("s = 'abc\n")->message, "unterminated string literal");
  EXPECT_EQ(error("s = \"\"\"abc\n")->message, "unterminated triple-quoted string literal");
  EXPECT_EQ(error("def f():\n        x = 1\n    y = 2\n")->message,
            "unindent does not match any outer indentation level");
  // Valid Python the grammar may not read: no verdict.
  for (std::string_view ok :
       {"def f(n):\n    return None, *(None,) * n\n", "x = f\"{d[\"k\"]}\" + rb'\\'' + '''a\nb'''\n",
        "x = (1,  # ( in a comment\n     2)\ny = \\\n  3\n", "s = f'{x!r:>{width}}' f\"{{literal}}\"\n",
        "if a:\n\tx = 1\n        y = 2\n", "type Point = tuple[float, float]\n",
        // A bracket closed at the start of a continuation line: the rest of it is no new line's indent.
        "def f():\n    if a:\n        with f(\n            b\n        ), g():\n            x = 1\n    else:\n"
        "        y = 2\n"})
    EXPECT_FALSE(error(ok)) << ok;
}

TEST(PythonParser, ValidPythonTheGrammarMissesIsAnUnreadRegionNotASyntaxError) {
  auto pf = py("def f(n):\n    return None, *(None,) * n\n\ncfg.model.tensor_model_parallel_size = 2\n");
  EXPECT_TRUE(pf.errors.empty());
  ASSERT_FALSE(pf.unread.empty());
  EXPECT_EQ(pf.unread.front().range.start.line, 2);
  auto broken = py("cfg.model.tensor_model_parallel_size = (2\n");
  ASSERT_EQ(broken.errors.size(), 1u);
  EXPECT_NE(broken.errors.front().message.find("'(' was never closed"), std::string::npos);
}

}  // namespace
}  // namespace parlint

namespace parlint {
namespace {

// A function the module runs, reading only what the module set, is one job, not two.
TEST(PythonParser, AFunctionThatCopiesTheModuleJobIsOneJob) {
  auto pf =
      py("import nemo_run as run\n"
         "from nemo.collections.llm.recipes import llama3_70b\n"
         "def one_node_70b():\n"
         "    recipe = llama3_70b.pretrain_recipe(num_nodes=1, num_gpus_per_node=8)\n"
         "    recipe.trainer.strategy.tensor_model_parallel_size = 16\n"
         "    return recipe\n"
         "if __name__ == '__main__':\n"
         "    run.run(one_node_70b(), executor=run.LocalExecutor())\n");
  ASSERT_EQ(pf.jobs.size(), 1u);
  EXPECT_EQ(pf.jobs.front().function, "one_node_70b");
  // Two recipes that write alike at their own lines stay two jobs.
  auto two = py(
      "def a():\n    cfg = ConfigContainer()\n    cfg.model.tensor_model_parallel_size = 2\n    return cfg\n"
      "def b():\n    cfg = ConfigContainer()\n    cfg.model.tensor_model_parallel_size = 2\n    return "
      "cfg\n");
  EXPECT_EQ(two.jobs.size(), 2u);
}

}  // namespace
}  // namespace parlint
