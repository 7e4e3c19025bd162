#include "lint/engine/fix/fixer.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

#include "lint/engine/fix/fix_resolution.h"
#include "lint/model/source_text.h"

namespace parlint {
namespace {

constexpr int kMaxPasses = 16;  // ruff stops at 100; a launch script's fixes settle in two or three

// The finding is gone when fewer findings of its rule start on its line (one comment can carry two
// unused suppressions; a value fix that leaves the finding leaves the count).
bool still_there(const Diagnostic& d, const std::vector<TextEdit>& edits, const LintedText& before,
                 const LintedText& after) {
  auto count = [&](const LintedText& l, int line) {
    return std::count_if(l.diagnostics.begin(), l.diagnostics.end(), [&](const Diagnostic& x) {
      return x.code == d.code && x.location.path == d.location.path && x.location.range.start.line == line;
    });
  };
  std::vector<TextEdit> here;
  for (const auto& e : edits)
    if (e.location.path == d.location.path) here.push_back(e);
  int line = d.location.range.start.line;
  return count(after, line_after_edits(line, here)) >= count(before, line);
}

std::ptrdiff_t errors(const LintedText& l) {
  return std::count_if(l.diagnostics.begin(), l.diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

// The first finding of `after` (an error, or a syntax error) that `before` does not have, for the reason
// a fix is dropped: "PL503 at line 8: global_batch_size=3 is not a multiple of ...".
std::string new_finding(const LintedText& before, const LintedText& after, bool syntax) {
  std::set<std::pair<std::string, std::string>> had;
  for (const auto& d : before.diagnostics) had.insert({d.code, d.message});
  for (const auto& d : after.diagnostics) {
    if (syntax ? d.code != "PL900" : d.severity != Severity::kError) continue;
    if (!had.count({d.code, d.message}))
      return fmt::format(" ({} at line {}: {})", d.code, d.location.range.start.line, d.message);
  }
  return {};
}

bool edit_before(const TextEdit& a, const TextEdit& b) {
  return std::tie(a.location.path, a.location.range.start) <
         std::tie(b.location.path, b.location.range.start);
}

// The texts of one pass: the file's and those of the other files its fixes edit, as the pass found them.
class PassTexts {
 public:
  PassTexts(const std::string& path, const std::string& text,
            const std::map<std::string, std::string>& others, const FixEnvironment& env)
      : env_(env), others_(others) {
    base_.emplace(path, std::make_unique<SourceText>(text));
  }
  // nullptr when the file cannot be read.
  const SourceText* base(const std::string& path) {
    auto it = base_.find(path);
    if (it != base_.end()) return it->second.get();
    std::optional<std::string> text;
    if (auto o = others_.find(path); o != others_.end())
      text = o->second;
    else
      text = env_.read(path);
    return base_.emplace(path, text ? std::make_unique<SourceText>(std::move(*text)) : nullptr)
        .first->second.get();
  }
  // Every file's text after `edits` (sorted by path and position): the file's own, and the others.
  std::map<std::string, std::string> apply(const std::vector<TextEdit>& edits) {
    std::map<std::string, std::vector<TextEdit>> by_path;
    for (const auto& e : edits) by_path[e.location.path].push_back(e);
    std::map<std::string, std::string> out;
    for (auto& [p, list] : by_path)
      if (const SourceText* b = base(p)) out[p] = apply_edits(*b, list);
    return out;
  }

 private:
  const FixEnvironment& env_;
  const std::map<std::string, std::string>& others_;
  std::map<std::string, std::unique_ptr<SourceText>> base_;
};

}  // namespace

bool fix_allowed(const Fix& fix, bool unsafe) {
  return fix.applicability == FixApplicability::kSafe || unsafe;
}

FixedText fix_text(const std::string& path, std::string text, const FixEnvironment& env) {
  FixedText out;
  out.text = std::move(text);
  LintedText current = env.lint(out.text, out.others_after);
  std::set<std::pair<std::string, std::string>> given_up;  // dropped once: not tried again
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    PassTexts texts(path, out.text, out.others_after, env);
    std::vector<const Diagnostic*> candidates;
    for (const auto& d : current.diagnostics)
      if (d.fix && fix_allowed(*d.fix, env.unsafe) && env.selected(d.code) &&
          !given_up.count({d.code, d.message}))
        candidates.push_back(&d);
    if (candidates.empty()) break;
    out.passes = pass + 1;
    // Safe fixes first; then at most one unsafe fix per pass, the lowest code first (a TP inside the node
    // before a node count), so that two layout changes are never made against the same old layout.
    std::stable_sort(candidates.begin(), candidates.end(), [](const Diagnostic* a, const Diagnostic* b) {
      bool sa = a->fix->applicability == FixApplicability::kSafe,
           sb = b->fix->applicability == FixApplicability::kSafe;
      if (sa != sb) return sa;
      return !sa && a->code < b->code;
    });
    std::vector<TextEdit> accepted;
    std::map<std::string, std::string> accepted_texts;
    LintedText accepted_lint;
    bool progress = false, unsafe_done = false;
    for (const Diagnostic* d : candidates) {
      if (unsafe_done) break;
      bool clash = std::any_of(d->fix->edits.begin(), d->fix->edits.end(), [&](const TextEdit& e) {
        return std::any_of(accepted.begin(), accepted.end(),
                           [&](const TextEdit& a) { return edits_overlap(a, e); });
      });
      if (clash) continue;  // the next pass, on the text this one leaves
      std::string why;
      for (const auto& e : d->fix->edits) {
        if (e.location.path != path && !env.others_refused.empty())
          why = "its edit is in " + e.location.path + ", " + env.others_refused;
        else if (!texts.base(e.location.path))
          why = "cannot read " + e.location.path;
      }
      std::vector<TextEdit> trial = accepted;
      trial.insert(trial.end(), d->fix->edits.begin(), d->fix->edits.end());
      std::sort(trial.begin(), trial.end(), edit_before);
      std::map<std::string, std::string> after_texts;
      LintedText after;
      if (why.empty()) {
        after_texts = texts.apply(trial);
        std::map<std::string, std::string> others = out.others_after;
        for (const auto& [p, t] : after_texts)
          if (p != path) others[p] = t;
        auto own = after_texts.find(path);
        after = env.lint(own != after_texts.end() ? own->second : out.text, others);
        // Another file the fix edits must still parse on its own.
        for (const auto& e : d->fix->edits) {
          const std::string& p = e.location.path;
          if (p == path || !why.empty()) continue;
          if (env.syntax_errors(p, after_texts[p]) > env.syntax_errors(p, std::string(texts.base(p)->text())))
            why = "the fixed text of " + p + " does not parse";
        }
      }
      if (!why.empty()) {
      } else if (after.syntax_errors > current.syntax_errors) {
        why = "the fixed text does not parse" + new_finding(current, after, true);
      } else if (still_there(*d, trial, current, after)) {
        why = "the finding is still there after the fix";
      } else if (const LintedText& was = accepted.empty() ? current : accepted_lint;
                 errors(after) > errors(was) - (d->severity == Severity::kError ? 1 : 0)) {
        why = "it leads to another error" + new_finding(was, after, false);
      }
      if (!why.empty()) {
        given_up.insert({d->code, d->message});
        out.dropped.push_back({d->code, d->location, std::move(why)});
        continue;
      }
      accepted = std::move(trial);
      accepted_texts = std::move(after_texts);
      accepted_lint = std::move(after);
      out.applied.push_back({d->code, d->message, d->location, *d->fix});
      progress = true;
      unsafe_done = d->fix->applicability == FixApplicability::kUnsafe;
    }
    if (!progress) break;
    for (auto& [p, t] : accepted_texts) {
      if (p == path) {
        out.text = std::move(t);
        continue;
      }
      if (!out.others_before.count(p)) out.others_before[p] = std::string(texts.base(p)->text());
      out.others_after[p] = std::move(t);
    }
    current = std::move(accepted_lint);
  }
  return out;
}

namespace {

std::vector<std::string_view> lines_with_ends(std::string_view s) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t nl = s.find('\n', at);
    std::size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
    lines.push_back(s.substr(at, end - at));
    at = end;
  }
  return lines;
}

enum class Op { kEqual, kDelete, kInsert };

// Myers' O(ND) shortest edit script over lines, after the common head and tail are taken off. Past a
// bound on D the middle is one replacement: still a correct diff, only a longer one.
std::vector<Op> edit_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  const int n = static_cast<int>(a.size() - head - tail), m = static_cast<int>(b.size() - head - tail);
  std::vector<Op> middle;
  constexpr int kMaxD = 1000;  // the trace keeps one row per step
  const int max_d = std::min(n + m, kMaxD);
  const int offset = max_d + 1;
  std::vector<int> v(2 * static_cast<std::size_t>(max_d) + 3, 0);
  std::vector<std::vector<int>> trace;
  int found = -1;
  for (int d = 0; d <= max_d && found < 0; ++d) {
    trace.push_back(v);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1]
                                                                             : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[head + x] == b[head + y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) {
    middle.assign(static_cast<std::size_t>(n), Op::kDelete);
    middle.insert(middle.end(), static_cast<std::size_t>(m), Op::kInsert);
  } else {
    int x = n, y = m;
    for (int d = found; d > 0; --d) {
      const std::vector<int>& pv = trace[d];
      int k = x - y;
      bool down = k == -d || (k != d && pv[offset + k - 1] < pv[offset + k + 1]);
      int pk = down ? k + 1 : k - 1;
      int px = pv[offset + pk], py = px - pk;
      while (x > px && y > py) middle.push_back(Op::kEqual), --x, --y;
      middle.push_back(down ? Op::kInsert : Op::kDelete);
      x = px;
      y = py;
    }
    while (x > 0 && y > 0) middle.push_back(Op::kEqual), --x, --y;
    std::reverse(middle.begin(), middle.end());
  }
  std::vector<Op> ops(head, Op::kEqual);
  ops.insert(ops.end(), middle.begin(), middle.end());
  ops.insert(ops.end(), tail, Op::kEqual);
  return ops;
}

