// UncalledFunctionMemo: a buffer edited and linted as the language server lints it (reparsed from its last
// tree, uncalled functions replayed from the memo) reads exactly as a fresh parse of the same text, edit
// after edit: the same parsed file, the same work charged, the same findings.
#include "parsers/shell/uncalled_function_memo.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "fixture_files.h"
#include "lint/engine/engine.h"
#include "lint/reporters/reporter.h"
#include "parsers/frameworks/adapters.h"
#include "parsers/shell/shell_parser.h"
#include "parsers/tree_sitter/tree_cache.h"
#include "parsers/tree_sitter/tree_sitter_languages.h"
#include "test_support.h"

namespace parlint {
namespace {

namespace fs = std::filesystem;

void dump(std::ostream& o, const Location& l) {
  o << l.path << ":" << l.range.start.line << ":" << l.range.start.column << "-" << l.range.end.line << ":"
    << l.range.end.column;
}
void dump(std::ostream& o, const SourceRange& r) {
  o << r.start.line << ":" << r.start.column << "-" << r.end.line << ":" << r.end.column;
}
void dump(std::ostream& o, const std::vector<RelatedLocation>& rs) {
  for (const auto& r : rs) {
    o << " [";
    dump(o, r.location);
    o << " " << r.message << " " << r.choice << "]";
  }
}
void dump(std::ostream& o, const Fact& f) {
  o << "  fact " << static_cast<int>(f.key) << " " << f.value.to_string() << " " << f.value.text() << " @";
  dump(o, f.location);
  o << " " << static_cast<int>(f.origin) << " " << f.spelling << " " << f.priority << " " << f.weak << " "
    << f.weak_note << " " << f.receiver << " " << f.default_of;
  dump(o, f.written_at);
  o << "\n";
}
void dump(std::ostream& o, const Word& w) {
  o << "  word " << w.text << " @";
  dump(o, w.location);
  o << " " << w.unknown << " " << w.unknown_reason << " " << w.weak << " " << w.weak_note << " "
    << w.empty_when;
  dump(o, w.written_at);
  o << "\n";
}

// Everything a parsed shell file holds, as text.
std::string dump(const ParsedFile& p) {
  std::ostringstream o;
  o << p.path << "\n";
  for (const auto& j : p.jobs) {
    o << "job ";
    dump(o, j.range);
    o << " ";
    dump(o, j.extent);
    o << " " << static_cast<int>(j.framework) << " " << j.description << " " << static_cast<int>(j.launch)
      << " " << j.under_slurm << j.allocates << j.under_srun << j.gpu_entry_point << j.trains
      << j.arguments_complete << j.nothing_read << j.settings_from_checkpoint << j.mp_args_from_checkpoint
      << j.cluster_split << " " << j.unread_arguments << " | " << j.unread_config << " | " << j.entry_script
      << " | " << static_cast<int>(j.entry_flags) << " " << j.recipe.name << " " << j.function << " "
      << j.model << " " << j.hardware << " " << j.role << " " << j.branch << "\n";
    for (const auto& f : j.facts) dump(o, f);
    for (const auto& c : j.conflicts) {
      dump(o, c.winner);
      dump(o, c.loser);
    }
    for (const auto& u : j.unrecognized) {
      o << "  unrecognized " << u.spelling << " " << u.is_flag << " @";
      dump(o, u.location);
      o << "\n";
    }
    for (const auto& po : j.passed_options) {
      o << "  passes " << po.option << "=" << po.value << " " << po.value_known << " @";
      dump(o, po.location);
      o << "\n";
    }
    if (j.checkpoint_args) dump(o, *j.checkpoint_args);
    for (const auto& w : j.config_files) dump(o, w);
    for (const auto& e : j.environment) {
      o << "  env " << e.name << "=" << e.value << " " << e.unknown_reason << " @";
      dump(o, e.location);
      o << "\n";
    }
    for (const auto& n : j.notes) o << "  note " << n << "\n";
  }
  for (const auto& e : p.errors) {
    o << "error ";
    dump(o, e.range);
    o << " " << e.message << " | " << e.help << "\n";
  }
  for (const auto& u : p.unread) {
    o << "unread ";
    dump(o, u.range);
    o << " " << u.reason << " | " << u.help << "\n";
  }
  for (const auto& s : p.script_form) {
    o << "form " << static_cast<int>(s.kind) << " ";
    dump(o, s.range);
    o << " " << s.text << " " << s.other_line << "\n";
  }
  for (const auto& s : p.size_expressions) {
    o << "size " << s.target << " " << s.text << " @";
    dump(o, s.location);
    o << "\n";
  }
  for (const auto& l : p.literals) {
    o << "literal " << l.name << "=" << l.value << " @";
    dump(o, l.location);
    o << "\n";
  }
  for (const auto& e : p.exports) {
    o << "export " << e.name << "=" << e.value << " " << e.unknown_reason << " @";
    dump(o, e.location);
    o << "\n";
  }
  return o.str();
}

// The first line where two dumps differ, from each.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string lx, ly;
  while (true) {
    bool more_x = static_cast<bool>(std::getline(x, lx)), more_y = static_cast<bool>(std::getline(y, ly));
    if (!more_x && !more_y) return "no difference";
    if (!more_x || !more_y || lx != ly)
      return "\n  server: " + (more_x ? lx : "(end)") + "\n  fresh:  " + (more_y ? ly : "(end)");
  }
}

// One parse and the work it charged (spent through the budget, and left on the meter).
struct Reading {
  std::string parsed;
  std::uint64_t spent = 0, metered = 0;
  bool exhausted = false;
};

Reading read(const std::string& path, const std::string& text, BudgetLimits limits, TreeCache* trees,
             UncalledFunctionMemo* memo) {
  SourceText source(text);
  WorkBudget budget(limits);
  Reading r;
  r.parsed = dump(parse_shell(path, source, framework_adapters(), FileReader::disk(), &budget, trees, memo));
  r.spent = budget.spent();
  r.metered = budget.unabsorbed();
  r.exhausted = budget.exhausted();
  return r;
}

// Edits `text` the way typing does, and checks after each edit that the server's reading (trees and memo
// kept across edits) is a fresh reading. Most edits keep the script readable (a letter or digit typed or
// deleted inside a word, a line added or removed, an edit undone), half of them inside a function body;
// some type a character that may break the syntax. An edit that leaves a syntax error is undone at the next
// step (a tree with an error is parsed afresh, so nothing is replayed until it is gone). Returns the walks
// replayed.
std::size_t replay_edits(const std::string& path, std::string text, int steps, std::mt19937& rng,
                         BudgetLimits limits, const std::string& what) {
  const std::string breaking[] = {"$", "\"", "'", "(", ")", "{", "}", ";", "#", "\\", "`", "\n"};
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  TreeCache trees;
  UncalledFunctionMemo memo;
  std::string previous;
  bool broken = false;
  for (int step = 0; step < steps; ++step) {
    if (step > 0 && (broken || step % 4 == 0)) {
      std::swap(text, previous);  // undo
      broken = false;
    } else if (step > 0 && !text.empty()) {
      previous = text;
      std::size_t at = rng() % text.size();
      if (step % 2 == 1)
        if (std::size_t brace = text.find("() {", at); brace != std::string::npos)
          at = std::min(text.size() - 1, brace + 5 + rng() % 60);
      // A value the functions read changes (TP=${TP:-4} -> 47, LOG_DIR=/scratch/logs -> /scratch/logsa).
      std::size_t value = std::string::npos;
      for (const char* assigned : {"\nPP=", "\nLOG_DIR=", "TP=${TP:-"})
        if (rng() % 2 == 0 && (value = text.find(assigned)) != std::string::npos) {
          value = text.find_first_of("\n}", value + 1);
          break;
        }
      if (step % 3 == 0 && value != std::string::npos) {
        text.insert(value, std::string(1, "7a"[rng() % 2]));
      } else if (step % 5 == 0) {
        text.insert(at, breaking[rng() % std::size(breaking)]);
      } else if (step % 7 == 0) {
        std::size_t line = text.rfind('\n', at);
        line = line == std::string::npos ? 0 : line + 1;
        text.insert(line, rng() % 2 ? "X_" + std::to_string(step) + "=1\n" : "TP=8\n");
      } else if (step % 11 == 0) {
        std::size_t line = text.rfind('\n', at), end = text.find('\n', at);
        line = line == std::string::npos ? 0 : line + 1;
        text.erase(line, end == std::string::npos ? std::string::npos : end + 1 - line);
      } else {
        while (at < text.size() && !word_char(text[at])) ++at;  // inside or at the end of a word
        if (rng() % 3 == 0 && at < text.size() && word_char(text[at]) && at + 1 < text.size() &&
            word_char(text[at + 1]))
          text.erase(at, 1);
        else
          text.insert(at, std::string(1, "7aZ_"[rng() % 4]));
      }
    }
    // An edit that left a syntax error (a keyword typed into, a brace removed) is undone next.
    TsTree check(ts_parser_parse_string(thread_bash_parser(), nullptr, text.data(),
                                        static_cast<std::uint32_t>(text.size())));
    broken = broken || ts_node_has_error(ts_tree_root_node(check.get()));
    Reading server = read(path, text, limits, &trees, &memo);
    Reading fresh = read(path, text, limits, nullptr, nullptr);
    std::string where = what + " step " + std::to_string(step);
    EXPECT_TRUE(server.parsed == fresh.parsed)
        << where << ": " << first_difference(server.parsed, fresh.parsed);
    EXPECT_EQ(server.spent, fresh.spent) << where;
    EXPECT_EQ(server.metered, fresh.metered) << where;
    EXPECT_EQ(server.exhausted, fresh.exhausted) << where;
    if (server.parsed != fresh.parsed || server.spent != fresh.spent || server.metered != fresh.metered ||
        server.exhausted != fresh.exhausted)
      break;
  }
  return memo.replays();
}

// Helper functions of many kinds, most never called: what they read, assign, run and write.
const char* kFunctions = R"(#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
set -euo pipefail
TP=${TP:-4}
PP=2
LOG_DIR=/scratch/logs
API_KEY="sk-live-0123456789abcdef0123"
ARGS=(--tensor-model-parallel-size $TP)
log() {
  echo "[$(date)] $*" >> "$LOG_DIR/run.log"
}
setup_env() {
  local cache="/lustre/cache"
  export HF_HOME="$cache/hf"
  TOKEN="hf_abcdefghijklmnopqrstuvwxyz123456"
  if [[ -d "$cache" ]]; then
    echo "using $cache" >&2
  else
    echo "missing $cache" >&2
  fi
}
tp_size() {
  TP_SIZE=$((TP * 2))
  NODES=$((SLURM_NNODES * PP))
}
uses_globals() {
  OUT="$LOG_DIR/out_${TP}_${PP}"
  case "$PP" in
    2) MODE=pipeline ;;
    *) MODE=flat ;;
  esac
}
writes_config() {
  cat > ds_config.json <<EOF
{"train_batch_size": 8}
EOF
}
runs_string() {
  bash -c "echo $TP"
  eval "X=$PP"
}
sources() {
  source ./env.sh
}
nested() {
  inner() { DEEP=1; }
  inner
}
calls_other() {
  setup_env
  log "done"
}
launches() {
  srun torchrun --nproc-per-node 8 pretrain_gpt.py "${ARGS[@]}" --pipeline-model-parallel-size $PP
}
recursive() {
  recursive
}
loops() {
  for i in 1 2 3; do V=$i; done
  while false; do W=1; done
}
arrays() {
  local -a A=(one two)
  A+=(three)
  B="${A[*]}"
}
subshell_body() (
  S=1
  echo "$S"
)
sets_all() {
  set -a
  EXPORTED=1
  set +a
}
reads_all() {
  env | grep TP
  declare -p
}
python_helper() {
  python3 tools/preprocess.py --input "$LOG_DIR" --workers "$PP"
}
srun --ntasks-per-node=1 torchrun --nnodes 2 --nproc-per-node 8 pretrain_gpt.py "${ARGS[@]}" \
  --pipeline-model-parallel-size $PP --num-layers 32 --hidden-size 4096 --num-attention-heads 32
)";

