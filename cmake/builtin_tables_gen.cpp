// Build-time generator: reads rules/data/{clusters,models,recipes,bridge_recipes,nemo_recipes}.yaml and
// writes them as C++ code that builds the tables directly, so that no run of parlint parses YAML before it
// can lint (parsing the cluster table alone was a quarter of linting one script). A malformed table fails the
// build here, with the file and the entry, instead of failing every run.
//
//   parlint_tablegen CLUSTERS.yaml MODELS.yaml RECIPES.yaml OUTPUT.cpp
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lint/knowledge/cluster_profile.h"
#include "lint/model/keys.h"
#include "lint/knowledge/model_table.h"

namespace {

using parlint::ClusterProfile;
using parlint::ModelInfo;
using parlint::RecipeInfo;

// ---- reading ---------------------------------------------------------------------------------------

std::int64_t get(const YAML::Node& n, const char* key, std::int64_t def = 0) {
  return n[key] ? n[key].as<std::int64_t>() : def;
}

std::optional<std::int64_t> opt(const YAML::Node& n, const char* key) {
  if (!n[key]) return std::nullopt;
  return n[key].as<std::int64_t>();
}

std::optional<bool> opt_bool(const YAML::Node& n, const char* key) {
  if (!n[key]) return std::nullopt;
  return n[key].as<bool>();
}

std::vector<ClusterProfile> read_clusters(const YAML::Node& root, std::size_t& default_index) {
  std::vector<ClusterProfile> out;
  std::string def = root["default"].as<std::string>();
  bool found = false;
  for (const auto& kv : root["profiles"]) {
    ClusterProfile c;
    c.name = kv.first.as<std::string>();
    c.gpus_per_node = kv.second["gpus_per_node"].as<int>();
    c.nvlink_domain = kv.second["nvlink_domain"].as<int>();
    // null: no public source gives it; 0 tells the memory rule and plan that it is not known.
    c.gpu_memory_gib = kv.second["gpu_memory_gib"].IsNull() ? 0 : kv.second["gpu_memory_gib"].as<double>();
    c.interconnect = kv.second["interconnect"].as<std::string>();
    c.gpu = kv.second["gpu"].as<std::string>();
    if (c.name == def) {
      default_index = out.size();
      found = true;
    }
    out.push_back(std::move(c));
  }
  if (out.empty()) throw std::runtime_error("no cluster profiles");
  if (!found) throw std::runtime_error("the default profile " + def + " is not in the table");
  return out;
}

std::vector<ModelInfo> read_models(const YAML::Node& root) {
  std::vector<ModelInfo> out;
  for (const auto& kv : root["models"]) {
    const YAML::Node& n = kv.second;
    ModelInfo m;
    m.key = kv.first.as<std::string>();
    m.name = n["name"].as<std::string>();
    if (!n["family"]) throw std::runtime_error("model " + m.key + ": no family");
    m.family = n["family"].as<std::string>();
    m.source = n["source"].as<std::string>();
    if (n["hf"])
      for (const auto& h : n["hf"]) m.hf.push_back(h.as<std::string>());
    m.layers = get(n, "layers");
    m.hidden = get(n, "hidden");
    m.ffn = get(n, "ffn");
    m.heads = get(n, "heads");
    m.groups = get(n, "groups", m.heads);
    m.kv_channels = get(n, "kv_channels");
    m.vocab = get(n, "vocab");
    m.seq = get(n, "seq");
    m.gated = n["gated"] ? n["gated"].as<bool>() : true;
    m.tied = n["tied"] ? n["tied"].as<bool>() : false;
    m.experts = get(n, "experts");
    m.topk = get(n, "topk");
    m.moe_ffn = get(n, "moe_ffn");
    m.shared = get(n, "shared");
    m.dense_layers = get(n, "dense_layers");
    m.moe_every = get(n, "moe_every", 1);
    if (n["mla"]) {
      m.mla = true;
      m.q_lora = get(n["mla"], "q_lora");
      m.kv_lora = get(n["mla"], "kv_lora");
      m.qk_nope = get(n["mla"], "qk_nope");
      m.qk_rope = get(n["mla"], "qk_rope");
      m.v_head = get(n["mla"], "v_head");
    }
    m.params_b = n["params_b"].as<double>();
    m.active_b = n["active_b"].as<double>();
    if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0)
      throw std::runtime_error("model " + m.key + ": layers, hidden and heads must be positive");
    out.push_back(std::move(m));
  }
  return out;
}

