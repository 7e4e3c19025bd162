#include "lint/engine/fix/add_suppressions.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "lint/engine/file_discovery.h"
#include "lint/engine/file_kind.h"
#include "lint/engine/fix/file_writer.h"
#include "lint/engine/fix/suppression_edit.h"
#include "lint/engine/pipeline.h"
#include "lint/engine/suppressions.h"
#include "lint/model/source_files.h"
#include "lint/model/source_text.h"

namespace parlint {
namespace {

namespace fs = std::filesystem;

// A finding and the inputs whose lint reported it (the same finding reached through two inputs once).
struct Reported {
  Diagnostic d;
  std::set<std::string> inputs;  // normalized paths
};

// Every input linted as `check` lints it, with the texts of `edited` (by normalized path) read in place
// of the files on disk.
std::vector<Reported> lint_all(const std::vector<Input>& inputs, const EngineOptions& options,
                               const std::map<std::string, std::string>& edited,
                               std::vector<InputError>* errors) {
  SourceOverlay overlay;
  if (options.overlay) overlay.buffers = options.overlay->buffers;
  for (const auto& [p, t] : edited) overlay.buffers[p] = t;
  using Key = std::tuple<std::string, SourcePosition, std::string, std::string>;
  std::map<Key, Reported> found;
  for (const Input& input : inputs) {
    EngineOptions o = options_for_config(input.path, input.config, options);
    o.overlay = &overlay;
    std::string own = normalized_path(input.path);
    std::string text;
    if (auto it = edited.find(own); it != edited.end()) {
      text = it->second;
    } else if (auto t = read_text(input, o)) {
      text = std::move(*t);
    } else {
      if (errors) errors->push_back({input.path, t.error()});
      continue;
    }
    try {
      for (auto& cd : check_text(input.path, std::move(text), o).diagnostics) {
        Diagnostic& d = cd.diagnostic;
        Reported& r = found[{normalized_path(d.location.path), d.location.range.start, d.code, d.message}];
        if (r.inputs.empty()) r.d = std::move(d);
        r.inputs.insert(own);
      }
    } catch (const std::exception& e) {
      if (errors) errors->push_back({input.path, std::string("internal error: ") + e.what(), true});
    }
  }
  std::vector<Reported> out;
  for (auto& [_, r] : found) out.push_back(std::move(r));
  return out;
}

// One file's findings and what is done about them.
struct FilePlan {
  std::string path;                                       // as the findings name it
  std::vector<SuppressionTarget> targets;                 // one per line and code
  std::map<std::pair<int, std::string>, int> per_target;  // findings per (0-based line, code)
  std::map<std::string, int> kept;                        // findings no comment is planned for, per code
  std::string original, edited;
  FileKind kind = FileKind::kNone;
  std::vector<SuppressionGroup> accepted;
  std::vector<std::pair<SuppressionTarget, std::string>> left;  // targets left out by the last plan, and why
};

// Why the comments of `groups` do not do their work in the file, or nullopt: it parses with no more
// errors than before, and each comment covers the findings it was made for.
std::optional<std::string> check_groups(const FilePlan& f, const std::vector<const SuppressionGroup*>& groups,
                                        std::size_t syntax_errors_before, const EngineOptions& options) {
  std::vector<LineEdit> edits;
  for (const auto* g : groups) edits.insert(edits.end(), g->edits.begin(), g->edits.end());
  SourceText edited(apply_line_edits(f.original, edits));
  FileReader reader(options.max_file_size);
  if (parse_source(f.path, edited, reader).errors.size() > syntax_errors_before)
    return std::string("the file would not parse with the comment");
  Suppressions comments(f.path, edited);
  for (const auto* g : groups)
    for (const auto& t : g->targets) {
      Diagnostic d;
      d.code = t.code;
      d.location.path = f.path;
      int line = line_after_insertions(t.line0, edits) + 1;
      d.location.range = {{line, 1}, {line, 1}};
      if (!comments.suppresses(d)) return fmt::format("a comment at {} would not cover it", g->where);
    }
  return std::nullopt;
}

// Plans the comments of one file and keeps those that check out (all together, else one by one).
void plan_file(FilePlan& f, bool above_first, std::string_view reason, const EngineOptions& options) {
  f.accepted.clear();
  f.left.clear();
  std::vector<SuppressionGroup> groups =
      plan_suppressions(f.original, f.kind, f.targets, reason, above_first);
  std::set<std::pair<int, std::string>> placed;
  for (const auto& g : groups)
    for (const auto& t : g.targets) placed.insert({t.line0, t.code});
  for (const auto& t : f.targets)
    if (!placed.count({t.line0, t.code}))
      f.left.push_back({t,
                        "it is reported past the file's last line (a syntax error at the end of the file), "
                        "where no comment can go"});
  FileReader reader(options.max_file_size);
  std::size_t syntax_errors = parse_source(f.path, SourceText(f.original), reader).errors.size();
  std::vector<const SuppressionGroup*> all, accepted;
  for (const auto& g : groups) all.push_back(&g);
  if (!check_groups(f, all, syntax_errors, options)) {
    accepted = all;
  } else {
    for (const auto* g : all) {
      std::vector<const SuppressionGroup*> trial = accepted;
      trial.push_back(g);
      if (auto why = check_groups(f, trial, syntax_errors, options)) {
        for (const auto& t : g->targets) f.left.push_back({t, *why});
      } else {
        accepted.push_back(g);
      }
    }
  }
  std::vector<LineEdit> edits;
  for (const auto* g : accepted) {
    f.accepted.push_back(*g);
    edits.insert(edits.end(), g->edits.begin(), g->edits.end());
  }
  f.edited = apply_line_edits(f.original, edits);
}

// The codes of which more findings remain in the file than no comment was planned for: what the comments
// failed to hide, or made parlint read differently.
std::string extra_findings(const FilePlan& f, const std::map<std::string, int>& remaining) {
  std::map<std::string, int> expected = f.kept;
  for (const auto& [t, _] : f.left) expected[t.code] += f.per_target.at({t.line0, t.code});
  std::string extra;
  for (const auto& [code, n] : remaining)
    if (n > expected[code]) extra += (extra.empty() ? "" : ", ") + code;
  return extra;
}

std::map<std::string, std::map<std::string, int>> count_by_file(const std::vector<Reported>& found) {
  std::map<std::string, std::map<std::string, int>> out;  // normalized path -> code -> findings
  for (const auto& r : found) ++out[normalized_path(r.d.location.path)][r.d.code];
  return out;
}

}  // namespace

AddedSuppressions add_suppressions(const std::vector<std::string>& paths, const EngineOptions& base,
                                   std::string_view reason) {
  AddedSuppressions out;
  EngineOptions options = base;
  options.apply_suppressions = true;  // what comments already hide needs none
  options.fix = FixMode::kOff;
  ConfigResolver configs(options.config, options.discover_config);
  std::vector<Input> inputs = collect_inputs(paths, options, configs, out.errors);
  std::map<std::string, std::string> input_paths;  // normalized -> as named
  for (const auto& in : inputs) input_paths[normalized_path(in.path)] = in.path;
  std::vector<Reported> before = lint_all(inputs, options, {}, &out.errors);

  std::map<std::string, FilePlan> files;  // by normalized path
  // Who reported each (file, line, code): a comment in a linted file for a finding only another input
  // reports would be unused when that file is linted on its own (PL901).
  std::map<std::tuple<std::string, int, std::string>, std::set<std::string>> reporters;
  for (const auto& r : before)
    reporters[{normalized_path(r.d.location.path), r.d.location.range.start.line, r.d.code}].insert(
        r.inputs.begin(), r.inputs.end());
  for (const auto& reported : before) {
    const Diagnostic& d = reported.d;  // not a structured binding: clang 14 cannot capture one in a lambda
    std::string key = normalized_path(d.location.path);
    FilePlan& f = files[key];
    if (f.path.empty()) f.path = d.location.path;
    int line = d.location.range.start.line;
    auto leave = [&](const std::string& why) {
      out.not_suppressed.push_back(
          fmt::format("{}:{}: {} not suppressed: {}", d.location.path, line, d.code, why));
      ++f.kept[d.code];
    };
    const auto& by = reporters[{key, line, d.code}];
    if (d.code == "PL901" || d.code == "PL902") {
      leave(
          "it is about a suppression comment itself, which no comment can hide: remove or correct the "
          "comment (--fix removes an unused one)");
    } else if (line < 1) {
      leave("it has no line to put a comment on");
    } else if (input_paths.count(key) && !by.count(key)) {
      leave(
          fmt::format("it is reported only where {} reads this file, and a comment here would be unused "
                      "(PL901) when the file is linted on its own",
                      input_paths[*by.begin()]));
    } else if (f.per_target[{line - 1, d.code}]++ == 0) {
      f.targets.push_back({line - 1, d.code});
    }
  }

  std::map<std::string, std::string> edited;  // by normalized path
  for (auto& [key, f] : files) {
    if (f.targets.empty()) continue;
    std::error_code ec;
    auto text =
        fs::is_regular_file(f.path, ec) ? FileReader(options.max_file_size).read(f.path) : std::nullopt;
    if (!text) {
      for (const auto& t : f.targets)
        f.left.push_back({t, "the file is not a regular file parlint can read"});
      continue;
    }
    f.original = std::move(*text);
    f.kind = file_kind(f.path, std::string_view(f.original).substr(0, 4096));
    plan_file(f, false, reason, options);
    if (f.edited != f.original) edited[key] = f.edited;
  }

  // Linted again with the comments: only what no comment was made for may remain. A comment that changes
  // what parlint reads (a trailing comment inside a value it parses) shows as a finding more: that file
  // gets its comments alone above the lines instead, and if that fails too it is left as it was.
  std::set<std::string> failing;
  auto remaining = count_by_file(lint_all(inputs, options, edited, nullptr));
  for (auto& [key, f] : files)
    if (edited.count(key) && !extra_findings(f, remaining[key]).empty()) failing.insert(key);
  if (!failing.empty()) {
    for (const auto& key : failing) {
      FilePlan& f = files[key];
      plan_file(f, true, reason, options);
      edited[key] = f.edited;
    }
    remaining = count_by_file(lint_all(inputs, options, edited, nullptr));
    for (const auto& key : failing) {
      FilePlan& f = files[key];
      std::string extra = extra_findings(f, remaining[key]);
      if (extra.empty()) continue;
      edited.erase(key);
      for (const auto& g : f.accepted)
        for (const auto& t : g.targets)
          f.left.push_back({t, "with a comment parlint reads the file differently (" + extra +
                                   " reported again or anew); the file is left as it was"});
      f.accepted.clear();
    }
  }

  for (auto& [key, f] : files) {
    for (const auto& [t, why] : f.left)
      out.not_suppressed.push_back(
          fmt::format("{}:{}: {} not suppressed: {}", f.path, t.line0 + 1, t.code, why));
    if (!edited.count(key)) continue;
    if (auto why = replace_file_text(f.path, f.original, f.edited)) {
      out.errors.push_back({f.path, *why});
      continue;
    }
    ++out.files;
    for (const auto& g : f.accepted) {
      ++out.comments;
      for (const auto& t : g.targets) out.findings += f.per_target[{t.line0, t.code}];
    }
  }
  // What `check` reports now, counted as it counts (a finding that several recipes inherit is one).
  out.left = static_cast<int>(run_check(paths, options).diagnostics.size());
  std::sort(out.not_suppressed.begin(), out.not_suppressed.end());
  out.not_suppressed.erase(std::unique(out.not_suppressed.begin(), out.not_suppressed.end()),
                           out.not_suppressed.end());
  return out;
}

}  // namespace parlint
