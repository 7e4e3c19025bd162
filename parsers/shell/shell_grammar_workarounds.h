#pragma once
// Forms bash accepts that tree-sitter-bash 0.25 does not parse. The grammar is given a copy of the
// text in which each such form is replaced by bytes of the same length that it does parse and that
// mean the same to parlint; values are still read from the original text (same offsets), so nothing
// the user wrote is lost and every position still maps 1:1.
#include <string>
#include <string_view>

namespace parlint {

// Returns `text` with the workarounds applied (always the same size as `text`):
// - a backslash continuation on the file's last line (`... \` then end of file) becomes a space;
// - base prefixes before an expansion in arithmetic (`$((10#$i))`, `(( 10#${x} ))`) become spaces;
// - a substring offset or length that starts with `$` (`${A:$K+1}`, `${A:1:$N}`) loses the `$`;
// - an unbalanced bracket in a removal or replacement pattern (`${x%%[*}`, `${e%%]*}`) becomes `_`;
// - a heredoc body line that starts with the delimiter but is longer (`EOFINNER` in an `<<EOF`
//   body) is changed in its first byte, so the grammar does not end the body there;
// - case terminators `;&` and `;;&` become `;;` (same branch structure for a static reader);
// - Jinja placeholders of templates: `{{ expr }}` becomes a word of `_`, a `{% tag %}` becomes blanks;
// - a here-string continued on the next line (`<<< \` newline `"$X"`) loses the continuation;
// - the placeholder byte of run-time text in strings run as shell becomes a letter.
std::string prepare_for_bash_grammar(std::string_view text);
// False when none of the forms above can be in `text` (most of a script's strings): no copy is needed.
bool needs_bash_grammar_workarounds(std::string_view text);

}  // namespace parlint