// The layout and batch fields both recipe tables write alike.
void read_layout(const YAML::Node& n, RecipeInfo& r) {
  r.tp = opt(n, "tp");
  r.pp = opt(n, "pp");
  r.vpp = opt(n, "vpp");
  r.cp = opt(n, "cp");
  r.ep = opt(n, "ep");
  r.etp = opt(n, "etp");
  r.seq = opt(n, "seq");
  r.gbs = opt(n, "gbs");
  r.mbs = opt(n, "mbs");
  r.sp = opt_bool(n, "sp");
}

// How a Megatron-Bridge recipe splits its layers over the pipeline stages (both Bridge tables).
void read_pipeline_split(const YAML::Node& n, RecipeInfo& r) {
  r.first_stage = opt(n, "first_stage");
  r.last_stage = opt(n, "last_stage");
  r.account_for_embedding = opt_bool(n, "account_for_embedding");
  r.account_for_loss = opt_bool(n, "account_for_loss");
}

void require_model(const RecipeInfo& r, const std::vector<ModelInfo>& models) {
  if (std::none_of(models.begin(), models.end(), [&](const ModelInfo& m) { return m.key == r.model; }))
    throw std::runtime_error("recipe " + r.function + ": model " + r.model + " is not in the table");
}

std::vector<RecipeInfo> read_recipes(const YAML::Node& root, const std::vector<ModelInfo>& models) {
  std::vector<RecipeInfo> out;
  for (const auto& n : root["recipes"]) {
    RecipeInfo r;
    if (n["alias"]) r.aliases.push_back(n["alias"].as<std::string>());
    r.function = n["function"].as<std::string>();
    r.package = "recipes";
    r.model = n["model"].as<std::string>();
    read_layout(n, r);
    read_pipeline_split(n, r);
    if (n["layout"]) r.layout = n["layout"].as<std::string>();
    if (n["cp_comm_type"]) r.cp_comm_type = n["cp_comm_type"].as<std::string>();
    require_model(r, models);
    out.push_back(std::move(r));
  }
  return out;
}

