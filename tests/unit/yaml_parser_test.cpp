#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_support.h"

namespace parlint {
namespace {
using testing::find_fact;
using testing::parse;

TEST(YamlParser, NestedKeysWithValuePositions) {
  auto pf = parse("trainer:\n  devices: 8\n  num_nodes: 4\nmodel:\n  tensor_model_parallel_size: 16  # c\n");
  ASSERT_EQ(pf.jobs.size(), 1u);
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(job.framework, Framework::kNemo1);
  const Fact* tp = find_fact(job, Key::kTensorModelParallelSize);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value.as_int(), 16);
  EXPECT_EQ(tp->spelling, "model.tensor_model_parallel_size");
  EXPECT_EQ(tp->location.range.start, (SourcePosition{5, 31}));
  EXPECT_EQ(tp->location.range.end, (SourcePosition{5, 33}));  // excludes the comment
  EXPECT_EQ(find_fact(job, Key::kGpusPerNode)->value.as_int(), 8);
  EXPECT_EQ(find_fact(job, Key::kNodes)->value.as_int(), 4);
  EXPECT_EQ(find_fact(job, Key::kNodes)->location.range.start, (SourcePosition{3, 14}));
}

TEST(YamlParser, FlowMappingsAndUtf8Columns) {
  auto pf = parse("model: {näme: \"ü\", tensor_model_parallel_size: 1, sequence_parallel: True}\n");
  const Fact* sp = find_fact(pf.jobs[0], Key::kSequenceParallel);
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(sp->value.as_bool(), true);
  // Columns count code points: "ä" and "ü" are one column each.
  EXPECT_EQ(sp->location.range.start, (SourcePosition{1, 70}));
  EXPECT_EQ(sp->location.range.end, (SourcePosition{1, 74}));
}

TEST(YamlParser, DottedKeys) {
  auto pf = parse("trainer.strategy.tensor_model_parallel_size: 4\ntrainer.num_nodes: 2\n");
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->value.as_int(), 4);
  EXPECT_EQ(find_fact(job, Key::kNodes)->value.as_int(), 2);
  EXPECT_EQ(job.framework, Framework::kNemo2);
}

TEST(YamlParser, MegatronFlagsAsKeys) {
  auto pf = parse(
      "MODEL_ARGS:\n  --tensor-model-parallel-size: 2\n  --sequence-parallel: true\n  --num-experts: 8\n"
      "  --disable-bias-linear: true\n  --seq-length: 4096\nENV_VARS:\n  CUDA_DEVICE_MAX_CONNECTIONS: 1\n");
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(job.framework, Framework::kMegatronLM);
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->origin, Origin::kMegatronFlag);
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->value.as_int(), 2);
  EXPECT_EQ(find_fact(job, Key::kSequenceParallel)->value.as_bool(), true);
  EXPECT_EQ(find_fact(job, Key::kNumMoeExperts)->value.as_int(), 8);
  EXPECT_EQ(find_fact(job, Key::kAddBiasLinear)->value.as_bool(), false);  // --disable-bias-linear inverts
  EXPECT_EQ(find_fact(job, Key::kSeqLength)->value.as_int(), 4096);
  EXPECT_EQ(find_fact(job, Key::kCudaDeviceMaxConnections)->value.as_int(), 1);
}

TEST(YamlParser, NemoLauncherPackageAndInterpolation) {
  auto pf = parse(
      "trainer:\n  num_nodes: 2\n  devices: 8\nmodel:\n  encoder_seq_length: 4096\n"
      "  tensor_model_parallel_size: 2\n  pipeline_model_parallel_size: 4\n"
      "  data:\n    seq_length: ${training.model.encoder_seq_length}\n"
      "exp_manager:\n  mp: ${multiply:${training.model.tensor_model_parallel_size}, "
      "${training.model.pipeline_model_parallel_size}}\n");
  const RawJob& job = pf.jobs[0];
  const Fact* seq = find_fact(job, Key::kSeqLength);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->value.as_int(), 4096);
  EXPECT_EQ(seq->spelling, "model.encoder_seq_length");  // priority 1 beats model.data.seq_length
  EXPECT_TRUE(job.conflicts.empty());
}

