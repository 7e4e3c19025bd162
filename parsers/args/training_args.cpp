#include "parsers/args/training_args.h"

#include <cctype>

#include "lint/model/setting_list.h"
#include "parsers/args/argument_words.h"
#include "parsers/args/hydra_overrides.h"
#include "parsers/args/megatron_flags.h"
#include "parsers/shell/shell_text.h"

namespace parlint {

// A word whose known text puts a blank before its run-time part was quoted (an unquoted blank would have
// split it): it stays one word, and one that does not start with `-` is a value, never a flag.
static bool quoted_value(std::string_view t) {
  if (t.empty() || t[0] == '-' || t[0] == kUnknownByte) return false;
  auto blank = t.find(' ');
  return blank != std::string_view::npos && blank < t.find(kUnknownByte);
}

TrainingArgs parse_training_args(std::span<const Word> words) {
  TrainingArgs out;
  ArgumentFacts facts;
  std::size_t passed_on = 0;  // unrecognized settings before a bare `--`
  bool after_separator = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string_view t = words[i].text;
    // `script.py OPTIONS -- ARGS`: what follows `--` is the script's to pass on to another program
    // (a wrapper that launches the trainer), not options of its own.
    if (t == "--" && !words[i].unknown && !after_separator) {
      after_separator = true;
      passed_on = out.unrecognized.size();
      continue;
    }
    if (t.size() > 1 && t[0] == '-' && !std::isdigit(static_cast<unsigned char>(t[1]))) {
      i = read_option(words, i, out, facts);
      continue;
    }
    // A run-time word that no option took as its value may hold any flags (key=<run-time> does not, nor
    // does a quoted word that starts with text of its own: "VALID_AR: 1 0.6:0.8 $DATA_AR" is one value).
    if (words[i].unknown && t.find('=') == std::string_view::npos && !quoted_value(t)) {
      if (out.arguments_complete) out.unread_argument = words[i];
      out.arguments_complete = false;
    }
    read_override(words[i], out, facts);
  }
  if (after_separator) {
    out.unrecognized.resize(passed_on);
  }
  if (facts.config_name) {
    Word f = *facts.config_name;
    std::string dir = facts.config_path ? facts.config_path->text : std::string(".");
    f.text = dir + "/" + f.text;
    out.config_files.push_back(std::move(f));
  }
  // Trailing key=value overrides win over shorthands (run_recipe.py appends them last).
  SettingList settings;
  for (auto* group : {&facts.shorthands, &facts.flags, &facts.overrides})
    for (auto& f : *group) settings.add(std::move(f), SettingList::Source::kWritten);
  out.conflicts = settings.take_conflicts();
  out.facts = settings.take_facts();
  return out;
}

}  // namespace parlint
