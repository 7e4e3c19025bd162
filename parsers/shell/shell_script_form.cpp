#include "parsers/shell/shell_script_form.h"

#include <string>

#include "parsers/tree_sitter/tree_sitter_children.h"

namespace parlint {
namespace {

constexpr int kMaxDepth = 256;
constexpr std::size_t kMaxNotes = 64;

std::string_view node_text(TSNode n, std::string_view text) {
  return text.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
}

bool blank(char c) {
  return c == ' ' || c == '\t';
}

// #SBATCH comments that start after `first_command` (comments in heredocs are heredoc text, not comments).
void late_directives(TSNode n, std::string_view text, std::uint32_t first_command, int depth,
                     std::vector<ScriptFormFinding>& out) {
  if (depth > kMaxDepth || out.size() >= kMaxNotes) return;
  for (TSNode c : NamedChildren(n)) {
    if (ts_node_end_byte(c) <= first_command) continue;
    std::string_view type = ts_node_type(c);
    if (type == "comment") {
      std::string_view t = node_text(c, text);
      if (t.starts_with("#SBATCH") && (t.size() == 7 || blank(t[7])) && ts_node_start_byte(c) > first_command)
        out.push_back({ScriptFormNote::Kind::kLateSbatchDirective, ts_node_start_byte(c), ts_node_end_byte(c),
                       std::string(t), first_command});
      continue;
    }
    if (type == "heredoc_body" || type == "string" || type == "raw_string") continue;
    late_directives(c, text, first_command, depth + 1, out);
  }
}

// The start of the line holding byte `at`.
std::uint32_t line_start(std::string_view text, std::uint32_t at) {
  while (at > 0 && text[at - 1] != '\n') --at;
  return at;
}

// A command named like a flag (--num-layers) or a Hydra override (model.x=4) whose previous line ends in
// "\ " or "\ # note": bash ended the command there.
void cut_commands(TSNode n, std::string_view text, int depth, std::vector<ScriptFormFinding>& out) {
  if (depth > kMaxDepth || out.size() >= kMaxNotes) return;
  for (TSNode c : NamedChildren(n)) {
    std::string_view type = ts_node_type(c);
    if (type == "command") {
      TSNode name = ts_node_child_by_field_name(c, "name", 4);
      std::string_view word = ts_node_is_null(name) ? std::string_view{} : node_text(name, text);
      std::uint32_t start = ts_node_start_byte(c);
      std::uint32_t line = line_start(text, start);
      // A flag (--num-layers) or a Hydra override (policy.x=4, +key=v, ~key), which bash runs as a command.
      std::string_view key = word.substr(0, word.find('='));
      const bool override_word = word.find('=') != std::string_view::npos &&
                                 (key.find('.') != std::string_view::npos || key.starts_with("+"));
      if ((word.starts_with("-") || override_word || word.starts_with("~")) && line > 0) {
        std::uint32_t prev_end = line - 1;  // the newline ending the previous line
        std::uint32_t prev = line_start(text, prev_end);
        std::string_view previous = text.substr(prev, prev_end - prev);
        // Strip a trailing comment that follows blanks, then look for "\" + blanks at the end.
        std::size_t cut = previous.size();
        for (std::size_t i = 0; i + 1 < previous.size(); ++i)
          if (blank(previous[i]) && previous[i + 1] == '#') {
            cut = i;
            break;
          }
        std::size_t end = cut;
        while (end > 0 && blank(previous[end - 1])) --end;
        bool trailing = end < previous.size();  // blanks or a comment after the last word
        std::size_t slashes = 0;
        while (end > slashes && previous[end - 1 - slashes] == '\\') ++slashes;
        if (trailing && slashes % 2 == 1) {
          std::string shown(word);
          out.push_back({ScriptFormNote::Kind::kBrokenContinuation,
                         prev + static_cast<std::uint32_t>(end - 1), prev_end, shown, start});
        }
      }
    }
    if (type == "heredoc_body" || type == "string" || type == "raw_string" || type == "comment") continue;
    cut_commands(c, text, depth + 1, out);
  }
}

}  // namespace

std::vector<ScriptFormFinding> find_script_form_mistakes(TSNode root, std::string_view text) {
  std::vector<ScriptFormFinding> out;
  std::uint32_t first_command = 0;
  bool found = false;
  for (TSNode c : NamedChildren(root)) {
    if (std::string_view(ts_node_type(c)) == "comment") continue;
    first_command = ts_node_start_byte(c);
    found = true;
    break;
  }
  // Each walk visits the whole tree; the text says first whether there is anything to find.
  if (found && text.find("#SBATCH", first_command) != std::string_view::npos)
    late_directives(root, text, first_command, 0, out);
  bool blank_after_backslash = false;
  for (std::size_t at = text.find('\\'); at != std::string_view::npos && !blank_after_backslash;
       at = text.find('\\', at + 1))
    blank_after_backslash = at + 1 < text.size() && blank(text[at + 1]);
  if (blank_after_backslash) cut_commands(root, text, 0, out);
  return out;
}

}  // namespace parlint