TEST(YamlParser, InterpolatedValueCarriesWhereItWasWritten) {
  auto pf = parse("tp: 8\nmodel:\n  tensor_model_parallel_size: ${tp}\n");
  const Fact* tp = find_fact(pf.jobs[0], Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->value.as_int(), 8);
  EXPECT_EQ(tp->location.range.start.line, 3);
  ASSERT_EQ(tp->written_at.size(), 1u);
  EXPECT_EQ(tp->written_at[0].location.range.start, (SourcePosition{1, 5}));
}

TEST(YamlParser, RelativeInterpolation) {
  auto pf = parse(
      "model:\n  cp: 2\n  context_parallel_size: ${.cp}\n  sub:\n    x: 1\n"
      "  hidden_size: ${.sub.x}\nother:\n  v: 3\nmodel2:\n  a: 1\n");
  EXPECT_EQ(find_fact(pf.jobs[0], Key::kContextParallelSize)->value.as_int(), 2);
  EXPECT_EQ(find_fact(pf.jobs[0], Key::kHiddenSize)->value.as_int(), 1);
  auto pf2 = parse("model:\n  inner:\n    k: ${..tp}\n  tp: 4\n  tensor_model_parallel_size: ${.inner.k}\n");
  EXPECT_EQ(find_fact(pf2.jobs[0], Key::kTensorModelParallelSize)->value.as_int(), 4);
}

TEST(YamlParser, ResolversAndUnknowns) {
  auto pf = parse(
      "a: 4\nb: 2\nmodel:\n  num_layers: ${multiply:${a},${b}}\n  hidden_size: ${divide_ceil:${a},3}\n"
      "  tensor_model_parallel_size: ${oc.env:TP}\n  pipeline_model_parallel_size: ${PP_SIZE}\n"
      "  context_parallel_size: ${model.missing}\n  expert_model_parallel_size: ${now:%Y}\n");
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(find_fact(job, Key::kNumLayers)->value.as_int(), 8);
  EXPECT_EQ(find_fact(job, Key::kHiddenSize)->value.as_int(), 2);
  const Fact* tp = find_fact(job, Key::kTensorModelParallelSize);
  EXPECT_TRUE(tp->value.is_unknown());
  EXPECT_NE(tp->value.unknown_reason().find("environment variable TP"), std::string::npos);
  EXPECT_NE(find_fact(job, Key::kPipelineModelParallelSize)->value.unknown_reason().find("outside this file"),
            std::string::npos);
  EXPECT_TRUE(find_fact(job, Key::kContextParallelSize)->value.is_unknown());
  EXPECT_TRUE(find_fact(job, Key::kExpertModelParallelSize)->value.is_unknown());
}

// An environment variable's default is the value when the variable is unset: a fallback, said so.
TEST(YamlParser, EnvironmentDefaultsAreWeakValues) {
  auto pf = parse(
      "model:\n  tensor_model_parallel_size: ${oc.env:TP,8}\n  pipeline_model_parallel_size: ${env:PP, 2}\n"
      "  context_parallel_size: ${PRIMUS_CP:4}\n  expert_model_parallel_size: ${oc.env:EP,null}\n"
      "  num_layers: ${oc.env:LAYERS,${model.base_layers}}\n  base_layers: 30\n");
  const RawJob& job = pf.jobs[0];
  const Fact* tp = find_fact(job, Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->value.as_int(), 8);
  EXPECT_TRUE(tp->weak);
  EXPECT_NE(tp->weak_note.find("unless the environment sets TP"), std::string::npos);
  EXPECT_EQ(find_fact(job, Key::kPipelineModelParallelSize)->value.as_int(), 2);
  EXPECT_EQ(find_fact(job, Key::kContextParallelSize)->value.as_int(), 4);
  EXPECT_TRUE(find_fact(job, Key::kContextParallelSize)->weak);
  EXPECT_TRUE(find_fact(job, Key::kExpertModelParallelSize)->value.is_unknown());  // null default
  EXPECT_EQ(find_fact(job, Key::kNumLayers)->value.as_int(), 30);
}

