// The `[tool.parlint]` table of a pyproject.toml, read with toml++ (header-only and slow to compile:
// this is the one translation unit that includes it) into the tree lint/engine/config.cpp checks.
#define TOML_ENABLE_FORMATTERS 0  // parlint only reads TOML
#define TOML_ENABLE_WINDOWS_COMPAT 0
#include <fmt/format.h>

#include <toml++/toml.h>

#include "lint/engine/config_tree.h"

namespace parlint {
namespace {

int line_of(const toml::source_region& r) {
  return static_cast<int>(r.begin.line);
}

ConfigNode convert(const toml::node& n) {
  ConfigNode out;
  out.line = line_of(n.source());
  if (const toml::table* t = n.as_table()) {
    out.kind = ConfigNode::Kind::kMap;
    for (const auto& [key, value] : *t) {
      ConfigNode k;
      k.kind = ConfigNode::Kind::kScalar;
      k.scalar = std::string(key.str());
      k.line = line_of(key.source());
      if (k.line == 0) k.line = line_of(value.source());
      out.entries.push_back(ConfigEntry{std::move(k), convert(value)});
    }
  } else if (const toml::array* a = n.as_array()) {
    out.kind = ConfigNode::Kind::kSequence;
    for (const toml::node& item : *a) out.items.push_back(convert(item));
  } else {
    out.kind = ConfigNode::Kind::kScalar;
    if (auto s = n.value<std::string>(); s && n.is_string())
      out.scalar = *s;
    else if (const auto* i = n.as_integer())
      out.scalar = std::to_string(i->get());
    else if (const auto* f = n.as_floating_point())
      out.scalar = fmt::format("{}", f->get());
    else if (const auto* b = n.as_boolean())
      out.scalar = b->get() ? "true" : "false";
    else
      out.scalar = "(a TOML date or time)";  // no configuration value is one: the checks refuse it
  }
  return out;
}

}  // namespace

Expected<std::optional<ConfigNode>, std::string> pyproject_parlint_table(const std::string& text,
                                                                         const std::string& path) {
  // toml++ 3.3 (Debian 12) reaches __builtin_unreachable() in its Unicode whitespace test for some
  // non-ASCII characters between tokens (found by the config fuzz target: undefined behaviour). parlint's
  // settings are ASCII, so each non-ASCII character is read as '?': lines stay where they are, strings stay
  // strings, and a glob's '?' still stands for one character.
  std::string ascii;
  ascii.reserve(text.size());
  for (unsigned char c : text) {
    if (c < 0x80)
      ascii += static_cast<char>(c);
    else if ((c & 0xC0) != 0x80)
      ascii += '?';  // the first byte of a UTF-8 sequence (or a stray byte)
  }
  toml::table root;
  try {
    root = toml::parse(ascii, path);
  } catch (const toml::parse_error& e) {
    return Unexpected(fmt::format("{}:{}: invalid TOML: {}", path, e.source().begin.line, e.description()));
  }
  const toml::table* tool = root["tool"].as_table();
  if (!tool) return std::optional<ConfigNode>();
  const toml::node* parlint = tool->get("parlint");
  if (!parlint) return std::optional<ConfigNode>();
  if (!parlint->is_table())
    return Unexpected(fmt::format("{}:{}: tool.parlint must be a table ([tool.parlint])", path,
                                  line_of(parlint->source())));
  return std::optional<ConfigNode>(convert(*parlint));
}

}  // namespace parlint
