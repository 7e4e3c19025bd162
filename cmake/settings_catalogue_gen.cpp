// Build-time generator: rules/data/settings_catalogue.tsv (the real setting names of each framework, made
// by scripts/gen_settings_catalogue.py from the frameworks' sources) becomes two sorted C++ tables of
// normalised names — flags of training entry points, flags of tools (converters, preprocessing, scripts)
// and configuration keys — that PL801 looks names up in.
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

// `--foo-bar`, `-tp`, `foo-bar` and `foo_bar` are one name: dashes stripped in front, the rest `_`.
std::string normalise(std::string name) {
  std::size_t lead = name.find_first_not_of('-');
  name = lead == std::string::npos ? std::string() : name.substr(lead);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, '\t')) out.push_back(cell);
  return out;
}

void write_table(std::ostream& out, const char* name, const std::set<std::string>& names) {
  // The extern declarations give the tables external linkage. constexpr with explicit lengths makes them
  // constant data: as a run-time initialised array of 10,000 string_views the file took 27 s to compile
  // (GCC 12, -O2), this way under one.
  out << "extern const std::string_view " << name << "[];\nextern const std::size_t " << name << "_size;\n";
  out << "constexpr std::string_view " << name << "[] = {\n";
  for (const auto& n : names) out << "    {\"" << n << "\", " << n.size() << "},\n";
  out << "};\nconst std::size_t " << name << "_size = " << names.size() << ";\n\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: settings_catalogue_gen CATALOGUE.tsv OUT.cpp\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << argv[1] << ": cannot read\n";
    return 1;
  }
  std::set<std::string> flags, tool_flags, keys;
  std::string line;
  int line_no = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    auto cells = split(line);
    if (!header) {
      header = true;
      if (cells.size() < 3 || cells[0] != "framework" || cells[1] != "syntax" || cells[2] != "name") {
        std::cerr << argv[1] << ":" << line_no << ": expected the header framework/syntax/name/source\n";
        return 1;
      }
      continue;
    }
    if (cells.size() < 4) {
      std::cerr << argv[1] << ":" << line_no << ": a row needs framework, syntax, name and source\n";
      return 1;
    }
    const std::string& syntax = cells[1];
    std::string name = cells[2];
    for (char c : name)
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
        std::cerr << argv[1] << ":" << line_no << ": a name with a quote, backslash or control byte\n";
        return 1;
      }
    if (syntax == "flag") {
      flags.insert(normalise(name));
    } else if (syntax == "tool-flag") {
      tool_flags.insert(normalise(name));
    } else if (syntax == "dest") {  // the flag's attribute: YAML configs of flags use it as a key
      flags.insert(normalise(name));
      keys.insert(normalise(name));
    } else if (syntax == "field-path" || syntax == "key-path") {
      keys.insert(normalise(name.substr(name.rfind('.') + 1)));
    } else if (syntax == "field" || syntax == "arg" || syntax == "key" || syntax == "private-field" ||
               syntax == "section") {
      keys.insert(normalise(name));
    } else {
      std::cerr << argv[1] << ":" << line_no << ": unknown syntax '" << syntax << "'\n";
      return 1;
    }
  }
  std::ofstream out(argv[2]);
  out << "// Generated from rules/data/settings_catalogue.tsv by cmake/settings_catalogue_gen.cpp.\n"
         "#include <cstddef>\n#include <string_view>\n\nnamespace parlint::generated {\n\n";
  write_table(out, "kRealFlagNames", flags);
  write_table(out, "kRealToolFlagNames", tool_flags);
  write_table(out, "kRealKeyNames", keys);
  out << "}  // namespace parlint::generated\n";
  return out ? 0 : 1;
}