// The launch's environment (an environment file's exports) sets what ${oc.env:X} reads, through
// oc.decode and the arithmetic resolvers, and locates the value where the variable is exported.
TEST(YamlParser, EnvironmentFromAnEnvironmentFile) {
  std::vector<ExportedVariable> env = {
      {"TP", "8", "", Location{"config_a.sh", {{3, 11}, {3, 12}}}},
      {"NODES", "4", "", Location{"config_a.sh", {{4, 14}, {4, 15}}}},
      {"MINIBS", "2", "", Location{"config_a.sh", {{5, 15}, {5, 16}}}},
      {"PP", "", "the output of a command", Location{"config_a.sh", {{6, 11}, {6, 15}}}}};
  SourceText text(
      "trainer:\n  num_nodes: ${oc.decode:${oc.env:NODES,1}}\n  devices: 8\nmodel:\n"
      "  tensor_model_parallel_size: ${oc.decode:${oc.env:TP}}\n  pipeline_model_parallel_size: "
      "${oc.env:PP,2}\n"
      "  global_batch_size: ${multiply:${oc.env:MINIBS},${floor_div:${trainer.num_nodes},2}}\n"
      "  cp_comm_type: ${oc.env:CP_COMM,'a2a'}\n");
  ParsedFile pf = parse_yaml("conf/custom.yaml", text, framework_documents(), nullptr, &env);
  const RawJob& job = pf.jobs[0];
  const Fact* tp = find_fact(job, Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->value.as_int(), 8);
  EXPECT_FALSE(tp->weak);
  EXPECT_EQ(tp->location.path, "config_a.sh");
  EXPECT_EQ(tp->location.range.start, (SourcePosition{3, 11}));
  EXPECT_EQ(find_fact(job, Key::kNodes)->value.as_int(), 4);
  EXPECT_EQ(find_fact(job, Key::kGlobalBatchSize)->value.as_int(), 4);               // 2 x (4 // 2)
  EXPECT_TRUE(find_fact(job, Key::kPipelineModelParallelSize)->value.is_unknown());  // exported, not known
  EXPECT_EQ(find_fact(job, Key::kCpCommType)->value.text(), "a2a");  // a quoted default is its text
}

TEST(YamlParser, CyclicInterpolationIsUnknownNotAHang) {
  auto pf = parse(
      "a: ${b}\nb: ${a}\nmodel:\n  tensor_model_parallel_size: ${a}\n  num_layers: ${model.num_layers}\n");
  EXPECT_TRUE(find_fact(pf.jobs[0], Key::kTensorModelParallelSize)->value.is_unknown());
  EXPECT_NE(find_fact(pf.jobs[0], Key::kNumLayers)->value.unknown_reason().find("cyclic"), std::string::npos);
}

TEST(YamlParser, AnchorsAndMergeKeys) {
  auto pf = parse(
      "BASE: &base\n  --tensor-model-parallel-size: 2\n  --num-layers: 24\n"
      "MODEL_ARGS:\n  <<: *base\n  --tensor-model-parallel-size: 4\n");
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(find_fact(job, Key::kNumLayers)->value.as_int(), 24);
  // The mapping's own key overrides the merged one, and that is not a conflict.
  const Fact* tp = find_fact(job, Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->value.as_int(), 4);
  EXPECT_EQ(tp->location.range.start.line, 6);
  EXPECT_TRUE(job.conflicts.empty());
}

TEST(YamlParser, DuplicateKeysAreConflictsAndTheLastWins) {
  auto pf = parse("model:\n  tensor_model_parallel_size: 2\n  tensor_model_parallel_size: 4\n");
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->value.as_int(), 4);
  ASSERT_EQ(job.conflicts.size(), 1u);
  EXPECT_EQ(job.conflicts[0].winner.value.as_int(), 4);
  EXPECT_EQ(job.conflicts[0].loser.value.as_int(), 2);
  EXPECT_EQ(job.conflicts[0].loser.location.range.start.line, 2);
}

TEST(YamlParser, BridgeDatasetSeqLengthWinsOverModel) {
  auto pf = parse(
      "model:\n  seq_length: 4096\n  tensor_model_parallel_size: 1\ndataset:\n  seq_length: 8192\n"
      "train:\n  global_batch_size: 8\n");
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(job.framework, Framework::kMegatronBridge);
  EXPECT_TRUE(job.conflicts.empty());
  std::vector<Fact> facts(job.facts);
  Job resolved("t.yaml", job, {});
  EXPECT_EQ(resolved.get_int(Key::kSeqLength), 8192);
  EXPECT_EQ(resolved.get_int(Key::kGlobalBatchSize), 8);
}

