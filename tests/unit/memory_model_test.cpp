// The memory model against worked examples of Megatron-LM's theoretical formulas.
#include "lint/resolve/memory_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "parsers/args/training_args.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/shell/shell_parser.h"
#include "test_support.h"

namespace parlint {
namespace {

std::optional<MemoryEstimate> estimate(const std::string& yaml) {
  auto pf = testing::parse(yaml);
  Job job("t.yaml", pf.jobs.at(0), {});
  return estimate_memory(job);
}

const char* kLlama70b =
    "trainer: {num_nodes: 8, devices: 8}\nmodel:\n  num_layers: 80\n  hidden_size: 8192\n  ffn_hidden_size: "
    "28672\n"
    "  num_attention_heads: 64\n  num_query_groups: 8\n  vocab_size: 128256\n  encoder_seq_length: 4096\n"
    "  micro_batch_size: 1\n  tensor_model_parallel_size: 4\n  pipeline_model_parallel_size: 4\n"
    "  sequence_parallel: true\n";

TEST(MemoryModel, Llama70bTp4Pp4Dp4WeightsAndOptimizer) {
  // Worked by hand from §3.1-3.3: TP-sharded per GPU = (80 x 855,638,016 / 4 + 8192 x 128256) / 4
  // = 4,540,858,368 parameters; x 18 bytes = 76.1 GiB; with the distributed optimizer (6 + 12/4) = 38.1 GiB.
  auto e = estimate(kLlama70b);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->params_per_gpu / 1e9, 4.5409, 0.001);
  EXPECT_NEAR(e->weights_optimizer_gib, 76.1, 0.1);
  auto d = estimate(std::string(kLlama70b) + "  use_distributed_optimizer: true\n");
  EXPECT_NEAR(d->weights_optimizer_gib, 38.1, 0.1);
  // Activations, SP branch: s·b·h·(18 + 4f/h)·L + 8sbp + sbhp, divided by TP.
  double act = (4096.0 * 8192 * (18 + 4 * 28672.0 / 8192) * 80 + 8 * 4096.0 * 4 + 4096.0 * 8192 * 4) / 4;
  EXPECT_NEAR(d->activations_gib, act / (1024.0 * 1024 * 1024), 0.01);
}

// Llama 3.1 8B (untied embeddings) with the distributed optimizer on four layouts. The expected GiB are the
// figures a public test of Megatron-LM's theoretical_memory_usage (the dp-cp sharding variant) asserts for
// these layouts: 44.87, 67.31, 11.92 and 23.14 GiB. The issue asks for agreement within 10%; we hold 1%.
TEST(MemoryModel, Llama31_8bMatchesPublishedWeightAndOptimizerFigures) {
  struct Case {
    int tp, cp, pp, mbs, world;
    double gib;
  };
  for (const Case& c : {Case{2, 1, 1, 1, 4, 44.87}, Case{1, 2, 1, 1, 4, 67.31}, Case{2, 1, 2, 1, 128, 11.92},
                        Case{2, 2, 1, 2, 128, 23.14}}) {
    std::string yaml = fmt::format(
        "trainer: {{num_nodes: {}, devices: 4}}\nmodel:\n  num_layers: 32\n  hidden_size: 4096\n"
        "  ffn_hidden_size: 14336\n  num_attention_heads: 32\n  num_query_groups: 8\n  vocab_size: 128256\n"
        "  share_embeddings_and_output_weights: false\n  seq_length: 8192\n  micro_batch_size: {}\n"
        "  tensor_model_parallel_size: {}\n  context_parallel_size: {}\n  pipeline_model_parallel_size: {}\n"
        "  use_distributed_optimizer: true\n",
        c.world / 4, c.mbs, c.tp, c.cp, c.pp);
    auto e = estimate(yaml);
    ASSERT_TRUE(e) << yaml;
    EXPECT_NEAR(e->weights_optimizer_gib, c.gib, c.gib * 0.01)
        << "TP" << c.tp << " CP" << c.cp << " PP" << c.pp;
  }
  // Megatron-LM's argument spelling of the same setting.
  std::vector<Word> words(1);
  words[0].text = "--untie-embeddings-and-output-weights";
  auto args = parse_training_args(words);
  ASSERT_EQ(args.facts.size(), 1u);
  EXPECT_EQ(args.facts[0].key, Key::kShareEmbeddingsAndOutputWeights);
  EXPECT_EQ(args.facts[0].value.as_bool(), false);
}

TEST(MemoryModel, RecomputeSettingDecidesTheActivationTerm) {
  auto selective = estimate(std::string(kLlama70b) + "  recompute_granularity: selective\n");
  auto full = estimate(std::string(kLlama70b) + "  recompute_granularity: full\n");
  auto unstated = estimate(kLlama70b);
  ASSERT_TRUE(selective && full && unstated);
  EXPECT_TRUE(selective->recompute_known);
  EXPECT_FALSE(unstated->recompute_known);
  // Full recompute keeps 2·s·b·h per layer instead of s·b·h·(18 + 4f/h): 2/32 of the selective term here.
  EXPECT_LT(full->activations_gib, selective->activations_gib / 10);
  EXPECT_DOUBLE_EQ(full->weights_optimizer_gib, selective->weights_optimizer_gib);
  // Megatron-LM's --recompute-activations means selective recompute.
  std::vector<Word> words(1);
  words[0].text = "--recompute-activations";
  auto args = parse_training_args(words);
  ASSERT_EQ(args.facts.size(), 1u);
  EXPECT_EQ(args.facts[0].key, Key::kRecomputeGranularity);
  EXPECT_EQ(args.facts[0].value.text(), "selective");
}

TEST(MemoryModel, ExpertsUseExpertDataParallel) {
  const char* moe =
      "trainer: {num_nodes: 2, devices: 8}\nmodel:\n  num_layers: 48\n  hidden_size: 2048\n  "
      "num_attention_heads: 32\n"
      "  num_query_groups: 4\n  kv_channels: 128\n  vocab_size: 151936\n  num_moe_experts: 128\n  "
      "moe_router_topk: 8\n"
      "  moe_ffn_hidden_size: 768\n  ffn_hidden_size: 6144\n  encoder_seq_length: 4096\n  micro_batch_size: "
      "1\n"
      "  expert_model_parallel_size: 16\n  expert_tensor_parallel_size: 1\n  use_distributed_optimizer: "
      "true\n";
  auto e = estimate(moe);
  ASSERT_TRUE(e);
  // 48 x 128 experts x 3 x 2048 x 768 / 16 EP = 0.6B expert parameters per GPU.
  EXPECT_NEAR(e->expert_params_per_gpu / 1e9, 48.0 * 128 * 3 * 2048 * 768 / 16 / 1e9, 1e-6);
}

// A Nemotron-3-Super-sized hybrid (88 layers: 40 Mamba, 40 latent MoE, 8 attention; squared ReLU): only
// the E layers hold experts, in the latent width, ungated; about 120B parameters in all.
TEST(MemoryModel, HybridLatentMoeCountsEachLayerByItsKind) {
  std::string pattern =
      "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME";
  std::string yaml =
      "trainer: {num_nodes: 16, devices: 4}\nmodel:\n  num_layers: 88\n  hidden_size: 4096\n"
      "  num_attention_heads: 32\n  num_query_groups: 2\n  kv_channels: 128\n  vocab_size: 131072\n"
      "  ffn_hidden_size: 2688\n  num_moe_experts: 512\n  moe_router_topk: 22\n  moe_latent_size: 1024\n"
      "  moe_shared_expert_intermediate_size: 5376\n  squared_relu: true\n  mamba_num_heads: 128\n"
      "  hybrid_layer_pattern: \"" +
      pattern +
      "\"\n  encoder_seq_length: 8192\n  micro_batch_size: 1\n"
      "  tensor_model_parallel_size: 2\n  expert_model_parallel_size: 64\n  expert_tensor_parallel_size: 1\n"
      "  sequence_parallel: true\n  use_distributed_optimizer: true\n";
  auto e = estimate(yaml);
  ASSERT_TRUE(e);
  // Routed experts: 40 E layers x 512 x 2 x 1024 x 2688 (ungated, latent width) / EP 64.
  EXPECT_NEAR(e->expert_params_per_gpu / 1e9, 40.0 * 512 * 2 * 1024 * 2688 / 64 / 1e9, 1e-6);
  // TP-sharded: 40 mixers (3 x 4096 x 8192), 8 attention, 40 x (latent projections + shared expert), the
  // embedding; / TP 2.
  const double h = 4096, attention = 2 * h * 4096 * (1 + 2.0 / 32);
  const double tp = (40 * 3 * h * 8192 + 8 * attention + 40 * (2 * h * 1024 + 2 * h * 5376) + h * 131072) / 2;
  EXPECT_NEAR(e->params_per_gpu - e->expert_params_per_gpu, tp + (88 * h + 40 * h * 512), 1e3);
  EXPECT_LT(e->total_gib, 100);  // every layer counted as a gated MoE layer of width h gave 400+ GiB
}

TEST(MemoryModel, UnknownInputsGiveNoEstimate) {
  auto pf = testing::parse("model:\n  num_layers: 80\n  hidden_size: 8192\n");
  Job job("t.yaml", pf.jobs.at(0), {});
  EXPECT_FALSE(estimate_memory(job));
  EXPECT_FALSE(memory_inputs_missing(job).empty());
}

// Megatron-LM's MLP as its flags give it: GeLU (two matrices) unless --swiglu, and ffn_hidden_size's
// default 4h, or 8h/3 rounded down to 64 with --swiglu (arguments.py:1320-1329@d98e8a64ddf3); unknown when
// an expansion parlint cannot read may hold either flag.
TEST(MemoryModel, MegatronLmMlpFollowsItsFlags) {
  auto job_for = [](const std::string& extra) {
    std::string text =
        "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 "
        "--num-attention-heads 16 --vocab-size 50304 --seq-length 2048 --micro-batch-size 1 "
        "--use-distributed-optimizer " +
        extra + "\n";
    SourceText src(text);
    auto pf = parse_shell("t.sh", src, framework_adapters());
    return std::make_unique<Job>("t.sh", pf.jobs.at(0), LintOptions{});
  };
  auto gelu = job_for("");
  EXPECT_EQ(gelu->get_int(Key::kFfnHiddenSize), 8192);
  EXPECT_EQ(gelu->get_bool(Key::kSwiglu), false);
  auto swiglu = job_for("--swiglu");
  EXPECT_EQ(swiglu->get_int(Key::kFfnHiddenSize), 5440);
  auto written = job_for("--swiglu --ffn-hidden-size 5632");
  EXPECT_EQ(written->get_int(Key::kFfnHiddenSize), 5632);
  EXPECT_FALSE(job_for("$EXTRA_ARGS")->get_int(Key::kFfnHiddenSize));
  // Two matrices of h x 4h against three of h x 8h/3: the same MLP size, named for what it is.
  auto g = estimate_memory(*gelu), s = estimate_memory(*swiglu);
  ASSERT_TRUE(g && s);
  EXPECT_NEAR(g->weights_optimizer_gib, s->weights_optimizer_gib, 0.02 * s->weights_optimizer_gib);
  EXPECT_NE(g->assumptions[1].find("GeLU MLP (ungated, no --swiglu)"), std::string::npos);
  EXPECT_NE(s->assumptions[1].find("SwiGLU MLP"), std::string::npos);
}

}  // namespace
}  // namespace parlint