// The generated table of every Megatron-Bridge recipe function (scripts/gen_bridge_recipes.py). A library
// function the hand-checked table (recipes.yaml, with its model) already has keeps that row, which gains
// the generated legacy names.
std::vector<RecipeInfo> read_bridge_recipes(const YAML::Node& root, std::vector<RecipeInfo>& hand,
                                            const std::vector<ModelInfo>& models) {
  std::vector<RecipeInfo> out;
  for (const auto& n : root["bridge_recipes"]) {
    RecipeInfo r;
    r.function = n["function"].as<std::string>();
    r.package = n["package"].as<std::string>();
    if (r.package != "recipes" && r.package != "perf_recipes")
      throw std::runtime_error("recipe " + r.function + ": package must be recipes or perf_recipes");
    for (const auto& a : n["aliases"]) r.aliases.push_back(a.as<std::string>());
    if (n["layout_builder"]) {
      r.layout_builder = n["layout_builder"].as<std::string>();
      r.layout = "builder";
      for (const auto& pair : n["layout_pairs"]) {
        std::string t = pair.as<std::string>();  // "8x2"
        auto x = t.find('x');
        if (x == std::string::npos)
          throw std::runtime_error("recipe " + r.function + ": bad layout pair " + t);
        r.layout_pairs.emplace_back(std::stoll(t.substr(0, x)), std::stoll(t.substr(x + 1)));
      }
    }
    auto same = [&](const RecipeInfo& h) {
      return h.package == r.package &&
             (h.function == r.function ||
              std::find(h.aliases.begin(), h.aliases.end(), r.function) != h.aliases.end());
    };
    if (auto h = std::find_if(hand.begin(), hand.end(), same); h != hand.end()) {
      for (const auto& a : r.aliases)
        if (std::find(h->aliases.begin(), h->aliases.end(), a) == h->aliases.end()) h->aliases.push_back(a);
      if (!r.layout_builder.empty()) {
        h->layout_builder = r.layout_builder;
        h->layout_pairs = r.layout_pairs;
      }
      // The model settings the recipe writes itself (DeepSeek-V3's mtp_num_layers = 1), which the
      // hand-checked row does not list.
      for (const auto& w : n["written"]) {
        std::string name = w.first.as<std::string>();
        if (!parlint::key_from_name(name))
          throw std::runtime_error("recipe " + r.function + ": unknown setting " + name);
        auto known = [&](const auto& e) { return e.first == name; };
        if (std::none_of(h->written.begin(), h->written.end(), known))
          h->written.emplace_back(name, w.second.as<std::int64_t>());
      }
      continue;
    }
    // The model it loads; the benchmark recipe of a name the library defines too trains the same model.
    if (n["model"]) r.model = n["model"].as<std::string>();
    for (const auto& h : hand)
      if (h.function == r.function) r.model = h.model;
    if (!r.model.empty()) require_model(r, models);
    for (const auto& w : n["written"]) {
      std::string name = w.first.as<std::string>();
      if (!parlint::key_from_name(name))
        throw std::runtime_error("recipe " + r.function + ": unknown setting " + name);
      r.written.emplace_back(name, w.second.as<std::int64_t>());
    }
    read_layout(n, r);
    read_pipeline_split(n, r);
    r.distributed_optimizer = opt_bool(n, "distributed_optimizer");
    r.gpus = opt(n, "gpus");
    if (n["hardware"]) r.hardware = n["hardware"].as<std::string>();

    r.site = n["site"].as<std::string>();
    if (r.function.empty() || r.site.empty())
      throw std::runtime_error("a Megatron-Bridge recipe needs its function and site");
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<RecipeInfo> read_nemo_recipes(const YAML::Node& root) {
  std::vector<RecipeInfo> out;
  for (const auto& n : root["nemo_recipes"]) {
    RecipeInfo r;
    r.module = n["module"].as<std::string>();
    r.function = n["function"].as<std::string>();
    read_layout(n, r);
    r.nodes = opt(n, "nodes");
    r.gpus_per_node = opt(n, "gpus_per_node");
    r.distributed_optimizer = opt_bool(n, "distributed_optimizer");
    for (const auto& p : n["varies_with"]) r.varies_with.push_back(p.as<std::string>());
    r.site = n["site"].as<std::string>();
    if (r.module.empty() || r.function.empty())
      throw std::runtime_error("a NeMo 2 recipe needs its module and function");
    out.push_back(std::move(r));
  }
  return out;
}

// ---- writing ---------------------------------------------------------------------------------------

// A C++ string literal; octal escapes (at most three digits) cannot run into the next character.
std::string literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string number(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

void write_clusters(std::ostream& o, const std::vector<ClusterProfile>& list, std::size_t default_index) {
  o << "BuiltinClusterProfiles generated_cluster_profiles() {\n  BuiltinClusterProfiles t;\n"
    << "  t.default_index = " << default_index << ";\n";
  for (const auto& c : list) {
    o << "  {\n    ClusterProfile c;\n"
      << "    c.name = " << literal(c.name) << ";\n"
      << "    c.gpus_per_node = " << c.gpus_per_node << ";\n"
      << "    c.nvlink_domain = " << c.nvlink_domain << ";\n"
      << "    c.gpu_memory_gib = " << number(c.gpu_memory_gib) << ";\n"
      << "    c.interconnect = " << literal(c.interconnect) << ";\n"
      << "    c.gpu = " << literal(c.gpu) << ";\n"
      << "    t.list.push_back(std::move(c));\n  }\n";
  }
  o << "  return t;\n}\n\n";
}

void write_models(std::ostream& o, const std::vector<ModelInfo>& models) {
  o << "std::vector<ModelInfo> generated_models() {\n  std::vector<ModelInfo> v;\n"
    << "  v.reserve(" << models.size() << ");\n";
  for (const auto& m : models) {
    o << "  {\n    ModelInfo m;\n"
      << "    m.key = " << literal(m.key) << ";\n"
      << "    m.name = " << literal(m.name) << ";\n"
      << "    m.family = " << literal(m.family) << ";\n"
      << "    m.source = " << literal(m.source) << ";\n";
    for (const auto& h : m.hf) o << "    m.hf.push_back(" << literal(h) << ");\n";
    o << "    m.layers = " << m.layers << ";\n"
      << "    m.hidden = " << m.hidden << ";\n"
      << "    m.ffn = " << m.ffn << ";\n"
      << "    m.heads = " << m.heads << ";\n"
      << "    m.groups = " << m.groups << ";\n"
      << "    m.kv_channels = " << m.kv_channels << ";\n"
      << "    m.vocab = " << m.vocab << ";\n"
      << "    m.seq = " << m.seq << ";\n"
      << "    m.gated = " << (m.gated ? "true" : "false") << ";\n"
      << "    m.tied = " << (m.tied ? "true" : "false") << ";\n"
      << "    m.experts = " << m.experts << ";\n"
      << "    m.topk = " << m.topk << ";\n"
      << "    m.moe_ffn = " << m.moe_ffn << ";\n"
      << "    m.shared = " << m.shared << ";\n"
      << "    m.dense_layers = " << m.dense_layers << ";\n"
      << "    m.moe_every = " << m.moe_every << ";\n"
      << "    m.mla = " << (m.mla ? "true" : "false") << ";\n"
      << "    m.q_lora = " << m.q_lora << ";\n"
      << "    m.kv_lora = " << m.kv_lora << ";\n"
      << "    m.qk_nope = " << m.qk_nope << ";\n"
      << "    m.qk_rope = " << m.qk_rope << ";\n"
      << "    m.v_head = " << m.v_head << ";\n"
      << "    m.params_b = " << number(m.params_b) << ";\n"
      << "    m.active_b = " << number(m.active_b) << ";\n"
      << "    v.push_back(std::move(m));\n  }\n";
  }
  o << "  return v;\n}\n\n";
}

// The recipes as one constant array of plain rows and a loop that builds the table from it: a
// statement per field of each of the ~900 rows took GCC over three minutes to compile.
void write_recipes(std::ostream& o, const std::vector<RecipeInfo>& recipes) {
  auto num = [](const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) + "LL" : std::string("kNoValue");
  };
  auto flag = [](const std::optional<bool>& v) { return v ? (*v ? "1" : "0") : "-1"; };
  o << "namespace {\n\n"
    << "constexpr std::int64_t kNoValue = INT64_MIN;\n"
    << "struct RecipeRow {\n"
    << "  const char *function, *model, *package;\n"
    << "  const char* aliases;  // names, each followed by ','\n"
    << "  std::int64_t tp, pp, vpp, cp, ep, etp, seq, gbs, mbs, first_stage, last_stage;\n"
    << "  signed char sp, account_for_embedding, account_for_loss;  // -1: not set\n"
    << "  const char *layout, *cp_comm_type, *module;\n"
    << "  std::int64_t nodes, gpus_per_node;\n"
    << "  signed char distributed_optimizer;\n"
    << "  const char* site;\n"
    << "  const char* varies_with;  // names, each followed by ','\n"
    << "  const char* written;      // name=value, each followed by ','\n"
    << "  const char* layout_builder;\n"
    << "  const char* layout_pairs;  // PPxVP, each followed by ','\n"
    << "  std::int64_t gpus;\n"
    << "  const char* hardware;\n"
    << "};\n\n"
    << "constexpr RecipeRow kRecipeRows[] = {\n";
  for (const auto& r : recipes) {
    std::string varies, aliases, written;
    for (const auto& p : r.varies_with) varies += p + ",";
    for (const auto& [name, value] : r.written) written += name + "=" + std::to_string(value) + ",";
    std::string pairs;
    for (const auto& [pp, vp] : r.layout_pairs) pairs += std::to_string(pp) + "x" + std::to_string(vp) + ",";
    for (const auto& a : r.aliases) aliases += a + ",";
    o << "    {" << literal(r.function) << ", " << literal(r.model) << ", " << literal(r.package) << ", "
      << literal(aliases) << ", " << num(r.tp) << ", " << num(r.pp) << ", " << num(r.vpp) << ", " << num(r.cp)
      << ", " << num(r.ep) << ", " << num(r.etp) << ", " << num(r.seq) << ", " << num(r.gbs) << ", "
      << num(r.mbs) << ", " << num(r.first_stage) << ", " << num(r.last_stage) << ", " << flag(r.sp) << ", "
      << flag(r.account_for_embedding) << ", " << flag(r.account_for_loss) << ", " << literal(r.layout)
      << ", " << literal(r.cp_comm_type) << ", " << literal(r.module) << ", " << num(r.nodes) << ", "
      << num(r.gpus_per_node) << ", " << flag(r.distributed_optimizer) << ", " << literal(r.site) << ", "
      << literal(varies) << ", " << literal(written) << ", " << literal(r.layout_builder) << ", "
      << literal(pairs) << ", " << num(r.gpus) << ", " << literal(r.hardware) << "},\n";
  }
  o << "};\n\n"
    << "std::optional<std::int64_t> value_of(std::int64_t v) {\n"
    << "  return v == kNoValue ? std::nullopt : std::optional<std::int64_t>(v);\n}\n"
    << "std::optional<bool> flag_of(signed char v) {\n"
    << "  return v < 0 ? std::nullopt : std::optional<bool>(v != 0);\n}\n"
    << "void split_names(std::string_view rest, std::vector<std::string>& out) {\n"
    << "  while (!rest.empty()) {\n"
    << "    auto comma = rest.find(',');\n"
    << "    out.emplace_back(rest.substr(0, comma));\n"
    << "    rest.remove_prefix(comma + 1);\n"
    << "  }\n}\n\n"
    << "}  // namespace\n\n"
    << "std::vector<RecipeInfo> generated_recipes() {\n"
    << "  std::vector<RecipeInfo> v;\n"
    << "  v.reserve(std::size(kRecipeRows));\n"
    << "  for (const RecipeRow& row : kRecipeRows) {\n"
    << "    RecipeInfo r;\n"
    << "    r.function = row.function;\n    r.model = row.model;\n    r.package = row.package;\n"
    << "    r.tp = value_of(row.tp);\n    r.pp = value_of(row.pp);\n    r.vpp = value_of(row.vpp);\n"
    << "    r.cp = value_of(row.cp);\n    r.ep = value_of(row.ep);\n    r.etp = value_of(row.etp);\n"
    << "    r.seq = value_of(row.seq);\n    r.gbs = value_of(row.gbs);\n    r.mbs = value_of(row.mbs);\n"
    << "    r.first_stage = value_of(row.first_stage);\n    r.last_stage = value_of(row.last_stage);\n"
    << "    r.sp = flag_of(row.sp);\n    r.account_for_embedding = flag_of(row.account_for_embedding);\n"
    << "    r.account_for_loss = flag_of(row.account_for_loss);\n"
    << "    r.layout = row.layout;\n    r.cp_comm_type = row.cp_comm_type;\n    r.module = row.module;\n"
    << "    r.nodes = value_of(row.nodes);\n    r.gpus_per_node = value_of(row.gpus_per_node);\n"
    << "    r.distributed_optimizer = flag_of(row.distributed_optimizer);\n    r.site = row.site;\n"
    << "    split_names(row.varies_with, r.varies_with);\n"
    << "    split_names(row.aliases, r.aliases);\n"
    << "    r.gpus = value_of(row.gpus);\n    r.hardware = row.hardware;\n"
    << "    r.layout_builder = row.layout_builder;\n"
    << "    std::vector<std::string> pairs;\n"
    << "    split_names(row.layout_pairs, pairs);\n"
    << "    for (const auto& p : pairs)\n"
    << "      r.layout_pairs.emplace_back(std::stoll(p.substr(0, p.find('x'))), "
       "std::stoll(p.substr(p.find('x') + 1)));\n"
    << "    std::vector<std::string> written;\n"
    << "    split_names(row.written, written);\n"
    << "    for (const auto& w : written)\n"
    << "      r.written.emplace_back(w.substr(0, w.find('=')), std::stoll(w.substr(w.find('=') + 1)));\n"
    << "    v.push_back(std::move(r));\n"
    << "  }\n"
    << "  return v;\n}\n";
}

YAML::Node load(const char* path) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string(path) + ": " + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: %s CLUSTERS.yaml MODELS.yaml RECIPES.yaml BRIDGE_RECIPES.yaml NEMO_RECIPES.yaml "
                 "OUTPUT.cpp\n",
                 argv[0]);
    return 2;
  }
  std::ostringstream code;
  const char* reading = argv[1];
  try {
    std::size_t default_index = 0;
    auto clusters = read_clusters(load(argv[1]), default_index);
    reading = argv[2];
    auto models = read_models(load(argv[2]));
    reading = argv[3];
    auto recipes = read_recipes(load(argv[3]), models);
    reading = argv[4];
    auto bridge = read_bridge_recipes(load(argv[4]), recipes, models);
    reading = argv[5];
    auto nemo = read_nemo_recipes(load(argv[5]));
    recipes.insert(recipes.end(), bridge.begin(), bridge.end());
    recipes.insert(recipes.end(), nemo.begin(), nemo.end());
    code << "// Generated by cmake/builtin_tables_gen.cpp from rules/data/*.yaml; do not edit.\n"
         << "#include \"lint/knowledge/builtin_tables.h\"\n\n#include <climits>\n#include <cstdint>\n#include "
            "<iterator>\n"
         << "#include <optional>\n#include <string_view>\n\nnamespace parlint {\n\n";
    write_clusters(code, clusters, default_index);
    write_models(code, models);
    write_recipes(code, recipes);
    code << "\n}  // namespace parlint\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parlint_tablegen: %s: %s\n", reading, e.what());
    return 1;
  }
  std::ofstream out(argv[6], std::ios::binary);
  out << code.str();
  if (!out.flush()) {
    std::fprintf(stderr, "parlint_tablegen: cannot write %s\n", argv[6]);
    return 1;
  }
  return 0;
}