TEST(YamlParser, SeveralDocumentsAreSeveralJobs) {
  auto pf = parse("model:\n  tensor_model_parallel_size: 2\n---\nmodel:\n  tensor_model_parallel_size: 8\n");
  ASSERT_EQ(pf.jobs.size(), 2u);
  EXPECT_EQ(find_fact(pf.jobs[1], Key::kTensorModelParallelSize)->value.as_int(), 8);
  EXPECT_EQ(find_fact(pf.jobs[1], Key::kTensorModelParallelSize)->location.range.start.line, 5);
}

TEST(YamlParser, NullAndSentinelValues) {
  auto pf = parse(
      "model:\n  virtual_pipeline_model_parallel_size: null\n  tensor_model_parallel_size: auto\n"
      "  hierarchical_context_parallel_sizes: [2, 4]\n");
  const RawJob& job = pf.jobs[0];
  EXPECT_EQ(find_fact(job, Key::kVirtualPipelineModelParallelSize)->value.kind(), Value::Kind::kNull);
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->value.kind(), Value::Kind::kString);
  const Fact* hcp = find_fact(job, Key::kHierarchicalContextParallelSizes);
  ASSERT_EQ(hcp->value.items().size(), 2u);
  EXPECT_EQ(hcp->value.items()[1].as_int(), 4);
  Job resolved("t.yaml", job, {});
  EXPECT_EQ(resolved.fact(Key::kVirtualPipelineModelParallelSize), nullptr);  // null = framework default
}

TEST(YamlParser, UnrelatedSectionsAreIgnored) {
  auto pf = parse(
      "exp_manager:\n  checkpoint_callback_params:\n    tensor_model_parallel_size: 8\n"
      "logger:\n  num_layers: 3\n");
  ASSERT_EQ(pf.jobs.size(), 1u);
  EXPECT_TRUE(pf.jobs[0].facts.empty());
}

TEST(YamlParser, SyntaxErrorAtTheRightLine) {
  auto pf =
      parse("model:\n  tensor_model_parallel_size: 2\n   pipeline_model_parallel_size: 2\n  x: [1, 2\n");
  ASSERT_EQ(pf.errors.size(), 1u);
  EXPECT_GE(pf.errors[0].range.start.line, 2);
  EXPECT_LE(pf.errors[0].range.start.line, 4);
  EXPECT_NE(pf.errors[0].message.find("invalid YAML"), std::string::npos);
}

TEST(YamlParser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "a: " + std::string(100000, '[') + "\n";
  auto pf = parse(deep);
  ASSERT_EQ(pf.errors.size(), 1u);
  EXPECT_NE(pf.errors[0].message.find("deeper"), std::string::npos);
  std::string deep_map;
  for (int i = 0; i < 5000; ++i) deep_map += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  auto pf2 = parse(deep_map);
  EXPECT_EQ(pf2.errors.size(), 1u);
}

