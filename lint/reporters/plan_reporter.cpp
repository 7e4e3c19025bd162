// `parlint plan`: every resolved value of each job with where it came from (or why it is unknown),
// and the derived layout: world size, DP and expert DP, minimum GPUs M and the product.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "lint/reporters/reporter.h"

namespace parlint {
namespace {

nlohmann::ordered_json range_json(const SourceRange& r) {
  return {{"start", {{"line", r.start.line}, {"column", r.start.column}}},
          {"end", {{"line", r.end.line}, {"column", r.end.column}}}};
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
    d.product = product_world_size(*mesh);
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

}  // namespace

void report_plan_json(const PlanResult& plan, std::ostream& out) {
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
  for (const auto& job : plan.jobs) {
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < kKeyCount; ++i) {
      const Fact* f = job->fact(static_cast<Key>(i));
      if (!f) continue;
      nlohmann::ordered_json v = {{"value", value_json(f->value)}};
      if (f->value.is_unknown()) v["unknown"] = f->value.unknown_reason();
      v["path"] =
          f->location.in_file() ? nlohmann::ordered_json(f->location.path) : nlohmann::ordered_json(nullptr);
      v["range"] = f->location.in_file() ? range_json(f->location.range) : nlohmann::ordered_json(nullptr);
      v["origin"] = std::string(origin_name(f->origin));
      v["source"] = f->spelling;
      if (f->weak) v["weak"] = f->weak_note;
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
  }
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const auto& e : plan.errors) errors.push_back({{"path", e.path}, {"message", e.message}});
  nlohmann::ordered_json doc = {{"version", 1}, {"jobs", jobs}, {"errors", errors}};
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

void report_plan_text(const PlanResult& plan, std::ostream& out) {
  for (const auto& job : plan.jobs) {
    out << fmt::format("{}:{}:{}: {} ({})\n", escape_control(job->path()), job->range().start.line,
                       job->range().start.column, escape_control(job->description()),
                       framework_display_name(job->framework()));
    for (std::size_t i = 0; i < kKeyCount; ++i) {
      const Fact* f = job->fact(static_cast<Key>(i));
      if (!f) continue;
      std::string where;
      if (f->location.in_file())
        where = f->location.path == job->path()
                    ? fmt::format("line {}", f->location.range.start.line)
                    : fmt::format("{}:{}", f->location.path, f->location.range.start.line);
      std::string value =
          f->value.is_unknown() ? "unknown: " + f->value.unknown_reason() : f->value.to_string();
      out << fmt::format("  {:<38} {:<12} {}{}{}\n", key_name(static_cast<Key>(i)), escape_control(value),
                         escape_control(f->spelling), where.empty() ? "" : " (" + where + ")",
                         f->weak ? " [fallback]" : "");
    }
    for (const auto& n : job->notes()) out << "  note: " << escape_control(n) << "\n";
    Derived d = derive(*job);
    auto s = [](const std::optional<std::int64_t>& v) {
      return v ? std::to_string(*v) : std::string("unknown");
    };
    out << fmt::format(
        "  derived: world size {}, DP {}, expert DP {}, minimum GPUs M = PP·lcm(TP·CP, EP·ETP) = {}, "
        "product PP·TP·CP·EP·ETP = {}, NVLink domain {} ({})\n\n",
        s(d.world), s(d.dp), s(d.edp), s(d.min_gpus), s(d.product), job->nvlink_domain().size,
        job->nvlink_domain().source);
  }
}

}  // namespace parlint
