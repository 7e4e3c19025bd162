#include "parsers/args/named_settings.h"

#include "lint/model/setting_list.h"
#include "parsers/args/argument_words.h"

namespace parlint {

TrainingArgs read_named_settings(std::span<const NamedSetting> settings) {
  TrainingArgs out;
  SettingList list;
  for (const NamedSetting& s : settings) {
    std::vector<std::string> path = dotted_path(s.path);
    out.hydra_overrides = true;
    auto match = match_config_path(path);
    if (!match) {
      out.unrecognized.push_back({s.spelling, s.word->location, false});
      continue;
    }
    if (path.size() >= 2 && path[path.size() - 2] == "trainer") out.lightning_trainer = true;
    Fact f = argument_fact(match->key, word_value(*s.word, s.value, key_type(match->key), match->inverted),
                           s.word->location, Origin::kOverride, s.spelling, *s.word);
    f.priority = match->priority;
    list.add(std::move(f), SettingList::Source::kWritten);
  }
  out.conflicts = list.take_conflicts();
  out.facts = list.take_facts();
  return out;
}

}  // namespace parlint
