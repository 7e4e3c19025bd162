// The shell parser on the forms of reference/syntax-in-the-wild.md §1-5: values, positions, unknowns.
#include "parsers/shell/shell_parser.h"
#include "parsers/frameworks/adapters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace parlint {
namespace {
using testing::find_fact;

ParsedFile sh(const std::string& text, const std::string& path = "t.sh") {
  SourceText source(text);
  return parse_shell(path, source, framework_adapters());
}

const RawJob& only_job(const ParsedFile& pf) {
  EXPECT_EQ(pf.jobs.size(), 1u);
  return pf.jobs.at(0);
}

std::optional<std::int64_t> int_of(const RawJob& job, Key key) {
  const Fact* f = find_fact(job, key);
  return f ? f->value.as_int() : std::nullopt;
}

TEST(ShellParser, SbatchDirectiveForms) {
  auto pf =
      sh("#!/bin/bash\n#SBATCH --nodes 4\n#SBATCH --gpus-per-node=h100:8\t# tab comment\n"
         "#SBATCH -t 1:00:00 --exclusive --ntasks-per-node=8 # several on one line\n"
         "srun python train.py\n");
  const RawJob& job = only_job(pf);
  EXPECT_EQ(int_of(job, Key::kNodes), 4);
  EXPECT_EQ(int_of(job, Key::kGpusPerNode), 8);
  EXPECT_EQ(int_of(job, Key::kNtasksPerNode), 8);
  EXPECT_EQ(job.launch, LaunchKind::kSrunNative);
  EXPECT_TRUE(job.under_slurm);
  EXPECT_EQ(find_fact(job, Key::kNodes)->location.range.start, (SourcePosition{2, 9}));
  EXPECT_EQ(find_fact(job, Key::kNodes)->location.range.end, (SourcePosition{2, 18}));
}

TEST(ShellParser, ShortAndGresForms) {
  EXPECT_EQ(int_of(only_job(sh("#SBATCH -N2\n#SBATCH --gres=gpu:a100:4\nsrun python t.py\n")), Key::kNodes),
            2);
  EXPECT_EQ(int_of(only_job(sh("#SBATCH -N 3\n#SBATCH --gres=gpu:4\nsrun python t.py\n")), Key::kGpusPerNode),
            4);
  // --gpus is a total: 16 over 2 nodes.
  EXPECT_EQ(int_of(only_job(sh("#SBATCH -N 2\n#SBATCH --gpus=16\nsrun python t.py\n")), Key::kGpusPerNode),
            8);
}

TEST(ShellParser, PlaceholdersAndRangesAreUnknown) {
  for (const char* v : {"your_own_num_nodes", "0", "{{nodes}}", "2-4"}) {
    auto pf = sh(std::string("#SBATCH --nodes=") + v + "\nsrun python t.py\n");
    const Fact* n = find_fact(only_job(pf), Key::kNodes);
    ASSERT_NE(n, nullptr) << v;
    EXPECT_TRUE(n->value.is_unknown()) << v;
  }
  EXPECT_EQ(int_of(only_job(sh("#SBATCH --nodes=3-3\nsrun python t.py\n")), Key::kNodes), 3);
}

TEST(ShellParser, DirectivesAfterTheFirstCommandAreIgnored) {
  auto pf = sh("#SBATCH --nodes=2\nset -e\n#SBATCH --nodes=9\nsrun python t.py\n");
  EXPECT_EQ(int_of(only_job(pf), Key::kNodes), 2);
}

TEST(ShellParser, HetjobGroups) {
  auto pf =
      sh("#SBATCH --nodes=1 --gpus-per-node=0\n#SBATCH hetjob\n#SBATCH --nodes=4 --gpus-per-node=8\n"
         "srun --het-group=1 python t.py\n");
  EXPECT_EQ(int_of(only_job(pf), Key::kNodes), 4);
  EXPECT_EQ(int_of(only_job(pf), Key::kGpusPerNode), 8);
}

TEST(ShellParser, VariablesDefaultsAndArithmetic) {
  auto pf =
      sh("TP=${TP:-2}\nPP=${PP-4}\n: ${CP:=2}\nEP=$(( (TP * 2) + 4 % 3 ))\nexport NODES=3\n"
         "torchrun --nnodes=$NODES --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size ${TP} "
         "--pipeline-model-parallel-size $PP --expert-model-parallel-size $EP --context-parallel-size $CP\n");
  const RawJob& job = only_job(pf);
  EXPECT_EQ(int_of(job, Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(int_of(job, Key::kPipelineModelParallelSize), 4);
  EXPECT_EQ(int_of(job, Key::kExpertModelParallelSize), 5);
  EXPECT_EQ(int_of(job, Key::kContextParallelSize), 2);
  EXPECT_EQ(int_of(job, Key::kNnodes), 3);
  EXPECT_EQ(job.launch, LaunchKind::kTorchrun);
  EXPECT_EQ(job.framework, Framework::kMegatronLM);
}

TEST(ShellParser, ValueWrittenElsewhereIsRelated) {
  auto pf = sh("TP=16\nsrun python run_recipe.py model.tensor_model_parallel_size=$TP\n");
  const Fact* tp = find_fact(only_job(pf), Key::kTensorModelParallelSize);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value.as_int(), 16);
  EXPECT_EQ(tp->location.range.start, (SourcePosition{2, 27}));
  EXPECT_EQ(tp->location.range.end, (SourcePosition{2, 63}));
  ASSERT_EQ(tp->written_at.size(), 1u);
  EXPECT_EQ(tp->written_at[0].location.range.start.line, 1);
  EXPECT_NE(tp->written_at[0].message.find("TP=16"), std::string::npos);
}

TEST(ShellParser, UnknownsCarryTheirReason) {
  auto pf =
      sh("N=$(scontrol show hostnames | wc -l)\ntorchrun --nnodes=$N --nproc_per_node=$1 x.py "
         "--tensor-model-parallel-size $UNSET_VAR\n");
  const RawJob& job = only_job(pf);
  // A count of the allocation's nodes at run time says so.
  EXPECT_NE(find_fact(job, Key::kNnodes)
                ->value.unknown_reason()
                .find("the nodes of the allocation, counted at run time"),
            std::string::npos);
  EXPECT_NE(find_fact(job, Key::kNprocPerNode)->value.unknown_reason().find("positional argument"),
            std::string::npos);
  EXPECT_NE(
      find_fact(job, Key::kTensorModelParallelSize)->value.unknown_reason().find("not set in this script"),
      std::string::npos);
}

TEST(ShellParser, BranchesAgreeOrBecomeUnknown) {
  auto agree =
      sh("if [ -n \"$X\" ]; then\n  TP=2\nelse\n  TP=2\nfi\npython t.py --tensor-model-parallel-size $TP\n");
  EXPECT_EQ(int_of(only_job(agree), Key::kTensorModelParallelSize), 2);
  auto differ =
      sh("case $M in\n  a) TP=2 ;;\n  *) TP=4 ;;\nesac\npython t.py --tensor-model-parallel-size $TP\n");
  EXPECT_NE(
      find_fact(only_job(differ), Key::kTensorModelParallelSize)->value.unknown_reason().find("branches"),
      std::string::npos);
  auto no_else =
      sh("TP=1\nif [ -n \"$BIG\" ]; then TP=8; fi\npython t.py --tensor-model-parallel-size $TP\n");
  EXPECT_TRUE(find_fact(only_job(no_else), Key::kTensorModelParallelSize)->value.is_unknown());
}

// A case on a constant takes its arm (MODEL_SCALE="800M"; case "$MODEL_SCALE" in ...); the value says
// which arm chose it. A case on the script's argument, or one with a pattern read at run time, stays
// unresolved.
TEST(ShellParser, CaseOnAConstantTakesItsArm) {
  const std::string arms =
      " in\n  \"800M\")\n    TP=1\n    ;;\n  8B|8b) TP=4 ;;\n  *) echo no; exit 1 ;;\nesac\n"
      "python t.py --tensor-model-parallel-size $TP\n";
  auto taken = sh("SCALE=\"800M\" # or 8B\ncase \"${SCALE}\"" + arms);
  const Fact* tp = find_fact(only_job(taken), Key::kTensorModelParallelSize);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value.as_int(), 1);
  EXPECT_TRUE(std::any_of(tp->written_at.begin(), tp->written_at.end(), [](const RelatedLocation& r) {
    return r.choice && r.location.range.start.line == 3;
  }));
  EXPECT_EQ(int_of(only_job(sh("SCALE=8b\ncase $SCALE" + arms)), Key::kTensorModelParallelSize), 4);
  // A glob pattern.
  EXPECT_EQ(int_of(only_job(sh("SCALE=8B-long\ncase $SCALE in\n  8B*) TP=4 ;;\n  *) TP=1 ;;\nesac\n"
                               "python t.py --tensor-model-parallel-size $TP\n")),
                   Key::kTensorModelParallelSize),
            4);
  // No arm matches: nothing runs, TP keeps its value.
  EXPECT_EQ(int_of(only_job(sh("TP=2\nSCALE=70B\ncase $SCALE in\n  8B) TP=4 ;;\nesac\n"
                               "python t.py --tensor-model-parallel-size $TP\n")),
                   Key::kTensorModelParallelSize),
            2);
  for (const char* subject : {"case $1", "case \"${SCALE}\"", "case $UNSET"}) {
    auto pf = sh(std::string(subject == std::string("case \"${SCALE}\"") ? "SCALE=$(cat f)\n" : "") +
                 subject + arms);
    EXPECT_TRUE(find_fact(only_job(pf), Key::kTensorModelParallelSize)->value.is_unknown()) << subject;
  }
  // A pattern that expands at run time: not decided.
  auto run_time =
      sh("SCALE=8B\ncase $SCALE in\n  $BIG) TP=4 ;;\n  *) TP=1 ;;\nesac\n"
         "python t.py --tensor-model-parallel-size $TP\n");
  EXPECT_TRUE(find_fact(only_job(run_time), Key::kTensorModelParallelSize)->value.is_unknown());
}

// Variable sets are copied at every branch and shared in layers: values must survive appends between
// branches, nested branches, more branches than the layer limit, and an unset in one branch.
TEST(ShellParser, VariablesSurviveManyBranchesAndAppends) {
  std::string script = "ARGS=(--num-layers 32)\nTP=2\n";
  for (int i = 0; i < 40; ++i) {
    script += "if [[ -d /data/" + std::to_string(i) + " ]]; then\n  if [ -n \"$DEBUG\" ]; then V" +
              std::to_string(i) + "=1; fi\n  SEEN=yes\nelse\n  SEEN=yes\nfi\n";
    script += "ARGS+=(--log-interval " + std::to_string(i) + ")\n";
  }
  script += "ARGS+=(--tensor-model-parallel-size $TP)\n";
  script += "case $MODE in\n  fast) unset TP ;;\n  *) ;;\nesac\n";
  script += "torchrun --nproc_per_node 8 pretrain_gpt.py \"${ARGS[@]}\" --pipeline-model-parallel-size $TP\n";
  auto pf = sh(script);
  const RawJob& job = only_job(pf);
  EXPECT_EQ(int_of(job, Key::kNumLayers), 32);
  EXPECT_EQ(int_of(job, Key::kTensorModelParallelSize), 2);
  // TP was unset in one branch of the case: after it, its value is unknown.
  ASSERT_NE(find_fact(job, Key::kPipelineModelParallelSize), nullptr);
  EXPECT_TRUE(find_fact(job, Key::kPipelineModelParallelSize)->value.is_unknown());
}

// A="$A --x" in a branch keeps only what it appends, after a pointer to the value before the if
// (Var::appended_to): every way the whole value is read must see it whole, with the positions it had.
TEST(ShellParser, OptionsAppendedInBranchesAreReadWhole) {
  const std::string head = "A=\"--num-layers 32 --tensor-model-parallel-size 2\"\n";
  const std::string launch = "torchrun --nproc_per_node 8 pretrain_gpt.py $A\n";
  // Read whole inside the branch, by a launch there; then appended to again in the same branch.
  auto inside = sh(head + "if [ -n \"$X\" ]; then\n  A=\"$A --pipeline-model-parallel-size 2\"\n  " + launch +
                   "  A=\"$A --seq-length 4096\"\nfi\n" + launch);
  ASSERT_EQ(inside.jobs.size(), 2u);
  EXPECT_EQ(int_of(inside.jobs[0], Key::kPipelineModelParallelSize), 2);
  EXPECT_EQ(int_of(inside.jobs[0], Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(find_fact(inside.jobs[0], Key::kTensorModelParallelSize)->location.range.start,
            (SourcePosition{1, 20}));
  EXPECT_TRUE(find_fact(inside.jobs[1], Key::kPipelineModelParallelSize)->value.is_unknown());
  EXPECT_EQ(int_of(inside.jobs[1], Key::kNumLayers), 32);
  // Nested ifs append to the value their parent appended to.
  auto nested = sh(head +
                   "if [ -n \"$X\" ]; then\n  A=\"$A --seq-length 4096\"\n  if [ -n \"$Y\" ]; then\n"
                   "    A=\"$A --pipeline-model-parallel-size 4\"\n  fi\nfi\n" +
                   launch);
  const RawJob& n = only_job(nested);
  EXPECT_EQ(int_of(n, Key::kTensorModelParallelSize), 2);
  EXPECT_TRUE(find_fact(n, Key::kPipelineModelParallelSize)->value.is_unknown());
  // Both branches append the same option: it is known after them.
  auto agree = sh(head +
                  "if [ -n \"$X\" ]; then\n  A=\"$A --pipeline-model-parallel-size 4\"\nelse\n"
                  "  A=\"$A --pipeline-model-parallel-size 4\"\nfi\n" +
                  launch);
  EXPECT_EQ(int_of(only_job(agree), Key::kPipelineModelParallelSize), 4);
  // They append different values: that option alone becomes unknown.
  auto differ = sh(head +
                   "case \"$M\" in\n  a) A=\"$A --pipeline-model-parallel-size 4\" ;;\n"
                   "  *) A=\"$A --pipeline-model-parallel-size 8\" ;;\nesac\n" +
                   launch);
  const RawJob& d = only_job(differ);
  EXPECT_TRUE(find_fact(d, Key::kPipelineModelParallelSize)->value.is_unknown());
  EXPECT_EQ(int_of(d, Key::kTensorModelParallelSize), 2);
  // Over a value with a run-time part, the branches' equal text still agrees option by option.
  auto runtime = sh(
      "A=\"$EXTRA --tensor-model-parallel-size 2\"\nif [ -n \"$X\" ]; then\n"
      "  A=\"$A --pipeline-model-parallel-size 4\"\nelse\n  A=\"$A --pipeline-model-parallel-size 4\"\nfi\n" +
      launch);
  EXPECT_EQ(int_of(only_job(runtime), Key::kTensorModelParallelSize), 2);
}

TEST(ShellParser, LoopsAndConfigListsAreUnknown) {
  auto pf = sh(
      "CONFIGS=(\"2,4,8\" \"4,2,8\")\nfor C in \"${CONFIGS[@]}\"; do\n  IFS=, read -r TP PP EP <<< \"$C\"\n"
      "  python t.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP\ndone\n");
  const RawJob& job = only_job(pf);
  EXPECT_TRUE(find_fact(job, Key::kTensorModelParallelSize)->value.is_unknown());
  EXPECT_TRUE(find_fact(job, Key::kPipelineModelParallelSize)->value.is_unknown());
}

TEST(ShellParser, ArraysWithCommentsAndAppend) {
  auto pf = sh(
      "ARGS=(\n  --num-layers 32\n  # --pipeline-model-parallel-size 4   # disabled\n  --sequence-parallel  "
      "# on\n)\n"
      "ARGS+=( --tensor-model-parallel-size 2 )\ntorchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[@]}\n");
  const RawJob& job = only_job(pf);
  EXPECT_EQ(int_of(job, Key::kNumLayers), 32);
  EXPECT_EQ(find_fact(job, Key::kPipelineModelParallelSize), nullptr);
  EXPECT_EQ(find_fact(job, Key::kSequenceParallel)->value.as_bool(), true);
  EXPECT_EQ(find_fact(job, Key::kSequenceParallel)->location.range.start, (SourcePosition{4, 3}));
  EXPECT_EQ(int_of(job, Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->location.range.start, (SourcePosition{6, 9}));
}

TEST(ShellParser, StringVariablesSplitUnquoted) {
  auto pf = sh(
      "GPT_ARGS=\"--num-layers 12\n--tensor-model-parallel-size 2 \\\n  --pipeline-model-parallel-size 2\"\n"
      "torchrun --nproc_per_node 4 pretrain_gpt.py $GPT_ARGS\n");
  const RawJob& job = only_job(pf);
  EXPECT_EQ(int_of(job, Key::kNumLayers), 12);
  EXPECT_EQ(int_of(job, Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(int_of(job, Key::kPipelineModelParallelSize), 2);
  // Positions map into the string literal, line by line.
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->location.range.start, (SourcePosition{2, 1}));
  EXPECT_EQ(find_fact(job, Key::kPipelineModelParallelSize)->location.range.start, (SourcePosition{3, 3}));
}

TEST(ShellParser, BashDashCStringKeepsPositionsAndEscapedDollars) {
  std::string text =
      "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n"
      "CMD=\"torchrun --nproc_per_node=8 --nnodes=\\${SLURM_JOB_NUM_NODES} \\\n"
      "  pretrain_gpt.py --tensor-model-parallel-size 4\"\n"
      "srun bash -c \"$CMD\"\n";
  auto pf = sh(text);
  const RawJob& job = only_job(pf);
  EXPECT_EQ(job.launch, LaunchKind::kTorchrun);
  EXPECT_TRUE(job.under_srun);
  EXPECT_EQ(int_of(job, Key::kNnodes), 2);  // \$ stayed literal until the inner shell, inside the allocation
  const Fact* tp = find_fact(job, Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->location.range.start, (SourcePosition{5, 19}));
  EXPECT_EQ(find_fact(job, Key::kNprocPerNode)->location.range.start, (SourcePosition{4, 15}));
}

TEST(ShellParser, HeredocsAndReadIntoVariable) {
  auto pf =
      sh("read -r -d '' CMD <<EOF\npython train.py \\\n  trainer.num_nodes=2 trainer.devices=8 \\\n"
         "  model.tensor_model_parallel_size=4\nEOF\neval \"$CMD\"\n");
  const RawJob& job = only_job(pf);
  EXPECT_EQ(job.launch, LaunchKind::kLightning);
  EXPECT_EQ(int_of(job, Key::kNnodes), 2);
  EXPECT_EQ(int_of(job, Key::kNprocPerNode), 8);
  EXPECT_EQ(find_fact(job, Key::kTensorModelParallelSize)->location.range.start.line, 4);

  auto sb = sh("sbatch --nodes=3 <<EOF\n#!/bin/bash\n#SBATCH --gpus-per-node=4\nsrun python t.py\nEOF\n");
  const RawJob& inner = only_job(sb);
  EXPECT_EQ(int_of(inner, Key::kNodes), 3);
  EXPECT_EQ(int_of(inner, Key::kGpusPerNode), 4);
  EXPECT_EQ(find_fact(inner, Key::kGpusPerNode)->location.range.start.line, 3);
}

TEST(ShellParser, SlurmVariables) {
  auto inside = sh("#SBATCH --nodes=4\nsrun torchrun --nnodes=$SLURM_NNODES --nproc_per_node=8 t.py\n");
  EXPECT_EQ(int_of(only_job(inside), Key::kNnodes), 4);
  auto outside = sh("NNODES=${SLURM_NNODES:-1}\ntorchrun --nnodes=$NNODES --nproc_per_node=8 t.py\n");
  const Fact* n = find_fact(only_job(outside), Key::kNnodes);
  EXPECT_EQ(n->value.as_int(), 1);
  EXPECT_TRUE(n->weak);
  auto bare = sh("torchrun --nnodes=$SLURM_JOB_NUM_NODES --nproc_per_node=8 t.py\n");
  EXPECT_NE(find_fact(only_job(bare), Key::kNnodes)->value.unknown_reason().find("no #SBATCH"),
            std::string::npos);
}

TEST(ShellParser, LaunchersAndWrappers) {
  auto pf =
      sh("CUDA_DEVICE_MAX_CONNECTIONS=1 uv run python -u -m torch.distributed.run --standalone "
         "--nproc-per-node=gpu pretrain_gpt.py --tensor-model-parallel-size=2\n"
         "apptainer exec --nv img.sif python -m torch.distributed.launch --nproc_per_node 4 train.py\n"
         "python -m torch.distributed.run --nnodes=1:4 --nproc_per_node=8 train.py\n"
         "echo torchrun --nproc_per_node 8 x.py\n");
  ASSERT_EQ(pf.jobs.size(), 3u);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kNnodes), 1);
  EXPECT_TRUE(find_fact(pf.jobs[0], Key::kNprocPerNode)->value.is_unknown());
  EXPECT_EQ(find_fact(pf.jobs[0], Key::kCudaDeviceMaxConnections)->value.as_int(), 1);
  EXPECT_EQ(int_of(pf.jobs[1], Key::kNprocPerNode), 4);
  EXPECT_TRUE(find_fact(pf.jobs[2], Key::kNnodes)->value.is_unknown());  // elastic range
}

TEST(ShellParser, MpirunAndDeepspeed) {
  auto pf =
      sh("mpirun -np 16 -N 8 -x NCCL_DEBUG --bind-to none python train.py --tensor-model-parallel-size 2\n"
         "deepspeed --num_nodes 2 --num_gpus 8 train.py --deepspeed_config ds.json\n");
  ASSERT_EQ(pf.jobs.size(), 2u);
  EXPECT_EQ(pf.jobs[0].launch, LaunchKind::kSrunNative);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kWorldSize), 16);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kNtasksPerNode), 8);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kTensorModelParallelSize), 2);
  EXPECT_EQ(pf.jobs[1].launch, LaunchKind::kTorchrun);
  EXPECT_EQ(int_of(pf.jobs[1], Key::kNnodes), 2);
  EXPECT_EQ(int_of(pf.jobs[1], Key::kNprocPerNode), 8);
}

