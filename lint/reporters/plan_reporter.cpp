// `parlint plan`: every resolved value of each job with where it came from (or why it is unknown),
// and the derived layout: world size, DP and expert DP, minimum GPUs M and the product.
#include <fmt/format.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "lint/knowledge/rank_layout.h"
#include "lint/reporters/json_range.h"
#include "lint/reporters/reporter.h"
#include "lint/reporters/text_wrap.h"
#include "lint/resolve/memory_model.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {

// The rules that read `key` (their declared keys): an unknown value keeps them from checking it.
std::vector<std::string> rules_reading(Key key) {
  std::vector<std::string> codes;
  for (const auto& rule : RuleRegistry::instance().rules())
    for (Key k : rule->info().reads)
      if (k == key) codes.emplace_back(rule->info().code);
  return codes;
}

nlohmann::ordered_json value_json(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kInt:
      return *v.as_int();
    case Value::Kind::kBool:
      return *v.as_bool();
    case Value::Kind::kString:
      return v.text();
    case Value::Kind::kList: {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const auto& i : v.items()) a.push_back(value_json(i));
      return a;
    }
    case Value::Kind::kNull:
    case Value::Kind::kUnknown:
      break;
  }
  return nullptr;
}

struct Derived {
  std::optional<std::int64_t> world, dp, edp, min_gpus, product, nodes, gpus_per_node;
};

Derived derive(const Job& job) {
  Derived d;
  d.world = job.get_int(Key::kWorldSize);
  d.nodes = job.get_int(Key::kNodes);
  if (!d.nodes) d.nodes = job.get_int(Key::kNnodes);
  d.gpus_per_node = job.get_int(Key::kGpusPerNode);
  if (auto mesh = job.mesh()) {
    d.min_gpus = min_world_size(*mesh);
    // On a dense model ETP only mirrors TP: the product people compute is PP·TP·CP·EP.
    MeshSizes product_mesh = *mesh;
    if (!job.is_moe()) product_mesh.etp = 1;
    d.product = product_world_size(product_mesh);
    if (d.world) {
      d.dp = data_parallel_size(*mesh, *d.world);
      d.edp = expert_data_parallel_size(*mesh, *d.world);
    }
  }
  return d;
}

nlohmann::ordered_json opt(const std::optional<std::int64_t>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// Where a value is written, for the plan's table: "line 12", "base.yaml:3", or nothing for a value given
// as a plan option (its spelling says it all).
std::string where_written(const Location& at, const std::string& job_path) {
  if (!at.in_file() || at.path == kCommandLinePath) return {};
  return at.path == job_path ? fmt::format("line {}", at.range.start.line)
                             : fmt::format("{}:{}", at.path, at.range.start.line);
}

// "micro_batch_size = 1 (not set; ...)"
std::string assumption_text(const AssumedInput& a) {
  return fmt::format("{} = {}: {}", key_name(a.key), a.value.to_string(), a.reason);
}

// The estimate with the distributed optimizer turned on, when the estimate assumed it off: the figure the
// job would see with --use-distributed-optimizer.
std::optional<MemoryEstimate> with_distributed_optimizer(const Job& job, const MemoryEstimate& mem) {
  for (const auto& a : mem.assumed)
    if (a.key == Key::kUseDistributedOptimizer && a.value.as_bool() == false)
      return estimate_memory_with_distributed_optimizer(job, true);
  return std::nullopt;
}

nlohmann::ordered_json smoke_test_json(const SmokeTest& t) {
  return {{"command", t.command},
          {"recipe", t.recipe},
          {"model", t.model},
          {"gpus", t.gpus},
          {"nodes", t.nodes},
          {"gpus_per_node", t.gpus_per_node},
          {"overrides", t.overrides},
          {"notes", t.notes},
          {"success", t.success},
          {"advisories", t.advisories},
          {"passed_over", t.passed_over}};
}

}  // namespace

std::vector<std::int64_t> scaling_worlds(const Job& job) {
  std::vector<std::int64_t> out;
  if (auto mesh = job.mesh()) {
    std::int64_t M = min_world_size(*mesh);
    for (std::int64_t k : {1, 2, 4}) out.push_back(k * M);
  }
  return out;
}

