// PL701 hardcoded-secret: a literal token or API key in a script or config.
#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <mutex>
#include <string_view>

#include "rules/api/rule.h"

namespace parlint {
namespace {
namespace PARLINT_UNITY_ID {

constexpr RuleInfo kInfo{
    "PL701", "hardcoded-secret", Severity::kError,
    "a literal token or API key (HF, W&B, GitHub, AWS, *_TOKEN=, *_API_KEY=) in a script or config",
    R"md(# PL701 hardcoded-secret

## What it does
Finds credentials written into launch scripts and configs: Hugging Face tokens (`hf_…`), GitHub
tokens (`ghp_…`, `github_pat_…`), AWS access key ids (`AKIA…`), W&B API keys (40 hex characters in
`WANDB_API_KEY`), and any literal of letters and digits assigned to an environment-style (upper-case)
name ending in `_TOKEN`, `_API_KEY`, `_SECRET` or `_PASSWORD`, in shell scripts, Python (assignments,
`os.environ[...]`, `env_vars={...}` dicts, keyword arguments) and YAML configs (`env_vars:` maps and
`NAME=value` list items). A lower-case config key (`pull_secret: ngc-registry`) and a value of words
joined by dashes (`NATS_AUTH_TOKEN: stale-token`, `IMAGE_PULL_SECRET = "nvcr-secret"`) name a secret kept
elsewhere or a test value and are not reported; nor is a filler in a key's shape, a prefix and one
character over and over (`e2b_000...0`, `hf_xxxx...`). The message never repeats the value.

## Why
Launch scripts are committed, copied between clusters and pasted into issues; the token then works
for anyone who reads them. Training jobs should read credentials from the environment, a secrets
manager or a file outside the repository.

## Example
```bash
#!/bin/bash
export HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH
torchrun --nproc_per_node=8 pretrain_gpt.py
```

## Fix
```bash
#!/bin/bash
# HF_TOKEN comes from the submitting environment (sbatch --export=ALL) or ~/.cache/huggingface/token
export HF_TOKEN="${HF_TOKEN:?set HF_TOKEN before submitting}"
torchrun --nproc_per_node=8 pretrain_gpt.py
```

## Framework behaviour
None: this is a security finding. Revoke a token that was committed; removing it from the file does
not remove it from history.

## References
- Hugging Face, User access tokens, https://huggingface.co/docs/hub/security-tokens
- GitHub changelog 2021-03-31, "Authentication token format updates are generally available",
  https://github.blog/changelog/2021-03-31-authentication-token-format-updates-are-generally-available
  (`ghp_` and the other prefixes)
- GitHub Docs, "Managing your personal access tokens" (fine-grained tokens start with `github_pat_`)
- AWS IAM User Guide, "IAM identifiers",
  https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html
  (unique-ID prefixes: `AKIA` is an access key)
)md"};

// A token format: the expression, and literals one of which every match contains. The literals are a
// cheap test that keeps most runs from compiling the expressions at all (compiling them was a tenth of
// linting one script).
struct Pattern {
  const char* what;
  std::array<std::string_view, 6> literals;
  const char* expression;
};

constexpr std::array<Pattern, 3> kPatterns = {{
    {"a Hugging Face token", {"hf_"}, R"((?:^|[^A-Za-z0-9])hf_[A-Za-z0-9]{30,}(?:$|[^A-Za-z0-9]))"},
    {"a GitHub token",
     {"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
     R"((?:^|[^A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}))"},
    {"an AWS access key id", {"AKIA", "ASIA"}, R"((?:^|[^A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?:$|[^A-Z0-9]))"},
}};

bool may_match(const Pattern& p, std::string_view value) {
  return std::any_of(p.literals.begin(), p.literals.end(), [&](std::string_view lit) {
    return !lit.empty() && value.find(lit) != std::string_view::npos;
  });
}

// Compiled on first use, once per process (rules run on several threads).
const RE2& compiled(std::size_t i) {
  static std::array<std::once_flag, kPatterns.size()> once;
  static std::array<std::unique_ptr<RE2>, kPatterns.size()> expressions;
  std::call_once(once[i], [i] { expressions[i] = std::make_unique<RE2>(kPatterns[i].expression); });
  return *expressions[i];
}

bool secret_name(std::string name) {
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view suffix : {"_TOKEN", "_API_KEY", "_APIKEY", "_SECRET", "_PASSWORD", "_SECRET_KEY"})
    if (name.ends_with(suffix) || name == suffix.substr(1)) return true;
  return false;
}

// A count such as NUM_TOKEN=157286400000 or TRAIN_TOKEN=300e9 (Megatron-DeepSpeed's token budgets).
bool number(std::string_view v) {
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v.front()))) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == 'e' || c == 'E';
  });
}