// Megatron-DeepSpeed's megatron_options / ds_args: a branch that appends words keeps the words before
// it; only the options the branches disagree about become unknown.
TEST(ShellParser, OptionStringsBuiltInBranchesKeepWhatEveryBranchSets) {
  auto pf =
      sh("OPTS=\"--tensor-model-parallel-size 32 --pipeline-model-parallel-size 2\"\n"
         "if [ \"$ckpt\" = true ]; then\n  OPTS=\"$OPTS --recompute-activations\"\nfi\n"
         "if [ -n \"$BIG\" ]; then OPTS=\"$OPTS --pipeline-model-parallel-size 4\"; fi\n"
         "ds_args=\"\"\nds_args=\" --deepspeed ${ds_args}\"\n"
         "if [ \"$z\" = 1 ]; then ds_args=\"--zero-stage=1 ${ds_args}\"; fi\n"
         "ARGS=(--num-layers 24)\nif [ -n \"$SP\" ]; then ARGS+=(--sequence-parallel); fi\n"
         "torchrun --nproc_per_node 8 pretrain_gpt.py $OPTS ${ds_args} \"${ARGS[@]}\"\n");
  const RawJob& job = only_job(pf);
  EXPECT_EQ(int_of(job, Key::kTensorModelParallelSize), 32);
  EXPECT_EQ(int_of(job, Key::kNumLayers), 24);
  const Fact* pp = find_fact(job, Key::kPipelineModelParallelSize);
  ASSERT_NE(pp, nullptr);
  EXPECT_TRUE(pp->value.is_unknown());
  EXPECT_NE(pp->value.unknown_reason().find("--pipeline-model-parallel-size is set differently"),
            std::string::npos);
  EXPECT_NE(pp->value.unknown_reason().find("line 5"), std::string::npos);
  EXPECT_EQ(pp->location.range.start.line, 1);  // where the option is written
  const Fact* recompute = find_fact(job, Key::kRecomputeGranularity);
  ASSERT_NE(recompute, nullptr);
  EXPECT_TRUE(recompute->value.is_unknown());
  const Fact* sp = find_fact(job, Key::kSequenceParallel);
  ASSERT_NE(sp, nullptr);
  EXPECT_TRUE(sp->value.is_unknown());
  EXPECT_EQ(job.framework, Framework::kMegatronDeepSpeed);  // --deepspeed survives the prepend
  // Values that are not options lists (different leading words) stay unknown whole.
  auto cmd =
      sh("if [ -n \"$X\" ]; then C=\"torchrun --nproc_per_node 8\"; else C=\"python\"; fi\n"
         "$C pretrain_gpt.py --tensor-model-parallel-size 2\n");
  for (const auto& j : cmd.jobs) EXPECT_NE(j.launch, LaunchKind::kTorchrun);
}