std::vector<GroupPlacement> placements(const Job& job) {
  auto mesh = job.mesh();
  auto world = job.get_int(Key::kWorldSize);
  auto gpn = job.get_int(Key::kGpusPerNode);
  if (!gpn) gpn = job.get_int(Key::kNprocPerNode);
  if (!gpn) gpn = job.nvlink_domain().size;
  if (!mesh || !world) return {};
  bool pp_last = !job.get_bool(Key::kUseTpPpDpMapping).value_or(false);
  return place_groups(*mesh, *world, *gpn, job.nvlink_domain().size, pp_last);
}

void report_plan_json(const PlanResult& plan, std::ostream& out) {
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
  for (std::size_t job_index = 0; job_index < plan.jobs.size(); ++job_index) {
    const auto& job = plan.jobs[job_index];
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < kKeyCount; ++i) {
      const Fact* f = job->fact(static_cast<Key>(i));
      if (!f) continue;
      nlohmann::ordered_json v = {{"value", value_json(f->value)}};
      if (f->value.is_unknown()) {
        v["unknown"] = f->value.unknown_reason();
        v["unchecked_by"] = rules_reading(static_cast<Key>(i));
      }
      v["path"] =
          f->location.in_file() ? nlohmann::ordered_json(f->location.path) : nlohmann::ordered_json(nullptr);
      v["range"] = f->location.in_file() ? range_json(f->location.range) : nlohmann::ordered_json(nullptr);
      v["origin"] = std::string(origin_name(f->origin));
      v["source"] = f->spelling;
      if (f->weak) v["weak"] = f->weak_note;
      if (!f->written_at.empty()) {
        nlohmann::ordered_json via = nlohmann::ordered_json::array();
        for (const auto& w : f->written_at)
          via.push_back(
              {{"path", w.location.path}, {"range", range_json(w.location.range)}, {"message", w.message}});
        v["via"] = via;
      }
      values[std::string(key_name(static_cast<Key>(i)))] = v;
    }
    Derived d = derive(*job);
    nlohmann::ordered_json notes = nlohmann::ordered_json::array();
    for (const auto& n : job->notes()) notes.push_back(n);
    jobs.push_back({{"path", job->path()},
                    {"range", range_json(job->range())},
                    {"description", job->description()},
                    {"framework", std::string(framework_id(job->framework()))},
                    {"values", values},
                    {"notes", notes},
                    {"derived",
                     {{"world_size", opt(d.world)},
                      {"nodes", opt(d.nodes)},
                      {"gpus_per_node", opt(d.gpus_per_node)},
                      {"data_parallel_size", opt(d.dp)},
                      {"expert_data_parallel_size", opt(d.edp)},
                      {"min_gpus", opt(d.min_gpus)},
                      {"product_gpus", opt(d.product)},
                      {"nvlink_domain", job->nvlink_domain().size}}}});
    nlohmann::ordered_json scaling = nlohmann::ordered_json::array();
    if (auto mesh = job->mesh())
      for (auto w : scaling_worlds(*job))
        scaling.push_back({{"world_size", w},
                           {"data_parallel_size", opt(data_parallel_size(*mesh, w))},
                           {"expert_data_parallel_size", opt(expert_data_parallel_size(*mesh, w))}});
    jobs.back()["derived"]["scaling"] = scaling;
    if (auto mem = estimate_memory_assuming(*job)) {
      jobs.back()["derived"]["memory_gib_per_gpu"] = mem->total_gib;
      nlohmann::ordered_json assumed = nlohmann::ordered_json::array();
      for (const auto& a : mem->assumed)
        assumed.push_back({{"key", std::string(key_name(a.key))},
                           {"value", value_json(a.value)},
                           {"framework", std::string(framework_id(a.framework))},
                           {"reason", a.reason}});
      jobs.back()["derived"]["memory_assumptions"] = assumed;
      nlohmann::ordered_json memory = {
          {"weights_optimizer_gib", mem->weights_optimizer_gib},
          {"weights_optimizer_min_gib", mem->weights_optimizer_min_gib},
          {"activations_gib", mem->activations_gib},
          {"total_gib", mem->total_gib},
          {"gpu_memory_gib", job->cluster().gpu_memory_gib > 0
                                 ? nlohmann::ordered_json(job->cluster().gpu_memory_gib)
                                 : nlohmann::ordered_json(nullptr)},
          {"terms", mem->terms},
          {"assumptions", mem->assumptions}};
      if (auto on = with_distributed_optimizer(*job, *mem))
        memory["with_distributed_optimizer_gib"] = on->total_gib;
      jobs.back()["derived"]["memory"] = memory;
    } else {
      jobs.back()["derived"]["memory_gib_per_gpu"] = nullptr;
      jobs.back()["derived"]["memory_assumptions"] = nlohmann::ordered_json::array();
      jobs.back()["derived"]["memory_unknown"] = memory_inputs_missing(*job);
    }
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const auto& g : placements(*job))
      groups.push_back({{"name", g.name},
                        {"size", g.size},
                        {"groups", g.groups},
                        {"crossing_nodes", g.crossing_nodes},
                        {"crossing_nvlink_domains", g.crossing_domains}});
    jobs.back()["derived"]["groups"] = groups;
    if (job_index < plan.smoke_tests.size()) {
      const SmokeTestResult& smoke = plan.smoke_tests[job_index];
      jobs.back()["derived"]["smoke_test"] =
          smoke.test ? smoke_test_json(*smoke.test) : nlohmann::ordered_json(nullptr);
      if (!smoke.test) jobs.back()["derived"]["smoke_test_unavailable"] = smoke.why_not;
    }
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    if (job_index < plan.findings.size())
      for (const auto& f : plan.findings[job_index])
        findings.push_back(
            {{"code", f.code}, {"severity", std::string(severity_name(f.severity))}, {"message", f.message}});
    jobs.back()["findings"] = findings;
  }
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const auto& e : plan.errors) errors.push_back({{"path", e.path}, {"message", e.message}});
  nlohmann::ordered_json doc = {{"version", 1}, {"jobs", jobs}, {"errors", errors}};
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

