// ROLL (alibaba/ROLL @ 8eb27cc2dc34): a YAML document of workers, each with its strategy; a worker whose
// strategy is Megatron's (megatron_train, megatron_infer) is a job on len(device_mapping) GPUs with
// strategy_config as Megatron-Core fields.
#include <set>

#include "parsers/frameworks/adapters.h"
#include "parsers/frameworks/document_keys.h"

namespace parlint {
namespace {

using namespace document_keys;

// How many devices a ROLL device_mapping names: `list(range(0,32))`, `list(range(8))`,
// `list([0,1,2,3])`, `[1]`, and sums of them; nullopt for anything else.
std::optional<std::int64_t> device_count(std::string_view text) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '"' || s.front() == '\'')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == '\'')) s.remove_suffix(1);
    return s;
  };
  auto number = [](std::string_view s) -> std::optional<std::int64_t> {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string_view::npos)
      return std::nullopt;
    return std::stoll(std::string(s));
  };
  std::int64_t total = 0;
  text = trim(text);
  while (!text.empty()) {
    std::size_t plus = text.find('+');
    std::string_view term = trim(text.substr(0, plus));
    text = plus == std::string_view::npos ? std::string_view{} : text.substr(plus + 1);
    if (term.starts_with("list(") && term.ends_with(")")) term = trim(term.substr(5, term.size() - 6));
    if (term.starts_with("range(") && term.ends_with(")")) {
      std::string_view args = term.substr(6, term.size() - 7);
      auto comma = args.find(',');
      auto a =
          comma == std::string_view::npos ? std::optional<std::int64_t>(0) : number(args.substr(0, comma));
      auto b = number(comma == std::string_view::npos ? args : args.substr(comma + 1));
      if (!a || !b || *b < *a) return std::nullopt;
      total += *b - *a;
    } else if (term.starts_with("[") && term.ends_with("]")) {
      std::string_view items = term.substr(1, term.size() - 2);
      for (std::size_t from = 0; from <= items.size();) {
        std::size_t comma = items.find(',', from);
        std::string_view item =
            items.substr(from, comma == std::string_view::npos ? items.size() - from : comma - from);
        if (!number(item)) return std::nullopt;
        ++total;
        if (comma == std::string_view::npos) break;
        from = comma + 1;
      }
    } else {
      return std::nullopt;
    }
  }
  return total > 0 ? std::optional<std::int64_t>(total) : std::nullopt;
}

// ROLL (alibaba/ROLL @ 8eb27cc2dc34): a document holding one Megatron role (the YAML reader splits the
// roles into runs). mcore_adapter takes what strategy_config leaves out from the checkpoint
// (mcore_adapter/src/mcore_adapter/models/model_config.py:137-158), so nothing else is a default.
class Roll final : public DocumentAdapter {
 public:
  std::string_view name() const override { return "ROLL"; }

  // Each worker whose strategy is Megatron's is a job, with the document's keys outside every worker.
  std::vector<DocumentRole> roles(const std::vector<DriverKey>& keys) const override {
    std::set<std::string> workers, megatron_workers;
    for (const auto& k : keys) {
      const auto& p = *k.path;
      if (p.size() == 3 && p[1] == "strategy_args" && p[2] == "strategy_name") {
        workers.insert(p[0]);
        if (k.scalar.starts_with("megatron_")) megatron_workers.insert(p[0]);
      }
    }
    std::vector<DocumentRole> out;
    for (const auto& worker : megatron_workers) {
      DocumentRole r;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto& p = *keys[i].path;
        if (p.empty() || !workers.count(p[0]) || p[0] == worker) r.keys.push_back({i});
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  std::optional<DriverConfig> read(std::vector<DriverKey>& keys) const override {
    std::string role, strategy;
    for (const auto& k : keys)
      if (k.path->size() == 3 && (*k.path)[1] == "strategy_args" && (*k.path)[2] == "strategy_name" &&
          k.scalar.starts_with("megatron_")) {
        role = (*k.path)[0];
        strategy = k.scalar;
      }
    if (role.empty()) return std::nullopt;
    DriverConfig out{Framework::kUnknown, "ROLL " + role + " (" + strategy + ")", "", "", false, false};
    out.traits.name = "ROLL";
    // ROLL's mcore_adapter turns SP off at TP 1 (mcore_adapter/src/mcore_adapter/models/model_config.py:
    // 368-373@8eb27cc2dc34).
    out.traits.turns_sp_off_at_tp1 = true;
    // It checks the prompts of a step (rollout_batch_size, the global batch parlint reads) against
    // actor_train's DP before it starts, with its own arithmetic: the sizes strategy_config writes, 1 for
    // the others (roll/utils/config_utils.py:74-98@8eb27cc2dc34).
    out.traits.batch =
        BatchCheck{BatchCheck::Divisor::kDpOfWrittenSizes,
                   "rollout_batch_size={gbs} is not a multiple of actor_train's DP = {dp}; ROLL "
                   "raises \"Rollout Batch Size ({gbs}) must be divisible by data parallel size "
                   "({dp}) to ensure equal distribution across DP workers.\" at start-up",
                   "use a rollout_batch_size that is a multiple of {dp}", true};
    out.from_checkpoint = true;
    for (auto& k : keys) {
      const auto& p = *k.path;
      if (p.size() == 4 && p[0] == role && p[1] == "strategy_args" && p[2] == "strategy_config") {
        read_under(k, 3, {"model"});
        k.quiet = true;  // mcore_adapter's own switches sit beside the Megatron-Core fields
      } else if (role == "actor_train" && p == std::vector<std::string>{"rollout_batch_size"}) {
        k.read_as = {"train",
                     "global_batch_size"};  // the prompts of a step, which ROLL splits over DP (PL503)
      } else if (p.size() == 2 && p[0] == role && p[1] == "device_mapping") {
        // The role's GPUs, len(device_mapping) (roll/configs/worker_config.py:311-316@8eb27cc2dc34).
        if (auto devices = device_count(k.scalar)) {
          Fact f;
          f.key = Key::kWorldSize;
          f.location = k.location;
          f.origin = Origin::kYaml;
          f.spelling = "len(" + role + ".device_mapping)";
          f.value = Value::integer(*devices);
          out.facts.push_back(std::move(f));
        }
        k.own_key = true;
      } else {
        k.own_key = true;
      }
    }
    return out;
  }
};

}  // namespace

const DocumentAdapter& roll_adapter() {
  static const Roll adapter;
  return adapter;
}

}  // namespace parlint