TEST(ShellParser, DeepspeedHostsFromHostfileAndInclude) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "parlint_ds_hosts";
  fs::create_directories(dir);
  std::ofstream(dir / "hostfile") << "# pool\nworker-0 slots=4\nworker-1 slots=4\n\nworker-2 slots=4\n";
  std::ofstream(dir / "mixed") << "a slots=8\nb slots=4\n";
  std::string path = (dir / "t.sh").string();
  auto pf =
      sh("deepspeed --hostfile=hostfile pretrain_gpt.py --deepspeed\n"
         "deepspeed -H hostfile --num_nodes 2 pretrain_gpt.py --deepspeed\n"
         "deepspeed --include localhost:0,1,2,3 pretrain_gpt.py --deepspeed\n"
         "deepspeed --include \"w0:0,1@w1:2,3\" pretrain_gpt.py --deepspeed\n"
         "deepspeed --include w0@w1 pretrain_gpt.py --deepspeed\n"
         "deepspeed --hostfile mixed pretrain_gpt.py --deepspeed\n"
         "deepspeed --hostfile missing pretrain_gpt.py --deepspeed\n"
         "deepspeed --num_nodes=2 --num_gpus=8 pretrain_gpt.py --deepspeed\n",
         path);
  ASSERT_EQ(pf.jobs.size(), 8u);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kNnodes), 3);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kNprocPerNode), 4);
  EXPECT_EQ(int_of(pf.jobs[1], Key::kNnodes), 2);  // the first two hosts
  EXPECT_EQ(int_of(pf.jobs[1], Key::kNprocPerNode), 4);
  EXPECT_EQ(int_of(pf.jobs[2], Key::kNnodes), 1);
  EXPECT_EQ(int_of(pf.jobs[2], Key::kNprocPerNode), 4);
  EXPECT_EQ(int_of(pf.jobs[3], Key::kNnodes), 2);
  EXPECT_EQ(int_of(pf.jobs[3], Key::kNprocPerNode), 2);
  EXPECT_EQ(int_of(pf.jobs[4], Key::kNnodes), 2);
  EXPECT_TRUE(find_fact(pf.jobs[4], Key::kNprocPerNode)->value.is_unknown());  // every GPU of w0 and w1
  EXPECT_EQ(int_of(pf.jobs[5], Key::kNnodes), 2);
  EXPECT_TRUE(find_fact(pf.jobs[5], Key::kNprocPerNode)->value.is_unknown());  // 8 and 4
  EXPECT_TRUE(find_fact(pf.jobs[6], Key::kNnodes)->value.is_unknown());
  EXPECT_EQ(int_of(pf.jobs[7], Key::kNnodes), 2);
  EXPECT_EQ(int_of(pf.jobs[7], Key::kNprocPerNode), 8);
  fs::remove_all(dir);
}