namespace {

// Where the value itself came from, when that is not where the setting is made: " <- TP=16 set here
// (line 5)", the assignments and branches it went through, nearest first, at most three.
std::string provenance(const Fact& f, const std::string& job_path) {
  constexpr std::size_t kShown = 3;
  std::string out;
  std::size_t shown = 0;
  for (const auto& w : f.written_at) {
    if (!w.location.in_file() || w.location.range == f.location.range) continue;
    if (shown++ == kShown) {
      out += ", ...";
      break;
    }
    std::string where = w.location.path == kCommandLinePath ? std::string("command line")
                        : w.location.path == job_path
                            ? fmt::format("line {}", w.location.range.start.line)
                            : fmt::format("{}:{}", w.location.path, w.location.range.start.line);
    out += fmt::format("{}{} ({})", shown == 1 ? " <- " : ", ", w.message, where);
  }
  return out;
}

}  // namespace

namespace {

// A line the plan text has broken itself (a table row at its source column, a shell command with " \"):
// the final pass writes it as it is. Control characters never come from input (escape_control).
constexpr char kWrapped = '\x01';

void write_wrapped(std::ostream& out, const std::string& lines) {
  std::string_view rest = lines;
  while (!rest.empty()) {
    auto nl = rest.find('\n');
    out << kWrapped << rest.substr(0, nl + 1);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
}

// Every line of `text` at most `width` columns: broken at spaces, continued two columns in from where it
// starts (so a "- " item or a finding reads as one block); lines the plan has broken itself pass as they are.
void write_within(std::string_view text, std::size_t width, std::ostream& out) {
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.front() == kWrapped) {
      out << line.substr(1) << '\n';
      continue;
    }
    std::size_t indent = line.find_first_not_of(' ');
    out << wrap_line(line, (indent == std::string_view::npos ? 0 : indent) + 2, width);
  }
}

