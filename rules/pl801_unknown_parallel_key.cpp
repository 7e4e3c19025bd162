// PL801 unknown-parallel-key: a flag or key that looks like a parallel setting but is not one.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "lint/knowledge/settings_catalogue.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

// The parallel settings a misspelling is compared with.
constexpr std::array kParallelKeys = {Key::kTensorModelParallelSize,
                                      Key::kPipelineModelParallelSize,
                                      Key::kVirtualPipelineModelParallelSize,
                                      Key::kContextParallelSize,
                                      Key::kExpertModelParallelSize,
                                      Key::kExpertTensorParallelSize,
                                      Key::kSequenceParallel,
                                      Key::kHierarchicalContextParallelSizes,
                                      Key::kPipelineModelParallelLayout,
                                      Key::kCpCommType,
                                      Key::kNumLayersInFirstPipelineStage,
                                      Key::kNumLayersInLastPipelineStage};

constexpr RuleInfo kInfo{
    "PL801",
    "unknown-parallel-key",
    Severity::kWarning,
    "a flag or key that looks like a parallel setting but is not one; suggests the right spelling",
    R"md(# PL801 unknown-parallel-key

## What it does
Checks the flags of training entry points and the `key=value` overrides under `model`, `trainer`,
`trainer.strategy`, `strategy` and `parallelism`. A name that is not a setting of the framework but
contains `parallel`, or is within two edits of a parallel setting, is reported with the closest
correct spelling (`--tensor-parallel-size` → `--tensor-model-parallel-size`,
`model.expert_tensor_model_parallel_size` → `model.expert_tensor_parallel_size`).

A flag is called unknown only to a program whose options parlint knows: Megatron-LM's own
`pretrain_*.py` (the settings catalogue), or a script next to the launch whose argparse parlint read
whole. Not reported, therefore: the options a launched script defines itself (its `add_argument("--x")`
calls, such as those of an `extra_args_provider`); any flag of a script parlint could not read, or whose
argparse takes options it does not list (`parse_known_args`, `argparse.REMAINDER`, `sys.argv` read by
hand); the words after a bare `--`, which a wrapper hands to the program it launches; a flag of a
`pretrain_*.py` outside a Megatron-LM checkout parlint can see (a vendored or forked copy) unless it is a
near miss of a real flag; and the options of checkpoint converters and other tools (`convert.py`,
`megatron_change_num_partitions.py`, `*_to_hf.py`: their command lines train nothing). Where nothing is
spelled like the name, the finding suggests nothing rather than an unrelated setting.

## Why
Megatron-LM rejects unknown flags, and Megatron-Bridge refuses an unknown plain `key=value` override,
but Megatron-Bridge skips an unknown key of a YAML override file or a `+key=` override with a warning
lost in the log, and NeMo's `MegatronStrategy(**kwargs)` ignores them silently: the job runs with the
default (TP=1, EP=1) and nobody notices until throughput or memory is wrong.

## Example
```bash
#!/bin/bash
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-parallel-size 8
```

## Fix
```bash
#!/bin/bash
torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 8
```

`parlint check --fix` respells it (a **safe** fix) when the name is a typo of a parallel setting (two
character edits) or has a word left out or added; a name with a word swapped for another
(`--target-tensor-parallel-size`) or that only contains `parallel` keeps the suggestion in the help line,
and so does a name whose real spelling is written in the same job as well.

## Framework behaviour
Megatron-LM: `unrecognized arguments`. Megatron-Bridge: a plain `key=value` override of a key that
does not exist fails (Hydra struct mode, `OverridesError`); from a YAML override file or as `+key=value`
it is skipped with "Key ... not found in config object ... Skipping.". NeMo 2: silently ignored.

## References
- Megatron-LM `megatron/training/arguments.py:119-132@d98e8a64ddf3` (argparse with `allow_abbrev=False`;
  unknown flags are an error)
- Megatron-Bridge `src/megatron/bridge/training/utils/omegaconf_utils.py:469-474@067f987df03b` (a key
  missing from the config, from a YAML override file or a `+key=` override, is skipped with a warning)
- Megatron-Bridge `src/megatron/bridge/training/utils/omegaconf_utils.py:179-186@067f987df03b` (plain
  `key=value` overrides go through Hydra in struct mode, which refuses a key that does not exist)
- Megatron-Bridge `scripts/training/run_recipe.py:268-270@067f987df03b` (an unknown `--option` is
  refused; every other trailing token must be `KEY=VALUE`)
- NeMo `nemo/lightning/pytorch/strategies/megatron_strategy.py:290-297@8cfedd720346` (MegatronStrategy
  hands extra keyword arguments to Lightning's DDPStrategy unchecked)
- Lightning `src/lightning/pytorch/strategies/ddp.py:97@7f0c3436cd3f` (they are kept as torch DDP
  options; with NeMo's default `ddp="megatron"` nothing reads them, megatron_strategy.py:354, 707)
)md",
    kParallelKeys,  // read only to see whether the real spelling is written too (then no fix)
    FixAvailability::kSafe};

// Distances from a spelled name to a parallel key. Every flag a launch script passes that parlint does
// not model reaches this rule (tens per script), so the distances use one row sized by the key, on the
// stack, and a length test skips the keys the name cannot be within two edits or one word of.
constexpr std::size_t kMaxKeyLength = 63;

std::size_t distance_gap(std::size_t a, std::size_t b) {
  return a > b ? a - b : b - a;
}

// Levenshtein distance, or limit + 1 when it is larger: only the diagonal band |i - j| <= limit is
// computed, which is where every path of cost <= limit runs.
int edit_distance(std::string_view name, std::string_view key, std::size_t limit) {
  const int over = static_cast<int>(std::min<std::size_t>(limit, 1u << 20)) + 1;
  if (distance_gap(name.size(), key.size()) > limit) return over;
  std::array<int, kMaxKeyLength + 1> row{};
  for (std::size_t j = 0; j <= key.size(); ++j) row[j] = std::min(static_cast<int>(j), over);
  for (std::size_t i = 1; i <= name.size(); ++i) {
    std::size_t lo = i > limit ? i - limit : 1, hi = std::min(key.size(), i + limit);
    int diagonal = row[lo - 1];
    row[lo - 1] = lo == 1 ? std::min(static_cast<int>(std::min<std::size_t>(i, 1u << 20)), over) : over;
    for (std::size_t j = lo; j <= hi; ++j) {
      int above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (name[i - 1] == key[j - 1] ? 0 : 1), over});
      diagonal = above;
    }
  }
  return row[key.size()];
}