// Launch forms that used to vanish: srun options taking a value before the command, an unknown word
// that may expand to options, words the grammar splits in two, arrays in bash -c strings.
TEST(ShellParser, SrunOptionsArraysInStringsAndGluedWords) {
  auto pf = sh(
      "ARGS=(--tensor-model-parallel-size 16 --num-layers 4)\n"
      "srun --jobid $SLURM_JOB_ID -K1 bash -c \"torchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[*]}\"\n"
      "srun ${AUTO_RESUME} -l --output=$A/x_$B.log torchrun pretrain_gpt.py --tensor-model-parallel-size 8\n"
      "srun bash -c \"torchrun pretrain_gpt.py ${ARGS[@]}\"\n"
      "X=\"a ${ARGS[@]} b\"\n"
      "torchrun pretrain_gpt.py $X\n");
  ASSERT_EQ(pf.jobs.size(), 4u);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kTensorModelParallelSize), 16);
  EXPECT_EQ(int_of(pf.jobs[0], Key::kNumLayers), 4);
  EXPECT_EQ(int_of(pf.jobs[1], Key::kTensorModelParallelSize), 8);
  // "${ARGS[@]}" splits the -c string: bash runs the text up to "--tensor-model-parallel-size" alone.
  const Fact* cut = find_fact(pf.jobs[2], Key::kTensorModelParallelSize);
  ASSERT_NE(cut, nullptr);
  EXPECT_TRUE(cut->value.is_unknown());
  EXPECT_FALSE(find_fact(pf.jobs[2], Key::kNumLayers));
  EXPECT_EQ(int_of(pf.jobs[3], Key::kTensorModelParallelSize), 16);  // one string: joined by blanks
  // The option table comes from the man pages: every option that takes a value takes the next word.
  auto table =
      sh("srun -p gpu -t 10 -J x -o o.log -e e.log -A acct -q high -D /w -w n[1-2] -x n3 -c 4 -m block "
         "--mpi pmix --cpu-bind none --jobid 12 --exclusive --overlap -u -l -N 2 torchrun pretrain_gpt.py\n");
  ASSERT_EQ(table.jobs.size(), 1u);
  EXPECT_EQ(table.jobs[0].launch, LaunchKind::kTorchrun);
  EXPECT_EQ(int_of(table.jobs[0], Key::kNodes), 2);
}