namespace parlint {
namespace {

// ZeRO stages and FSDP shard the training state over DP: 4,540,858,368 parameters per GPU (the Llama 70B
// layout above, DP 4) take 18 bytes unsharded, 2 + 16/4 with gradients sharded and 18/4 fully sharded.
TEST(MemoryModel, ShardingStagesDivideTheStateOverDataParallelism) {
  const double params = 4540858368.0, gib = 1024.0 * 1024 * 1024;
  auto grads = estimate(std::string(kLlama70b) +
                        "  use_megatron_fsdp: true\n  data_parallel_sharding_strategy: optim_grads\n");
  ASSERT_TRUE(grads);
  EXPECT_NEAR(grads->weights_optimizer_gib, params * (2 + 16 / 4.0) / gib, 0.05);
  auto full = estimate(std::string(kLlama70b) +
                       "  use_megatron_fsdp: true\n  data_parallel_sharding_strategy: optim_grads_params\n");
  ASSERT_TRUE(full);
  EXPECT_NEAR(full->weights_optimizer_gib, params * 18 / 4.0 / gib, 0.05);
  EXPECT_NE(full->terms[0].find("Megatron FSDP (optim_grads_params)"), std::string::npos);
  // An FSDP strategy parlint cannot read leaves the estimate unknown, not unsharded.
  EXPECT_FALSE(estimate(std::string(kLlama70b) +
                        "  use_megatron_fsdp: true\n  data_parallel_sharding_strategy: ${oc.env:S}\n"));
}

// Megatron-DeepSpeed: --zero-stage 3 shards parameters too (a ZeRO-3 job was reported at 18 bytes per
// parameter before).
TEST(MemoryModel, MegatronDeepSpeedZeroStage) {
  auto job_for = [](const std::string& zero) {
    std::string text =
        "deepspeed --num_nodes 4 --num_gpus 8 pretrain_gpt.py --deepspeed --num-layers 80 --hidden-size 8192 "
        "--ffn-hidden-size 28672 --num-attention-heads 64 --num-query-groups 8 --vocab-size 128256 "
        "--seq-length 4096 --micro-batch-size 1 --tensor-model-parallel-size 4 "
        "--pipeline-model-parallel-size 4 --swiglu " +
        zero + "\n";
    SourceText src(text);
    auto pf = parse_shell("t.sh", src, framework_adapters());
    return Job("t.sh", pf.jobs.at(0), {});
  };
  auto z3 = estimate_memory(job_for("--zero-stage 3"));
  ASSERT_TRUE(z3);
  const double params = 4540858368.0, gib = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(z3->weights_optimizer_gib, params * 18 / 2.0 / gib, 0.05);  // DP = 32 / 16 = 2
  auto z1 = estimate_memory(job_for("--zero-stage=1"));
  ASSERT_TRUE(z1);
  EXPECT_NEAR(z1->weights_optimizer_gib, params * (6 + 12 / 2.0) / gib, 0.05);
  EXPECT_FALSE(estimate_memory(job_for("")));  // the stage is in the DeepSpeed config: unknown
}

}  // namespace
}  // namespace parlint