void report_smoke_test(const SmokeTestResult& smoke, std::ostream& out, std::size_t width) {
  if (!smoke.test) {
    out << "  smoke test: none: " << escape_control(smoke.why_not) << "\n";
    return;
  }
  const SmokeTest& t = *smoke.test;
  out << fmt::format("  smoke test: {} ({}) on {} GPUs{}, 3 iterations:\n", t.recipe, t.model, t.gpus,
                     t.nodes > 1 ? fmt::format(" ({} nodes of {})", t.nodes, t.gpus_per_node) : "");
  write_wrapped(out, wrap_command("    " + t.command, 6, width));
  for (const auto& n : t.notes) out << "    - " << n << "\n";
  for (const auto& p : t.passed_over) out << "    - passed over " << escape_control(p) << "\n";
  for (const auto& a : t.advisories) out << "    - check still advises: " << escape_control(a) << "\n";
  out << "    success:\n";
  for (const auto& s : t.success) out << "      " << s << "\n";
}

}  // namespace

void report_plan_text(const PlanResult& plan, std::ostream& final_out, std::size_t width) {
  std::ostringstream out;
  for (const auto& job : plan.jobs) {
    std::string header = job->range().valid()
                             ? fmt::format("{}:{}:{}: ", escape_control(job->path()), job->range().start.line,
                                           job->range().start.column)
                             : std::string();
    out << fmt::format("{}{} ({})\n", header, escape_control(job->description()),
                       framework_display_name(job->framework()));
    // A model known to have no experts: the expert settings it does not write are defaults that mean
    // nothing for it (ETP inheriting TP, the router's top-k), and only clutter its plan.
    const bool dense = job->known_dense() && !job->is_moe();
    auto shown = [&](Key k, const Fact& f) {
      if (!dense || f.location.in_file()) return true;
      std::string_view name = key_name(k);
      return !(k == Key::kExpertTensorParallelSize || k == Key::kExpertModelParallelSize ||
               name.starts_with("moe_"));
    };
    // The key and value columns are as wide as the longest shown (a long value, such as a pipeline
    // layout, pushes its own row's source along); an unknown value's reason follows its source.
    constexpr std::size_t kValueCap = 8;
    std::size_t key_width = 0, value_width = 5;
    auto value_text = [](const Fact& f) {
      return f.value.is_unknown() ? std::string("unknown") : escape_control(f.value.to_string());
    };
    for (std::size_t i = 0; i < kKeyCount; ++i)
      if (const Fact* f = job->fact(static_cast<Key>(i)); f && shown(static_cast<Key>(i), *f)) {
        key_width = std::max(key_width, key_name(static_cast<Key>(i)).size());
        value_width = std::max(value_width, std::min(kValueCap, text_columns(value_text(*f))));
      }
    // Below 120 columns the long names (account_for_embedding_in_pipeline_split) push their own row
    // rather than every row's source, which then keeps about half of an 80-column line.
    if (width != 0 && width < 120) key_width = std::min<std::size_t>(key_width, 28);
    const std::size_t source_column = 2 + key_width + 1 + value_width + 1;
    for (std::size_t i = 0; i < kKeyCount; ++i) {
      const Fact* f = job->fact(static_cast<Key>(i));
      if (!f || !shown(static_cast<Key>(i), *f)) continue;
      std::string where = where_written(f->location, job->path());
      std::string value = value_text(*f);
      std::string source =
          fmt::format("{}{}{}{}", escape_control(f->spelling), where.empty() ? "" : " (" + where + ")",
                      escape_control(provenance(*f, job->path())), f->weak ? " [fallback]" : "");
      // An unknown value's reason after where it was written, or alone when it was not written anywhere.
      if (f->value.is_unknown())
        source += (source.empty() ? "" : ": ") + escape_control(f->value.unknown_reason());
      std::string head = fmt::format("  {:<{}} {}", key_name(static_cast<Key>(i)), key_width, value);
      // A name or value wider than its column pushes its own row's source along, one space after it.
      std::size_t used = text_columns(head);
      std::size_t pad = used + 1 < source_column ? source_column - used - 1 : 0;
      // Fewer than 24 columns left for the source: it goes under the row instead of beside it.
      if (width != 0 && source_column + 24 > width &&
          text_columns(head) + 1 + pad + text_columns(source) > width)
        write_wrapped(out, head + "\n" + wrap_line("      " + source, 6, width));
      else
        write_wrapped(out, wrap_line(head + std::string(pad + 1, ' ') + source, source_column, width));
    }
    for (std::size_t i = 0; i < kKeyCount; ++i) {
      const Fact* f = job->fact(static_cast<Key>(i));
      if (!f || !f->value.is_unknown()) continue;
      std::vector<std::string> codes = rules_reading(static_cast<Key>(i));
      if (codes.empty()) continue;
      std::string list;
      for (const auto& c : codes) list += (list.empty() ? "" : ", ") + c;
      out << fmt::format("  unchecked: {} is unknown, so {} cannot check it\n", key_name(static_cast<Key>(i)),
                         list);
    }
    for (const auto& n : job->notes()) out << "  note: " << escape_control(n) << "\n";
    Derived d = derive(*job);
    auto s = [](const std::optional<std::int64_t>& v) {
      return v ? std::to_string(*v) : std::string("unknown");
    };
    out << "  derived:\n";
    out << fmt::format("    world size: {}\n", s(d.world));
    if (auto mesh = job->mesh()) {
      std::int64_t M = min_world_size(*mesh), P = d.product.value_or(M);
      std::string w = d.world ? std::to_string(*d.world) : "W";
      out << fmt::format("    dense DP = W / (TP·PP·CP) = {} / ({}·{}·{}) = {}\n", w, mesh->tp, mesh->pp,
                         mesh->cp,
                         d.world ? (d.dp ? std::to_string(*d.dp) : "not a whole number") : "unknown");
      if (!dense)
        out << fmt::format("    expert DP = W / (PP·EP·ETP) = {} / ({}·{}·{}) = {}\n", w, mesh->pp, mesh->ep,
                           mesh->etp,
                           d.world ? (d.edp ? std::to_string(*d.edp) : "not a whole number") : "unknown");
      out << fmt::format("    minimum GPUs M = PP·lcm(TP·CP, EP·ETP) = {}·lcm({}, {}) = {}\n", mesh->pp,
                         mesh->tp * mesh->cp, mesh->ep * mesh->etp, M);
      if (P != M)
        out << fmt::format(
            "    product PP·TP·CP·EP·ETP = {} over-allocates {}x: the dense and expert meshes share each "
            "pipeline stage's GPUs\n",
            P, P / M);
      if (d.gpus_per_node && *d.gpus_per_node > 0)
        out << fmt::format("    nodes for M: {} of {} GPUs\n", (M + *d.gpus_per_node - 1) / *d.gpus_per_node,
                           *d.gpus_per_node);
      // The sizes the layout scales to, each with a DP the global batch takes (GBS divisible by MBS·DP,
      // PL503) when both are known.
      auto gbs = job->get_int(Key::kGlobalBatchSize), mbs = job->get_int(Key::kMicroBatchSize);
      std::string sizes, skipped;
      for (auto wv : scaling_worlds(*job)) {
        auto dp = data_parallel_size(*mesh, wv);
        if (dp && gbs && mbs && *mbs > 0 && *gbs % (*mbs * *dp) != 0) {
          skipped += (skipped.empty() ? "" : ", ") + std::to_string(wv);
          continue;
        }
        std::string entry = dense ? fmt::format("{} GPUs (DP {})", wv, s(dp))
                                  : fmt::format("{} GPUs (DP {}, expert DP {})", wv, s(dp),
                                                s(expert_data_parallel_size(*mesh, wv)));
        sizes += (sizes.empty() ? "" : "; ") + entry;
      }
      if (!sizes.empty()) out << "    scaling DP: " << sizes << "\n";
      if (!skipped.empty())
        out << fmt::format(
            "    not {} GPUs: global_batch_size {} is not divisible by micro_batch_size {} x DP there\n",
            skipped, *gbs, *mbs);
      auto sp = job->get_bool(Key::kSequenceParallel);
      if (sp && *sp)
        out << fmt::format("    sequence parallelism: {}\n", mesh->tp > 1
                                                                 ? "on, splitting activations across TP"
                                                                 : "requested but needs TP > 1 (PL201)");
      if (auto seq = job->get_int(Key::kSeqLength)) {
        if (mesh->cp > 1)
          out << fmt::format("    CP: seq_length {} {} divisible by 2·CP = {}; {} tokens per CP rank\n", *seq,
                             *seq % (2 * mesh->cp) == 0 ? "is" : "is NOT", 2 * mesh->cp, *seq / mesh->cp);
        if (*seq >= 32768 && mesh->cp < 4)
          out << "    long sequence: 32K tokens or more usually train with CP 4-8 (a2a+p2p for large CP)\n";
        else if (*seq >= 8192 && *seq < 32768 && mesh->cp == 1)
          out << "    long sequence: 8K-32K tokens usually train with CP=2\n";
      }
      int dom = job->nvlink_domain().size;
      out << fmt::format("    TP={} {} the {}-GPU NVLink domain ({})\n", mesh->tp,
                         mesh->tp <= dom ? "fits" : "does not fit", dom,
                         escape_control(job->nvlink_domain().source));
    }
    if (auto mem = estimate_memory_assuming(*job)) {
      const ClusterProfile& c = job->cluster();
      std::string assumed = mem->assumed.empty()
                                ? ""
                                : fmt::format(", with {} assumed input{}", mem->assumed.size(),
                                              mem->assumed.size() == 1 ? "" : "s");
      out << (c.gpu_memory_gib > 0
                  ? fmt::format("    memory per GPU: {:.1f} GiB of {:g} GiB{}\n", mem->total_gib,
                                c.gpu_memory_gib, assumed)
                  : fmt::format("    memory per GPU: {:.1f} GiB (the {} profile gives no GPU memory){}\n",
                                mem->total_gib, c.name, assumed));
      for (const auto& t : mem->terms) out << "      " << t << "\n";
      for (const auto& a : mem->assumed)
        out << "      assumed: " << escape_control(assumption_text(a)) << "\n";
      if (auto on = with_distributed_optimizer(*job, *mem))
        out << fmt::format(
            "      with the distributed optimizer: {:.1f} GiB ({:.1f} GiB of weights, gradients and "
            "optimizer state)\n",
            on->total_gib, on->weights_optimizer_gib);
      for (const auto& a : mem->assumptions) out << "      assumes: " << a << "\n";
      if (!mem->assumed.empty()) {
        // How to make them known: plan options for a plan from numbers, the settings for a file.
        bool options = job->path() == kCommandLinePath;
        std::string how;
        for (const auto& a : mem->assumed)
          how += (how.empty() ? "" : " and ") +
                 (!options ? std::string(key_name(a.key))
                  : a.key == Key::kMicroBatchSize
                      ? std::string("--mbs N")
                      : std::string("--distributed-optimizer or --no-distributed-optimizer"));
        out << "      (PL601 judges memory on known inputs only: " << (options ? "give " : "set ") << how
            << ")\n";
      }
    } else {
      std::string missing;
      for (const auto& m : memory_inputs_missing(*job)) missing += (missing.empty() ? "" : ", ") + m;
      out << "    memory per GPU: unknown (needs " << missing << ")\n";
    }
    for (const auto& g : placements(*job))
      out << fmt::format("    {} groups: {} of {} ranks; {} cross a node, {} cross an NVLink domain\n",
                         g.name, g.groups, g.size, g.crossing_nodes, g.crossing_domains);
    std::size_t index = static_cast<std::size_t>(&job - &plan.jobs[0]);
    if (index < plan.findings.size() && !plan.findings[index].empty()) {
      out << "  findings:\n";
      for (const auto& f : plan.findings[index])
        out << fmt::format("    {}[{}] {}\n", severity_name(f.severity), f.code, escape_control(f.message));
    }
    if (index < plan.smoke_tests.size()) report_smoke_test(plan.smoke_tests[index], out, width);
    out << "\n";
  }
  write_within(out.str(), width, final_out);
}

}  // namespace parlint