// source "${SCRIPT_DIR}/${VARIANT}/params.sh" reads the one file that fits; a script another script
// submits with sbatch --nodes does not keep its #SBATCH --nodes.
TEST(ShellParser, SourcedPathWithRunTimePartsAndSubmittedNodeCount) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "parlint_sourced_variant";
  fs::remove_all(dir);
  fs::create_directories(dir / "base");
  std::ofstream(dir / "base" / "params.sh")
      << "ARGS=(--tensor-model-parallel-size 4 --pipeline-model-parallel-size 3)\n";
  std::string train =
      "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gpus-per-node=8\nVARIANT=$1\n"
      "SCRIPT_DIR=$(dirname \"$(realpath \"$0\")\")\nsource \"${SCRIPT_DIR}/${VARIANT}/params.sh\"\n"
      "torchrun --nnodes=${SLURM_JOB_NUM_NODES} --nproc_per_node 8 pretrain_gpt.py \"${ARGS[@]}\"\n";
  auto alone = sh(train, (dir / "train.sh").string());
  ASSERT_EQ(alone.jobs.size(), 1u);
  EXPECT_EQ(int_of(alone.jobs[0], Key::kTensorModelParallelSize), 4);
  EXPECT_EQ(int_of(alone.jobs[0], Key::kNnodes), 1);  // nobody submits it with other sizes
  std::ofstream(dir / "submit.sh")
      << "NODES=6\nsbatch --parsable \\\n  --nodes=\"${NODES}\" \\\n  train.sh base\n";
  auto submitted = sh(train, (dir / "train.sh").string());
  const Fact* nnodes = find_fact(submitted.jobs.at(0), Key::kNnodes);
  ASSERT_NE(nnodes, nullptr);
  EXPECT_TRUE(nnodes->value.is_unknown());
  EXPECT_NE(nnodes->value.unknown_reason().find("submit.sh:2"), std::string::npos);
  // Two files fit: neither is read.
  fs::create_directories(dir / "large");
  std::ofstream(dir / "large" / "params.sh") << "ARGS=(--tensor-model-parallel-size 8)\n";
  auto two = sh(train, (dir / "train.sh").string());
  EXPECT_FALSE(find_fact(two.jobs.at(0), Key::kTensorModelParallelSize));
  fs::remove_all(dir);
}