#include "lint/resolve/layout_job.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {

// Llama 3 70B at TP 4, PP 4 on 64 GPUs (DP 4) from plan options, which say nothing of the micro-batch or
// the optimizer: 4,540,858,368 parameters per GPU, as in the worked example above.
Job planned(LayoutSpec spec, Framework framework = Framework::kUnknown) {
  spec.model = "llama3-70b";
  spec.tp = 4;
  spec.pp = 4;
  spec.gpus = 64;
  spec.seq = 4096;
  LintOptions options;
  options.framework = framework;
  return Job(std::string(kCommandLinePath), layout_job(spec).job, options);
}

const AssumedInput* assumed(const MemoryEstimate& e, Key key) {
  for (const auto& a : e.assumed)
    if (a.key == key) return &a;
  return nullptr;
}

TEST(MemoryAssumptions, MicroBatchAndTheFrameworksOptimizerAreAssumedAndSaid) {
  Job job = planned({});
  EXPECT_FALSE(estimate_memory(job));  // what PL601 sees: not every input is known
  auto e = estimate_memory_assuming(job);
  ASSERT_TRUE(e);
  ASSERT_EQ(e->assumed.size(), 2u);
  const AssumedInput* mbs = assumed(*e, Key::kMicroBatchSize);
  const AssumedInput* distopt = assumed(*e, Key::kUseDistributedOptimizer);
  ASSERT_TRUE(mbs && distopt);
  EXPECT_EQ(mbs->value.as_int(), 1);
  // A plan from numbers runs on Megatron-Core's defaults: the distributed optimizer is off, 18 bytes per
  // parameter.
  EXPECT_EQ(distopt->value.as_bool(), false);
  EXPECT_EQ(distopt->framework, Framework::kUnknown);
  EXPECT_NE(distopt->reason.find("Megatron-Core's default"), std::string::npos);
  EXPECT_NEAR(e->weights_optimizer_gib, 76.1, 0.1);
  // Turning it on gives the (6 + 12/4)-byte figure.
  auto on = estimate_memory_with_distributed_optimizer(job, true);
  ASSERT_TRUE(on);
  EXPECT_NEAR(on->weights_optimizer_gib, 38.1, 0.1);
  EXPECT_FALSE(assumed(*on, Key::kUseDistributedOptimizer));
}

