#include "lint/engine/suppressions.h"

#include <re2/re2.h>

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "lint/engine/rule_selection.h"
#include "rules/api/rule.h"

namespace parlint {
namespace {

// `# parlint: ignore[PL201, sp-without-tp] -- reason` and `# parlint: disable=PL201`.
const RE2& directive() {
  static const RE2 re(
      R"(#\s*parlint:\s*(ignore|disable|enable|file-ignore)\s*(?:\[([^\]]*)\]|=\s*([A-Za-z0-9_,\s-]+?))\s*(?:--\s*(.*?))?\s*$)");
  return re;
}

}  // namespace

bool blank_or_comment_line(std::string_view line) {
  auto p = line.find_first_not_of(" \t");
  return p == std::string_view::npos || line[p] == '#';
}

std::optional<SuppressionComment> find_suppression_comment(std::string_view text) {
  auto hash = text.find("parlint:");
  if (hash == std::string_view::npos) return std::nullopt;
  hash = text.rfind('#', hash);
  if (hash == std::string_view::npos) return std::nullopt;
  std::string_view tail = text.substr(hash);
  re2::StringPiece kind, bracket, equals, reason;  // an unmatched group has a null data()
  if (!RE2::PartialMatch(tail, directive(), &kind, &bracket, &equals, &reason)) return std::nullopt;
  SuppressionComment c;
  c.kind = std::string(kind);
  c.bracket = bracket.data() != nullptr;
  re2::StringPiece list = c.bracket ? bracket : equals;
  c.list = std::string(list);
  c.reason = std::string(reason);
  c.hash = hash;
  std::size_t end = static_cast<std::size_t>(list.data() - text.data()) + list.size();
  while (end > 0 && c.bracket && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  c.list_end = end;
  c.own_line = text.substr(0, hash).find_first_not_of(" \t") == std::string_view::npos;
  return c;
}

Suppressions::Suppressions(const std::string& path, const SourceText& source) {
  std::map<std::string, std::vector<std::tuple<int, Location, std::string>>> open;  // code -> disables
  for (int line = 1; line <= source.line_count(); ++line) {
    std::string_view text = source.line(line);
    auto comment = find_suppression_comment(text);
    if (!comment) continue;
    const std::string& kind = comment->kind;
    const std::string& reason = comment->reason;
    std::size_t hash = comment->hash;
    Location where{path, {source.position(line, hash), source.position(line, text.size())}};
    std::vector<std::string> codes, items;
    const std::string& list = comment->list;
    for (const auto& item : split_list({list})) {
      const Rule* r = RuleRegistry::instance().find(item);
      if (!r) {
        bad_.push_back({item, where});
        continue;
      }
      codes.emplace_back(r->info().code);
      items.push_back(item);
    }
    bool own_line = comment->own_line;
    Location removal = where;
    if (own_line) {
      removal.range.start = {line, 1};
      removal.range.end = line < source.line_count() ? SourcePosition{line + 1, 1} : where.range.end;
    } else {
      std::size_t before = hash;
      while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
      removal.range.start = source.position(line, before);
    }
    if (kind == "enable") {
      for (const auto& c : codes) {
        auto& stack = open[c];
        if (stack.empty()) continue;
        auto [start, loc, why] = stack.back();
        stack.pop_back();
        entries_.push_back({Entry::kRange, {c}, start, line, loc, {false}, why, {}, {}, {}});
      }
      continue;
    }
    if (codes.empty()) continue;
    if (kind == "disable") {
      for (const auto& c : codes) open[c].push_back({line, where, reason});
      continue;
    }
    if (kind == "file-ignore") {
      entries_.push_back({Entry::kFile, codes, 1, INT_MAX, where, std::vector<bool>(codes.size(), false),
                          reason, kind, items, removal});
      continue;
    }
    int target = line;
    if (own_line) {
      // The next line that is not blank and not a comment.
      target = line + 1;
      while (target <= source.line_count() && blank_or_comment_line(source.line(target))) ++target;
    }
    entries_.push_back({Entry::kLine, codes, target, target, where, std::vector<bool>(codes.size(), false),
                        reason, kind, items, removal});
  }
  for (auto& [code, stack] : open)
    for (auto& [start, loc, why] : stack)
      entries_.push_back({Entry::kRange, {code}, start, INT_MAX, loc, {false}, why, {}, {}, {}});
}

std::optional<SuppressedBy> Suppressions::suppresses(const Diagnostic& d) {
  std::optional<SuppressedBy> hit;
  int line = d.location.range.start.line;
  for (auto& e : entries_) {
    if (line < e.first_line || line > e.last_line) continue;
    for (std::size_t i = 0; i < e.codes.size(); ++i)
      if (e.codes[i] == d.code) {
        e.used[i] = true;  // every covering comment counts as used, not only the first
        if (!hit) hit = SuppressedBy{e.comment, e.reason};
      }
  }
  return hit;
}

std::vector<Finding> Suppressions::unused(const std::vector<std::string>& enabled) const {
  std::vector<Finding> out;
  for (const auto& e : entries_) {
    for (std::size_t i = 0; i < e.codes.size(); ++i) {
      if (e.used[i] || std::find(enabled.begin(), enabled.end(), e.codes[i]) == enabled.end()) continue;
      Finding f;
      f.location = e.comment;
      f.message = "the suppression of " + e.codes[i] + " suppresses nothing" +
                  (e.kind == Entry::kLine ? " on line " + std::to_string(e.first_line)
                                          : std::string(" in its range"));
      f.help = "remove " + e.codes[i] + " from the comment (the finding it was for is gone)";
      // Safe: the comment hides nothing. A range (disable ... enable) has two comments to edit; left to you.
      if (e.kind != Entry::kRange && e.items.size() == e.codes.size()) {
        FixRequest fix{FixApplicability::kSafe, "remove the unused suppression of " + e.codes[i], {}};
        if (e.codes.size() == 1) {
          fix.changes.push_back(replace_text(e.removal, ""));
        } else {
          std::string kept;
          for (std::size_t k = 0; k < e.items.size(); ++k)
            if (k != i) kept += (kept.empty() ? "" : ", ") + e.items[k];
          fix.changes.push_back(replace_text(e.comment, "# parlint: " + e.directive + "[" + kept + "]" +
                                                            (e.reason.empty() ? "" : " -- " + e.reason)));
        }
        f.fix = std::move(fix);
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<Finding> Suppressions::invalid() const {
  std::vector<Finding> out;
  for (const auto& b : bad_) {
    Finding f;
    f.location = b.comment;
    f.message =
        "'" + b.name + "' in this suppression is not a parlint rule code or name" + rule_suggestion(b.name);
    f.help = "see `parlint rules` for the codes and names";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace parlint