// An environment file (no launch): what it leaves exported is read by the configs of later launches unless
// it runs a program, as its helper does.
const char* kEnvironmentFile = R"(#!/bin/bash
export NCCL_DEBUG=INFO
export TP=4
export DATA=/lustre/data
check_gpus() {
  nvidia-smi
}
set_paths() {
  export CKPT="$DATA/ckpt"
  local tmp="/tmp/x"
}
)";

// The benchmark's script (tests/bench/gen_script.py): a header, many small helper functions never called,
// an array appended to after each, and a launch.
std::string bench_script(int lines) {
  std::string out =
      "#!/bin/bash\n#SBATCH --job-name=gpt-pretrain\n#SBATCH --nodes=16\n#SBATCH --ntasks-per-node=1\n"
      "#SBATCH --gpus-per-node=8\nset -euo pipefail\n\nTP=${TP:-4}\nPP=${PP:-4}\nMBS=1\nGBS=1024\n\n";
  int n = 0;
  for (int i = 1; n < lines - 20; ++i, n += 11) {
    std::string id = std::to_string(i);
    out += "# --- data shard group " + id + " ---\nprepare_shard_" + id +
           "() {\n  local src=\"/lustre/shard_" + id +
           "\"\n  if [[ -d \"$src\" ]]; then\n    echo \"using $src\" >&2\n  else\n    echo \"missing $src\" "
           ">&2\n"
           "  fi\n}\nDATA_PATH+=(" +
           std::to_string(i % 7 + 1) + ".0 /lustre/shard_" + id + "_text_document)\n\n";
  }
  out +=
      "PARALLEL_ARGS=(\n  --tensor-model-parallel-size $TP\n  --pipeline-model-parallel-size $PP\n)\n"
      "srun --ntasks-per-node=1 torchrun --nnodes $SLURM_NNODES --nproc-per-node 8 \\\n"
      "  pretrain_gpt.py --num-layers 80 --hidden-size 8192 --num-attention-heads 64 --seq-length 4096 \\\n"
      "  --micro-batch-size $MBS --global-batch-size $GBS \"${PARALLEL_ARGS[@]}\" --data-path "
      "\"${DATA_PATH[@]}\"\n";
  return out;
}

