#include "lint/model/closest_name.h"

#include <algorithm>
#include <cctype>

namespace parlint {

std::size_t spelling_distance(std::string_view a, std::string_view b) {
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  // Optimal string alignment: three rows of the Levenshtein table, plus a swap of two neighbours.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& names) {
  std::size_t allowed = word.size() <= 4 ? 1 : std::max<std::size_t>(2, word.size() / 4);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& name : names) {
    std::size_t d = spelling_distance(word, name);
    if (d < best_distance && word != name) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& names) {
  auto near = closest_name(word, names);
  return near ? " (did you mean '" + *near + "'?)" : "";
}

}  // namespace parlint