TEST(MemoryAssumptions, MegatronBridgeAssumesWhatItsRecipesSet) {
  auto e = estimate_memory_assuming(planned({}, Framework::kMegatronBridge));
  ASSERT_TRUE(e);
  const AssumedInput* distopt = assumed(*e, Key::kUseDistributedOptimizer);
  ASSERT_TRUE(distopt);
  EXPECT_EQ(distopt->value.as_bool(), true);
  EXPECT_NEAR(e->weights_optimizer_gib, 38.1, 0.1);
  // Megatron-LM leaves it off unless --use-distributed-optimizer is given: known, not assumed.
  auto mlm = estimate_memory_assuming(planned({}, Framework::kMegatronLM));
  ASSERT_TRUE(mlm);
  EXPECT_FALSE(assumed(*mlm, Key::kUseDistributedOptimizer));
  EXPECT_TRUE(assumed(*mlm, Key::kMicroBatchSize));
}

TEST(MemoryAssumptions, GivenInputsAreNeverAssumed) {
  LayoutSpec spec;
  spec.mbs = 2;
  spec.distributed_optimizer = true;
  Job job = planned(spec);
  auto known = estimate_memory(job), assuming = estimate_memory_assuming(job);
  ASSERT_TRUE(known && assuming);
  EXPECT_TRUE(assuming->assumed.empty());
  EXPECT_DOUBLE_EQ(known->total_gib, assuming->total_gib);
  // Only the micro-batch and the optimizer are ever assumed: without a sequence length there is no estimate.
  LayoutSpec no_seq;
  no_seq.model = "llama3-70b";
  no_seq.tp = 4;
  no_seq.gpus = 64;
  Job partial(std::string(kCommandLinePath), layout_job(no_seq).job, {});
  EXPECT_FALSE(estimate_memory_assuming(partial));
}

TEST(MemoryAssumptions, Pl601FiresOnKnownInputsOnly) {
  const Rule* pl601 = RuleRegistry::instance().find("PL601");
  ASSERT_TRUE(pl601);
  auto findings = [&](const LayoutSpec& spec) {
    std::vector<Finding> out;
    pl601->check_job(planned(spec), out);
    return out.size();
  };
  // Selective recompute stated: the whole estimate counts, 76.1 + 42 GiB > 80 GiB. With the micro-batch and
  // the optimizer assumed, the plan shows that figure but PL601 stays silent.
  LayoutSpec assumed_inputs;
  assumed_inputs.recompute = "selective";
  EXPECT_EQ(findings(assumed_inputs), 0u);
  LayoutSpec known = assumed_inputs;
  known.mbs = 1;
  known.distributed_optimizer = false;
  EXPECT_EQ(findings(known), 1u);
}

}  // namespace
}  // namespace parlint