// A filler in a key's shape: a prefix (e2b_, hf_, sk-) and then one character over and over
// (e2b_0000000000000000000000000000000000000000): the shape of a key, none of its secret.
bool filler(std::string_view v) {
  std::size_t at = v.find_first_of("_-");
  std::string_view body = at != std::string_view::npos && at <= 8 ? v.substr(at + 1) : v;
  return body.size() >= 8 && body.find_first_not_of(body.front()) == std::string_view::npos;
}

// Values that are clearly not secrets: placeholders, references, paths, numbers.
bool placeholder(std::string_view v) {
  if (filler(v)) return true;
  if (v.size() < 8 || v.find(' ') != std::string_view::npos || number(v)) return true;
  if (v.find('$') != std::string_view::npos || v.find('<') != std::string_view::npos ||
      v.find('{') != std::string_view::npos || v.starts_with("/") || v.starts_with("~") ||
      v.starts_with("./"))
    return true;
  std::string lower(v);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view p : {"your", "xxxx", "changeme", "placeholder", "example", "dummy", "redacted",
                             "none", "null", "todo", "fixme", "****"})
    if (lower.find(p) != std::string::npos) return true;
  return false;
}

// A value that could be a credential when only its name says so: letters and digits mixed (keys, tokens
// and passwords are), not words joined by dashes ("stale-token", "nvcr-secret": a test value, or the name
// of a Kubernetes secret stored elsewhere).
bool credential_like(std::string_view v) {
  if (placeholder(v)) return false;
  bool digit =
      std::any_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  bool letter =
      std::any_of(v.begin(), v.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
  return digit && letter;
}

class HardcodedSecret final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const ParsedFile& file, std::vector<Finding>& out) const override {
    for (const LiteralAssignment& lit : file.literals) {
      if (filler(lit.value)) continue;
      std::string what;
      for (std::size_t i = 0; i < kPatterns.size(); ++i)
        if (may_match(kPatterns[i], lit.value) && RE2::PartialMatch(lit.value, compiled(i))) {
          what = kPatterns[i].what;
          break;
        }
      std::string upper = lit.name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (what.empty() && (upper == "WANDB_API_KEY" || upper == "WANDB_KEY") && lit.value.size() == 40 &&
          std::all_of(lit.value.begin(), lit.value.end(),
                      [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
        what = "a W&B API key";
      // By name only for environment-style names (HF_TOKEN=...): a lower-case config key such as
      // Kubernetes' `pull_secret: ngc-registry` names a secret stored elsewhere.
      if (what.empty() && upper == lit.name && secret_name(lit.name) && credential_like(lit.value))
        what = "a literal credential";
      if (what.empty()) continue;
      Finding f;
      f.location = lit.location;
      f.sensitive = true;
      f.message =
          fmt::format("{} is written into {} here ({} characters); anyone who can read this file can use it",
                      what, lit.name, lit.value.size());
      f.help = fmt::format(
          "read {} from the environment or a secrets store instead, and revoke the exposed value", lit.name);
      out.push_back(std::move(f));
    }
  }
};

PARLINT_REGISTER_RULE(HardcodedSecret);

}  // namespace PARLINT_UNITY_ID
}  // namespace
}  // namespace parlint
