// Functions a source defines but never calls, read at its end each on a copy of the variables; and the
// language server's memo of those walks (uncalled_function_memo.h), which replays a walk only where a fresh
// one would do exactly what it did.
#include <algorithm>
#include <utility>

#include "parsers/shell/shell_interpreter.h"
#include "parsers/shell/shell_state_hash.h"

namespace parlint::shell {

// Everything a walk of a function body may change besides the literals it finds and runs_programs_: a walk
// is kept only when all of it is as it was.
struct ShellParser::UncalledWalkState {
  std::size_t errors, jobs, unread, size_expressions, script_form, literals, files, arms, kept, written,
      functions, next_unread;
  int defined, called;
  std::uint64_t unrepeatable;
  bool deep, stopped, budget_stop, bash_stop, runs_programs;
  bool operator==(const UncalledWalkState&) const = default;
};

ShellParser::UncalledWalkState ShellParser::uncalled_walk_state() const {
  return {out_.errors.size(),
          out_.jobs.size(),
          out_.unread.size(),
          out_.size_expressions.size(),
          out_.script_form.size(),
          out_.literals.size(),
          files_.size(),
          chosen_arms_.size(),
          kept_sources_.size(),
          written_files_.size(),
          functions_.size(),
          next_unread_,
          functions_defined_,
          functions_called_,
          unrepeatable_,
          deep_reported_,
          budget_.exhausted(),
          budget_stop_.has_value(),
          bash_stops_at_.has_value(),
          runs_programs_};
}

void ShellParser::walk_uncalled_functions(const Source& src, const Env& env, Context& ctx) {
  const bool memo = memo_usable(src);
  if (memo) uncalled_->begin(out_.path, main_tree_);
  std::optional<std::uint64_t> state;  // what each walk starts from besides the variables it reads
  for (auto& [name, fn] : functions_) {
    if (fn.src != &src || fn.calls > 0) continue;
    fn.calls = 1;
    Env local = env;
    // A walk that was not kept may have changed what the next ones start from: looked at again.
    if (!memo || !memo_usable(src)) {
      walk_uncalled_function(name, fn, src, env, std::move(local), ctx, nullptr);
      continue;
    }
    if (!state) state = uncalled_walks_hash(ctx);
    UncalledWalkKey key = uncalled_walk_key(name, fn, src, local, *state);
    if (auto* walks = uncalled_->find(key.key); walks && replay_uncalled_walk(*walks, env, key)) continue;
    if (!walk_uncalled_function(name, fn, src, env, std::move(local), ctx, &key)) state.reset();
  }
  std::erase_if(functions_, [&](const auto& f) { return f.second.src == &src; });
}

bool ShellParser::memo_usable(const Source& src) const {
  // The main file's own functions, read with nothing pending that a walk could take (an unread line's
  // assignment, a caller's state).
  return uncalled_ && main_tree_ && src.file == 0 && src.origin.empty() &&
         next_unread_ == unread_assignments_.size() && running_functions_.empty() && expansion_depth_ == 0 &&
         branch_values_read_.empty() && !deep_reported_ && !budget_.exhausted() && !budget_stop_;
}

// The state every walk of one loop starts from, besides the variables: the context, the functions a body
// may call, the arms a constant `case` took, and the limits that decide whether a finding is still added.
std::uint64_t ShellParser::uncalled_walks_hash(const Context& ctx) const {
  StateHash h(false);
  hash_context(h, ctx);
  h.number(ctx.unread_source.has_value());
  h.number(functions_.size());
  for (const auto& [name, fn] : functions_) {
    h.bytes(name);
    h.number(fn.src->file < 0);
  }
  h.number(chosen_arms_.size());
  for (const auto& arm : chosen_arms_) {
    for (ByteOrigin o : {arm.first, arm.last}) {
      h.number(static_cast<std::uint32_t>(o.file));
      h.number(o.offset);
    }
    h.location(arm.note.location);
    h.bytes(arm.note.message);
    h.number(arm.note.choice);
  }
  h.number(out_.errors.size() >= kMaxSyntaxErrors);
  h.number(out_.unread.size() >= kMaxSyntaxErrors);
  h.number(kept_sources_.size() >= kMaxKeptSources);
  return h.value();
}

// The body's syntax subtree: the body node and each of its children, with kind (as the parent's production
// names it), flags, field and extent from the body's start, and each child's address. Tree-sitter keeps a
// node's children in one block with the node itself, and an incremental reparse shares an unchanged
// subtree (not the slot its new parent holds it in, so the body node's own address changes): children at
// the addresses a kept walk saw, in a tree the memo holds, are the very nodes it read. With the text, that
// is all a walk sees of the tree. Only the body's children are visited: a walk of the whole subtree cost
// as much as the walk it would spare.
static void append_subtree(std::string& out, TSNode body) {
  const std::uint32_t base = ts_node_start_byte(body);
  auto add = [&](TSNode n, const void* id, TSFieldId field) {
    const std::uint64_t flags =
        (ts_node_is_named(n) ? 1u : 0u) | (ts_node_is_extra(n) ? 2u : 0u) | (ts_node_is_missing(n) ? 4u : 0u);
    const std::uint64_t node[3] = {
        reinterpret_cast<std::uintptr_t>(id), ts_node_symbol(n) | flags << 16 | std::uint64_t{field} << 32,
        std::uint64_t{ts_node_start_byte(n) - base} << 32 | (ts_node_end_byte(n) - base)};
    out.append(reinterpret_cast<const char*>(node), sizeof node);
  };
  add(body, nullptr, 0);
  TSTreeCursor c = ts_tree_cursor_new(body);
  if (ts_tree_cursor_goto_first_child(&c)) do {
      TSNode n = ts_tree_cursor_current_node(&c);
      add(n, n.id, ts_tree_cursor_current_field_id(&c));
    } while (ts_tree_cursor_goto_next_sibling(&c));
  ts_tree_cursor_delete(&c);
}

// The key a walk is kept under: the loop's state, the function's name (a body that calls itself is not
// followed), where the body starts in its first line, whether a program ran already, how deep the copy of
// the variables stands on frozen layers, the body's subtree, and the whole lines the body spans (every
// position found in it is counted from them).
ShellParser::UncalledWalkKey ShellParser::uncalled_walk_key(const std::string& name, const ShellFunction& fn,
                                                            const Source& src, const Env& local,
                                                            std::uint64_t state) const {
  const std::uint32_t b = ts_node_start_byte(fn.body), e = ts_node_end_byte(fn.body);
  std::size_t begin = b == 0 ? std::string::npos : src.text.rfind('\n', b - 1);
  begin = begin == std::string::npos ? 0 : begin + 1;
  const std::size_t end = std::min(src.text.find('\n', e), src.text.size());
  // Fixed-size fields first, then the name (ended by a byte no name holds), the subtree and the lines.
  const std::uint64_t fields[4] = {state, b - begin, runs_programs_ ? 1u : 0u,  // a kept walk may set it
                                   static_cast<std::uint64_t>(local.layers())};
  std::string text;
  text.reserve(sizeof fields + name.size() + 1 + 24 * 8 + (end - begin));
  text.append(reinterpret_cast<const char*>(fields), sizeof fields);
  text.append(name);
  text.push_back('\0');
  append_subtree(text, fn.body);
  text.append(src.text, begin, end - begin);
  const SourceText& lines = *files_[static_cast<std::size_t>(src.file)].text;
  return {UncalledFunctionMemo::Key(std::move(text)), lines.position(b).line,
          lines.position(e > b ? e - 1 : b).line};
}

bool ShellParser::walk_uncalled_function(const std::string& name, ShellFunction& fn, const Source& src,
                                         const Env& outer, Env local, Context& ctx,
                                         const UncalledWalkKey* key) {
  Context inner = ctx;
  running_functions_.insert(name);
  if (!key) {
    walk(fn.body, src, local, inner, 1);
    running_functions_.erase(name);
    return false;
  }
  EnvReads reads;
  local.record_reads(&reads);
  const UncalledWalkState before = uncalled_walk_state();
  const std::uint64_t spent = budget_.spent(), metered = budget_.unabsorbed();
  walk(fn.body, src, local, inner, 1);
  running_functions_.erase(name);
  UncalledWalkState after = uncalled_walk_state();
  after.literals = before.literals;
  after.runs_programs = before.runs_programs;
  constexpr std::size_t kMaxReads = 4096;  // lookups of one walk kept; a longer walk is walked again
  if (!(after == before) || reads.names.size() > kMaxReads) return false;
  UncalledFunctionMemo::Walk w;
  w.first_line = key->first_line;
  for (std::size_t i = before.literals; i < out_.literals.size(); ++i) {
    const LiteralAssignment& l = out_.literals[i];
    // Positions in the body's lines only: they move with the body. (Every literal found here is the value
    // of an assignment in the body, since no string was run as shell.)
    if (l.location.path != out_.path) return false;
    for (const SourcePosition& p : {l.location.range.start, l.location.range.end})
      if (p.line > 0 && (p.line < key->first_line || p.line > key->last_line)) return false;
    w.literals.push_back(l);
  }
  w.absorbed = budget_.spent() - spent - metered;
  w.metered = budget_.unabsorbed();
  w.runs_programs = runs_programs_ && !before.runs_programs;
  // The variables it looked up, as the source left them (the walk's own copy started from them).
  std::sort(reads.names.begin(), reads.names.end());
  reads.names.erase(std::unique(reads.names.begin(), reads.names.end()), reads.names.end());
  for (auto& n : reads.names) {
    UncalledFunctionMemo::Read r{std::move(n), false, 0};
    if (const Var* v = outer.find(r.name)) {
      StateHash h(false);
      h.var(*v);
      r.set = true;
      r.hash = h.value();
    }
    w.reads.push_back(std::move(r));
  }
  if (reads.every) {
    w.read_every = true;
    w.every = every_variable_hash(outer);
  }
  uncalled_->keep(key->key, std::move(w));
  return true;
}

std::uint64_t ShellParser::every_variable_hash(const Env& env) {
  StateHash h(false);
  env.for_each([&](const std::string& name, const Var& v) {
    h.bytes(name);
    h.var(v);
  });
  return h.value();
}

// Does again what a kept walk did, when the variables it read are as they were and a fresh walk could not
// run out of the work budget on the way: the literals it found (moved with the body), the work it
// charged (the same units through the budget and on the meter) and runs_programs_.
bool ShellParser::replay_uncalled_walk(std::vector<UncalledFunctionMemo::Walk>& walks, const Env& env,
                                       const UncalledWalkKey& key) {
  for (const auto& w : walks) {
    bool same = std::all_of(w.reads.begin(), w.reads.end(), [&](const UncalledFunctionMemo::Read& r) {
      const Var* v = env.find(r.name);
      if (!v || !r.set) return !v && !r.set;
      StateHash h(false);
      h.var(*v);
      return h.value() == r.hash;
    });
    if (!same || (w.read_every && every_variable_hash(env) != w.every)) continue;
    if (budget_.unabsorbed() + w.absorbed >= budget_.remaining()) return false;
    WorkMeter::charge(w.absorbed);
    budget_.spend(0);
    WorkMeter::charge(w.metered);
    const int moved = key.first_line - w.first_line;
    for (LiteralAssignment l : w.literals) {
      for (SourcePosition* p : {&l.location.range.start, &l.location.range.end})
        if (p->line > 0) p->line += moved;
      out_.literals.push_back(std::move(l));
    }
    if (w.runs_programs) runs_programs_ = true;
    uncalled_->count_replay();
    return true;
  }
  return false;
}

}  // namespace parlint::shell