TEST(UncalledFunctionMemo, ReplayedWalksReadAsFreshOnes) {
  std::mt19937 rng(44);
  fs::path dir = fs::temp_directory_path() / "parlint-uncalled-memo-test";
  fs::create_directories(dir);
  std::ofstream(dir / "env.sh") << "export FROM_ENV=1\n";
  // Many helpers of functions.sh are never kept (they run strings, read files, launch, call functions):
  // those that are must replay; nearly every shard function of bench.sbatch does.
  EXPECT_GT(replay_edits((dir / "functions.sh").string(), kFunctions, 120, rng, {}, "functions.sh"), 300u);
  EXPECT_GT(replay_edits((dir / "environment.sh").string(), kEnvironmentFile, 40, rng, {}, "environment.sh"),
            20u);
  EXPECT_GT(replay_edits((dir / "bench.sbatch").string(), bench_script(300), 40, rng, {}, "bench.sbatch"),
            600u);
}

// Each shell fixture edited as typing does.
TEST(UncalledFunctionMemo, FixturesEditedReadAsFresh) {
  std::mt19937 rng(45);
  int files = 0;
  std::size_t replays = 0;
  for (const auto& fixture : testing::shell_fixtures()) {
    ++files;
    replays += replay_edits(fixture.path.string(), fixture.text, 12, rng, {}, fixture.path.string());
    if (HasFailure()) return;
  }
  EXPECT_GT(files, 100);
  EXPECT_GT(replays, 0u);  // few fixtures define functions they never call
}