// Words of a snake_case name, for a distance that forgives a missing or extra word.
std::size_t word_count(std::string_view s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '_')) + 1;
}

std::string_view next_word(std::string_view& rest) {
  auto u = rest.find('_');
  std::string_view word = rest.substr(0, u);
  rest = u == std::string_view::npos ? std::string_view{} : rest.substr(u + 1);
  return word;
}

int word_distance(std::string_view name, std::string_view key) {
  std::array<std::string_view, kMaxKeyLength + 1> key_words{};
  std::size_t n = word_count(key);
  for (std::size_t j = 0; j < n; ++j) key_words[j] = next_word(key);
  std::array<int, kMaxKeyLength + 2> row{};
  for (std::size_t j = 0; j <= n; ++j) row[j] = static_cast<int>(j);
  std::size_t names = word_count(name);
  for (std::size_t i = 1; i <= names; ++i) {
    std::string_view word = next_word(name);
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= n; ++j) {
      int above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (word == key_words[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[n];
}

bool in_scope(const UnrecognizedSetting& u) {
  if (u.is_flag) return true;
  std::string_view s = u.spelling;
  for (std::string_view package : {"training.", "fine_tuning."})
    if (s.starts_with(package)) s.remove_prefix(package.size());
  auto dot = s.rfind('.');
  std::string_view section = dot == std::string_view::npos ? "" : s.substr(0, dot);
  return section.empty() || section == "model" || section == "model.config" || section == "trainer" ||
         section == "trainer.strategy" || section == "strategy" || section == "parallelism";
}

// Megatron-LM's and Megatron-DeepSpeed's training entry points (pretrain_gpt.py, pretrain_mamba.py, ...)
// take their own arguments only.
bool megatron_training_entry(const Job& job) {
  std::string_view entry = job.entry_script();
  auto slash = entry.rfind('/');
  if (slash != std::string_view::npos) entry.remove_prefix(slash + 1);
  return entry.starts_with("pretrain_");
}

bool keys_fit_distance_rows() {
  return std::all_of(kParallelKeys.begin(), kParallelKeys.end(),
                     [](Key k) { return key_name(k).size() <= kMaxKeyLength; });
}

class UnknownParallelKey final : public Rule {
 public:
  UnknownParallelKey() {
    if (!keys_fit_distance_rows())
      throw std::logic_error("PL801: a parallel key is longer than a distance row");
  }

  const RuleInfo& info() const override { return kInfo; }

  void check_job(const Job& job, std::vector<Finding>& out) const override {
    // A tool's command line (a checkpoint converter, a data-preparation script) holds that tool's own
    // options: none of them is a training setting to respell (DESIGN "Other frameworks").
    if (!job.entry_script().empty() && !job.gpu_entry_point()) return;
    for (const UnrecognizedSetting& u : job.unrecognized()) {
      if (!in_scope(u)) continue;
      std::string_view spelled = u.spelling;
      std::string name;
      if (u.is_flag) {
        name = std::string(spelled.substr(2));
        std::replace(name.begin(), name.end(), '-', '_');
      } else {
        auto dot = spelled.rfind('.');
        name = std::string(dot == std::string_view::npos ? spelled : spelled.substr(dot + 1));
      }
      // A real setting of any framework parlint knows is never reported (DESIGN "PL801's scope"); a tool's
      // flag is real for that tool, not for a Megatron training entry point.
      if (u.is_flag ? is_training_flag(spelled) || (is_tool_flag(spelled) && !megatron_training_entry(job))
                    : is_real_setting_key(name))
        continue;
      // A name this long is generated text, not a misspelt setting (and would cost a long comparison).
      if (name.size() > 4 * kMaxKeyLength) continue;
      bool looks_parallel = name.find("parallel") != std::string::npos;
      Key best = kParallelKeys[0];
      int best_score = 1 << 20, best_chars = 1 << 20;
      for (Key k : kParallelKeys) {
        std::string_view key = key_name(k);
        // A score of 2 or less needs at most two edits or at most one word added or dropped.
        if (!looks_parallel && distance_gap(name.size(), key.size()) > 2 &&
            distance_gap(word_count(name), word_count(key)) > 1)
          continue;
        int score = std::min(edit_distance(name, key, 2), 2 * word_distance(name, key));
        if (!looks_parallel && score > 2) continue;
        // Ties between candidates go to the fewest character edits, so those are counted in full.
        int chars = edit_distance(name, key, name.size() + key.size());
        score = std::min(chars, 2 * word_distance(name, key));
        if (score < best_score || (score == best_score && chars < best_chars)) {
          best_score = score;
          best_chars = chars;
          best = k;
        }
      }
      if (best_score > 2 && !looks_parallel) continue;
      // No parallel setting is spelled like it (--my-extra-parallel-size): nothing to suggest. A flag of
      // a script other than Megatron-LM's own entry points may be that script's (extra_args_provider), so
      // only Megatron-LM's own, which refuse unknown flags, are told; a key is told without a suggestion.
      bool far = best_score > 2;
      // A flag is unknown only to a program whose options are known. Megatron-LM's own pretrain_*.py in
      // its checkout takes the catalogue's flags and no others; the same name elsewhere may be a fork's
      // (a vendored third_party/Megatron-LM adds flags of its own), so only a near miss of a real flag is
      // told there. Another script's options are known only when parlint read its argparse whole.
      if (u.is_flag) {
        using EntryFlags = RawJob::EntryFlags;
        const bool megatron = megatron_training_entry(job);
        if (megatron && far && job.entry_flags() != EntryFlags::kFramework) continue;
        if (!megatron && (far || job.entry_flags() != EntryFlags::kListed)) continue;
      }
      std::string suggestion;
      if (u.is_flag) {
        std::string flag(key_name(best));
        std::replace(flag.begin(), flag.end(), '_', '-');
        suggestion = "--" + flag;
        if (best == Key::kVirtualPipelineModelParallelSize)
          suggestion = "--num-virtual-stages-per-pipeline-rank";
      } else {
        auto dot = spelled.rfind('.');
        suggestion = (dot == std::string_view::npos ? "" : std::string(spelled.substr(0, dot + 1))) +
                     std::string(key_name(best));
      }
      Finding f;
      f.location = u.location;
      std::string consequence =
          u.is_flag ? "Megatron-LM rejects unknown flags (\"unrecognized arguments\"); other launchers pass "
                      "them on "
                      "unread"
          : job.framework() == Framework::kNemo2
              ? "NeMo 2's MegatronStrategy(**kwargs) silently drops it, so the default stays in effect"
          : job.framework() == Framework::kMegatronBridge
              ? "Megatron-Bridge refuses it as a plain key=value override and skips it with a warning from "
                "a YAML override file or as +key=value, so the default stays in effect"
              : "the framework ignores or rejects it, and the default stays in effect";
      if (far) {
        f.message = fmt::format("{} is not a {} setting, and no parallel setting is spelled like it; {}",
                                u.spelling, framework_display_name(job.framework()), consequence);
        f.help = "remove it, or write the framework's name of the setting it means";
        out.push_back(std::move(f));
        continue;
      }
      f.message = fmt::format("{} is not a {} setting; did you mean {}? {}", u.spelling,
                              framework_display_name(job.framework()), suggestion, consequence);
      f.help = fmt::format("spell it {}", suggestion);
      // Within two edits or a word of one setting, the intended name is clear: respelling it is safe (it
      // makes the framework read the value it was given). A looser match stays a suggestion.
      // Not where the real setting is written as well: the rename would make two values compete. And only
      // for a typo (two character edits) or a word left out or added: a word swapped for another
      // (--target-tensor-parallel-size, a converter's TP, is two edits from ETP's name) is a guess.
      const Fact* real = job.fact(best);
      std::string_view best_key = key_name(best);
      bool clear =
          best_chars <= 2 || (word_count(name) != word_count(best_key) && word_distance(name, best_key) == 1);
      if (clear && !(real && real->location.in_file()))
        f.fix = FixRequest{FixApplicability::kSafe,
                           fmt::format("spell it {}", suggestion),
                           {rename_text(u.location, u.spelling, suggestion)}};
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(UnknownParallelKey);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