TEST(YamlParser, AliasBombIsBoundedByWork) {
  std::string text = "a0: &a0 {x: 1, y: 2, z: 3, w: 4, v: 5, u: 6, t: 7, s: 8, r: 9, q: 10}\n";
  for (int i = 1; i < 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {";
    for (int j = 0; j < 10; ++j)
      text += (j ? ", k" : "k") + std::to_string(j) + ": *a" + std::to_string(i - 1);
    text += "}\n";
  }
  auto pf = parse(text);
  // Valid YAML that parlint does not expand: unread (PL903) over the document, not a syntax error.
  EXPECT_TRUE(pf.errors.empty());
  ASSERT_EQ(pf.unread.size(), 1u);
  EXPECT_NE(pf.unread[0].reason.find("aliases expand"), std::string::npos);
  EXPECT_TRUE(pf.unread[0].nothing_read);
  EXPECT_EQ(pf.unread[0].range.start.line, 1);
  EXPECT_EQ(pf.unread[0].range.end.line, 9);
}

TEST(YamlParser, AnOverlongDocumentSaysItIsLongNotAnAliasBomb) {
  // 250,000 values and no anchor: unread because it is long (issue 45 found "aliases expand" said of a
  // file without one), a warning since nothing of it was read; an `&` inside a word is no anchor.
  std::string text = "model:\n  note: R&D\n";
  for (int i = 0; i < 250'000; ++i) text += "  key_" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  auto pf = parse(text);
  EXPECT_TRUE(pf.errors.empty());
  ASSERT_EQ(pf.unread.size(), 1u);
  EXPECT_NE(pf.unread[0].reason.find("holds more than 200,000 values"), std::string::npos)
      << pf.unread[0].reason;
  EXPECT_TRUE(pf.unread[0].nothing_read);
}

TEST(YamlParser, LaterDocumentsKeepFilePositions) {
  // Each document is loaded alone; its marks are shifted back to lines of the file.
  auto pf = parse("a: 1\n---\nmodel:\n  tensor_model_parallel_size: 4\n---\nb: 2\n");
  ASSERT_EQ(pf.jobs.size(), 3u);
  const Fact* tp = nullptr;
  for (const auto& f : pf.jobs[1].facts)
    if (f.key == Key::kTensorModelParallelSize) tp = &f;
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->location.range.start.line, 4);
  EXPECT_EQ(tp->location.range.start.column, 31);
  EXPECT_EQ(pf.jobs[2].range.start.line, 6);
  auto broken = parse("a: 1\n---\nb: 2\n---\nc: [1,\n");
  ASSERT_EQ(broken.errors.size(), 1u);
  EXPECT_GE(broken.errors[0].range.start.line, 5);
}

TEST(YamlParser, EmptyAndCommentOnlyFiles) {
  EXPECT_TRUE(parse("").jobs.empty());
  EXPECT_TRUE(parse("# nothing\n").jobs.empty());
  EXPECT_TRUE(parse("").errors.empty());
}

}  // namespace
}  // namespace parlint

namespace parlint {

// Found by fuzz_yaml: yaml-cpp's LoadAll spun for minutes on this 623-byte stream. Documents are now split
// and loaded one by one; every file under tests/fuzz/regressions/yaml/ must parse at once.
TEST(YamlParser, FuzzRegressionsParseWithoutSpinning) {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(PARLINT_SOURCE_DIR) / "tests/fuzz/regressions/yaml")) {
    std::ifstream in(e.path(), std::ios::binary);
    SourceText text(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    ParsedFile parsed = parse_yaml(e.path().string(), text, framework_documents());
    EXPECT_LE(parsed.jobs.size(), 256u);
    ++n;
  }
  EXPECT_GE(n, 1);
}

TEST(YamlParser, ManyDocumentsAreBounded) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "---\nmodel: {tensor_model_parallel_size: 2}\n";
  ParsedFile parsed = parse_yaml("many.yaml", SourceText(text), framework_documents());
  EXPECT_EQ(parsed.jobs.size(), 256u);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_NE(parsed.errors[0].message.find("more than 256 YAML documents"), std::string::npos);
}

}  // namespace parlint

namespace parlint {
namespace {
using testing::find_fact;
using testing::parse;

TEST(YamlParser, SeveralFlagSectionsAreSeveralRunsAndTheirBaseIsNone) {
  auto pf = parse(
      "BASE: &base\n  --num-layers: 24\n  --sequence-parallel: true\n"
      "MODEL_ARGS:\n  <<: *base\n  --tensor-model-parallel-size: 1\n"
      "MODEL_ARGS_2:\n  <<: *base\n  --tensor-model-parallel-size: 2\n"
      "ENV_VARS:\n  CUDA_DEVICE_MAX_CONNECTIONS: 1\n");
  ASSERT_EQ(pf.jobs.size(), 2u);  // one per run, not one for BASE
  EXPECT_EQ(find_fact(pf.jobs[0], Key::kTensorModelParallelSize)->value.as_int(), 1);
  EXPECT_EQ(find_fact(pf.jobs[1], Key::kTensorModelParallelSize)->value.as_int(), 2);
  for (const auto& job : pf.jobs) {
    EXPECT_TRUE(job.conflicts.empty());  // different runs, not one key set twice
    EXPECT_EQ(find_fact(job, Key::kNumLayers)->value.as_int(), 24);
    EXPECT_NE(find_fact(job, Key::kCudaDeviceMaxConnections), nullptr);
  }
}

}  // namespace
}  // namespace parlint