// Near the end of the work budget a replay must run out exactly where a fresh walk would: budgets that run
// out before, among and after the uncalled functions.
TEST(UncalledFunctionMemo, BudgetRunsOutWhereAFreshReadingDoes) {
  std::mt19937 rng(46);
  const std::string script = bench_script(200);
  SourceText source(script);
  WorkBudget whole;
  parse_shell("budget.sbatch", source, framework_adapters(), FileReader::disk(), &whole);
  const std::uint64_t total = whole.spent() + whole.unabsorbed();
  for (std::uint64_t limit :
       {total / 4, total / 2, total * 3 / 4, total * 9 / 10, total - 2000, total + 5000}) {
    BudgetLimits limits;
    limits.work = limit;
    replay_edits("budget.sbatch", script, 10, rng, limits, "limit " + std::to_string(limit));
    if (HasFailure()) return;
  }
}

// Through the engine, as the language server calls it: the same report as `parlint check` of the text.
TEST(UncalledFunctionMemo, ServerLintReportsAsCheck) {
  std::string text = bench_script(400);
  EngineOptions fresh = testing::default_options();
  EngineOptions server = fresh;
  TreeCache trees;
  UncalledFunctionMemo memo;
  server.trees = &trees;
  server.uncalled_functions = &memo;
  std::mt19937 rng(47);
  auto report = [&](const EngineOptions& options) {
    std::ostringstream out;
    report_json(check_document("/tmp/parlint-memo/train.sbatch", text, options), {}, out);
    return out.str();
  };
  for (int step = 0; step < 30; ++step) {
    if (step > 0) {
      std::size_t at = text.find("TP=${TP:-") + 9;
      if (step % 3 == 0) at = text.find("local src=", rng() % text.size());
      if (at == std::string::npos) at = text.size() / 2;
      text.insert(at, std::to_string(step % 10));
    }
    EXPECT_EQ(report(server), report(fresh)) << "step " << step;
  }
}

}  // namespace
}  // namespace parlint