TEST(ShellParser, BridgeShorthandsLoseToTrailingOverrides) {
  auto pf =
      sh("python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config -tp 2 -pp 2 -sl 8192 "
         "model.tensor_model_parallel_size=4 ++model.sequence_parallel=true '+trainer.x=1' ~model.foo\n");
  const RawJob& job = only_job(pf);
  EXPECT_EQ(job.framework, Framework::kMegatronBridge);
  EXPECT_EQ(int_of(job, Key::kTensorModelParallelSize), 4);
  EXPECT_EQ(int_of(job, Key::kSeqLength), 8192);
  EXPECT_EQ(find_fact(job, Key::kSequenceParallel)->value.as_bool(), true);
  ASSERT_EQ(job.conflicts.size(), 1u);
  EXPECT_EQ(job.conflicts[0].winner.value.as_int(), 4);
}

TEST(ShellParser, SourcedFilesAreReadStaticallyWithCycleBound) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "parlint-source-test";
  fs::create_directories(dir / "params");
  std::ofstream(dir / "params" / "big.sh") << "TP=8\nPP=4\nsource " << (dir / "main.sh").string() << "\n";
  std::string main =
      "#SBATCH --nodes=2\nsource ./params/big.sh\n. params/missing.sh\n"
      "torchrun --nproc_per_node 8 t.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size "
      "$PP\n";
  std::ofstream(dir / "main.sh") << main;
  auto pf = sh(main, (dir / "main.sh").string());
  const RawJob& job = only_job(pf);
  const Fact* tp = find_fact(job, Key::kTensorModelParallelSize);
  EXPECT_EQ(tp->value.as_int(), 8);
  ASSERT_FALSE(tp->written_at.empty());
  EXPECT_NE(tp->written_at[0].location.path.find("big.sh"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ShellParser, SyntaxErrorsAreReportedAndTheRestIsUsed) {
  auto pf = sh("#SBATCH --nodes=2\nif then fi (\nsrun python t.py --tensor-model-parallel-size 2\n");
  EXPECT_FALSE(pf.errors.empty());
}

TEST(ShellParser, DeepNestingIsBounded) {
  std::string deep;
  for (int i = 0; i < 20000; ++i) deep += "$(";
  auto pf = sh("X=" + deep + "\n");
  EXPECT_FALSE(pf.errors.empty() && pf.unread.empty());  // reported, as an error or as unread
  std::string subshells(20000, '(');
  auto pf2 = sh(subshells + "python t.py" + std::string(20000, ')') + "\n");
  EXPECT_LE(pf2.jobs.size(), 1u);  // bounded: at most the one launch, never a crash
  // Nested parameter expansions once overflowed the stack: they are followed to a bounded depth.
  std::string nested = "X=";
  for (int i = 0; i < 20000; ++i) nested += "${A:-";
  nested += "1" + std::string(20000, '}') + "\npython t.py --tensor-model-parallel-size $X\n";
  auto pf3 = sh(nested);
  ASSERT_EQ(pf3.jobs.size(), 1u);
  EXPECT_TRUE(find_fact(pf3.jobs[0], Key::kTensorModelParallelSize)->value.is_unknown());
}

TEST(ShellParser, SizeExpressionsAndLiterals) {
  auto pf = sh("TP=2\nEP=8\nPP=4\nNUM_NODES=$(( TP*PP*EP/8 ))\nWORLD=$((PP*TP))\nexport HF_TOKEN=abc\n");
  ASSERT_EQ(pf.size_expressions.size(), 2u);
  EXPECT_EQ(pf.size_expressions[0].target, "NUM_NODES");
  EXPECT_EQ(pf.size_expressions[0].factors.size(), 3u);
  bool found = false;
  for (const auto& l : pf.literals) found |= l.name == "HF_TOKEN" && l.value == "abc";
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace parlint

namespace parlint {
namespace {

TEST(ShellParser, DeepspeedLauncherDefaultsToEveryGpuOfTheHost) {
  SourceText plain("deepspeed pretrain_gpt.py --tensor-model-parallel-size 2 --deepspeed\n");
  auto pf = parse_shell("t.sh", plain, framework_adapters());
  ASSERT_EQ(pf.jobs.size(), 1u);
  const Fact* per_node = testing::find_fact(pf.jobs[0], Key::kNprocPerNode);
  ASSERT_NE(per_node, nullptr);
  EXPECT_TRUE(per_node->value.is_unknown());  // not torchrun's default of 1
  EXPECT_EQ(testing::find_fact(pf.jobs[0], Key::kNnodes)->value.as_int(), 1);
  EXPECT_EQ(pf.jobs[0].framework, Framework::kMegatronDeepSpeed);
  SourceText hosts("deepspeed --hostfile hosts --num_gpus 8 pretrain_gpt.py --deepspeed\n");
  auto pf2 = parse_shell("t.sh", hosts, framework_adapters());
  EXPECT_TRUE(testing::find_fact(pf2.jobs[0], Key::kNnodes)->value.is_unknown());
  EXPECT_EQ(testing::find_fact(pf2.jobs[0], Key::kNprocPerNode)->value.as_int(), 8);
}

}  // namespace
}  // namespace parlint