void append_line(std::string& out, char mark, std::string_view line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string unified_diff(const std::string& path, std::string_view before, std::string_view after) {
  if (before == after) return {};
  auto a = lines_with_ends(before), b = lines_with_ends(after);
  std::vector<Op> ops = edit_script(a, b);
  constexpr std::size_t kContext = 3;
  std::string out = fmt::format("--- {}\n+++ {}\n", path, path);
  std::size_t i = 0;
  while (i < ops.size()) {
    if (ops[i] == Op::kEqual) {
      ++i;
      continue;
    }
    // A hunk: from kContext lines before this change to kContext after the last change that is within
    // 2·kContext equal lines of the previous one.
    std::size_t start = i >= kContext ? i - kContext : 0;
    std::size_t end = i;
    while (true) {
      while (end < ops.size() && ops[end] != Op::kEqual) ++end;
      std::size_t next = end;
      while (next < ops.size() && ops[next] == Op::kEqual) ++next;
      if (next < ops.size() && next - end <= 2 * kContext) {
        end = next;
        continue;
      }
      end = std::min(ops.size(), end + kContext);
      break;
    }
    // Line numbers at the hunk's start.
    std::size_t ai = 0, bi = 0;
    for (std::size_t k = 0; k < start; ++k) {
      if (ops[k] != Op::kInsert) ++ai;
      if (ops[k] != Op::kDelete) ++bi;
    }
    std::string body;
    std::size_t a_count = 0, b_count = 0, ax = ai, bx = bi;
    for (std::size_t k = start; k < end; ++k) {
      switch (ops[k]) {
        case Op::kEqual:
          append_line(body, ' ', a[ax++]);
          ++bx;
          ++a_count;
          ++b_count;
          break;
        case Op::kDelete:
          append_line(body, '-', a[ax++]);
          ++a_count;
          break;
        case Op::kInsert:
          append_line(body, '+', b[bx++]);
          ++b_count;
          break;
      }
    }
    auto header = [](std::size_t first, std::size_t count) {
      std::size_t shown = count == 0 ? first : first + 1;
      return count == 1 ? fmt::format("{}", shown) : fmt::format("{},{}", shown, count);
    };
    out += fmt::format("@@ -{} +{} @@\n", header(ai, a_count), header(bi, b_count));
    out += body;
    i = end;
  }
  return out;
}

}  // namespace parlint
