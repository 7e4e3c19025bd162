#include "parsers/shell/shell_syntax_check.h"

#include <cctype>
#include <vector>

namespace parlint {
namespace {

constexpr std::size_t kMaxFrames = 512;  // deeper nesting: no verdict (never a false error)

// What is open at a point of the text.
enum class Frame {
  kTop,
  kSubshell,    // ( ... )
  kCommandSub,  // $( ... ), <( ... ), >( ... )
  kGroup,       // { ... }
  kIf,          // if ... fi
  kLoop,        // while/until/for/select ... done
  kCase,        // case ... esac
  kArray,       // a=( ... )
  kDoubleQuote,
  kParameter,   // ${ ... }
  kArithmetic,  // (( ... )) and $(( ... ))
  kTest,        // [[ ... ]]
};

bool is_code(Frame f) {
  return f == Frame::kTop || f == Frame::kSubshell || f == Frame::kCommandSub || f == Frame::kGroup ||
         f == Frame::kIf || f == Frame::kLoop || f == Frame::kCase || f == Frame::kArray;
}

enum class CaseState { kSubject, kIn, kPattern, kBody };

struct Open {
  Frame frame;
  std::size_t at;  // offset of the opener
  // kLoop: `do` seen; kIf: `then` seen. kCase: where it stands.
  bool body = false;
  bool header_words = false;  // for/select header: words there are not commands
  CaseState case_state = CaseState::kSubject;
  int depth = 0;      // kArithmetic: open parentheses; kParameter: open braces
  bool empty = true;  // kIf, kLoop: no command yet since the last if/elif/then/else/while/do
  // kCommandSub: the word it sits in and the command around it, restored when it closes.
  struct Word {
    bool in_word = false, plain = true, command_start = true, after_word = false;
    bool redirect_pending = false, heredoc_pending = false;
    std::string text;
    std::size_t at = 0;
  } saved;
};

struct Heredoc {
  std::string delimiter;
  bool strip_tabs = false;
};

bool is_meta(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
         c == '<' || c == '>';
}

bool is_assignment_word(std::string_view w) {
  if (w.empty() || !(std::isalpha(static_cast<unsigned char>(w[0])) || w[0] == '_')) return false;
  std::size_t i = 1;
  while (i < w.size() && (std::isalnum(static_cast<unsigned char>(w[i])) || w[i] == '_')) ++i;
  if (i < w.size() && w[i] == '[') {
    while (i < w.size() && w[i] != ']') ++i;
    if (i < w.size()) ++i;
  }
  if (i < w.size() && w[i] == '+') ++i;
  return i < w.size() && w[i] == '=';
}

class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {
    stack_.push_back(Open{Frame::kTop, 0, false, false, CaseState::kSubject, 0, true, {}});
  }

  std::optional<BashSyntaxError> run() {
    while (i_ < t_.size() && !gave_up_ && !error_) step();
    if (gave_up_) return std::nullopt;
    if (error_) return error_;
    end_word();
    if (error_ || gave_up_) return gave_up_ ? std::nullopt : error_;
    if (redirect_pending_)
      return fail(redirect_at_,
                  "a redirection without a target (bash: syntax error near "
                  "unexpected token `newline')");
    if (stack_.size() > 1) return unclosed(stack_.back());
    if (body_pending_)
      return fail(*body_pending_, "this function has no body (bash: unexpected end of file)");
    return std::nullopt;
  }

 private:
  std::string_view t_;
  std::size_t i_ = 0;
  std::vector<Open> stack_;
  std::vector<Heredoc> heredocs_;
  bool gave_up_ = false;
  std::optional<BashSyntaxError> error_;
  // The word being read in a code frame.
  bool in_word_ = false;
  std::string word_;        // its literal characters
  bool word_plain_ = true;  // no quotes or expansions in it: it can be a keyword
  std::size_t word_at_ = 0;
  bool command_start_ = true;  // the next word is at command position
  bool after_word_ = false;    // the last token was a word (for `name ()`)
  bool redirect_pending_ = false, heredoc_pending_ = false, heredoc_strip_ = false;
  std::size_t redirect_at_ = 0;
  std::optional<std::size_t> body_pending_;  // `name()` seen, its body not yet

  Open& top() { return stack_.back(); }

  std::optional<BashSyntaxError> fail(std::size_t at, std::string message) {
    error_ = BashSyntaxError{at, std::move(message)};
    return error_;
  }
  void give_up() { gave_up_ = true; }

  void push(Frame f, std::size_t at) {
    if (stack_.size() >= kMaxFrames) return give_up();
    top().empty = false;  // a compound command or expansion is a command of the frame around it
    stack_.push_back(Open{f, at, false, false, CaseState::kSubject, 0, true, {}});
  }

  // $( ... ) and <( ... ) hold a whole command list inside one word of the command around them.
  void push_command_sub(std::size_t at, std::size_t skip) {
    Open::Word w{in_word_,          word_plain_,      command_start_, after_word_,
                 redirect_pending_, heredoc_pending_, word_,          word_at_};
    push(Frame::kCommandSub, at);
    if (gave_up_) return;
    top().saved = std::move(w);
    redirect_pending_ = heredoc_pending_ = false;
    i_ += skip;
    reset_command();
  }

  void pop_command_sub() {
    Open::Word w = std::move(top().saved);
    stack_.pop_back();
    in_word_ = w.in_word;
    word_plain_ = false;
    command_start_ = w.command_start;
    after_word_ = w.after_word;
    redirect_pending_ = w.redirect_pending;
    heredoc_pending_ = w.heredoc_pending;
    word_ = std::move(w.text);
    word_at_ = w.at;
  }

  std::optional<BashSyntaxError> unclosed(const Open& o) {
    switch (o.frame) {
      case Frame::kDoubleQuote:
        return fail(o.at, "the \" opened here is never closed (bash: unexpected end of file)");
      case Frame::kParameter:
        return fail(o.at, "the ${ opened here is never closed (bash: unexpected end of file)");
      case Frame::kCommandSub:
        return fail(o.at, "the $( opened here is never closed (bash: unexpected end of file)");
      case Frame::kSubshell:
      case Frame::kArray:
        return fail(o.at, "the ( opened here is never closed (bash: unexpected end of file)");
      case Frame::kArithmetic:
        return fail(o.at, "the (( opened here is never closed (bash: unexpected end of file)");
      case Frame::kGroup:
        return fail(o.at, "the { opened here has no matching } (bash: unexpected end of file)");
      case Frame::kIf:
        return fail(o.at, "this if has no fi (bash: unexpected end of file)");
      case Frame::kLoop:
        return fail(o.at, "this loop has no done (bash: unexpected end of file)");
      case Frame::kCase:
        return fail(o.at, "this case has no esac (bash: unexpected end of file)");
      case Frame::kTest:
        return fail(o.at, "the [[ opened here has no ]] (bash: unexpected end of file)");
      case Frame::kTop:
        break;
    }
    return std::nullopt;
  }

  char at(std::size_t k) const { return k < t_.size() ? t_[k] : '\0'; }

  void step() {
    Frame f = top().frame;
    if (is_code(f)) return code_step();
    switch (f) {
      case Frame::kDoubleQuote:
        return double_quote_step();
      case Frame::kParameter:
        return parameter_step();
      case Frame::kArithmetic:
        return arithmetic_step();
      case Frame::kTest:
        return test_step();
      default:
        return give_up();
    }
  }

  // ---- pieces shared by every frame -----------------------------------------------------------

  // `$...` at i_: pushes the frame it opens, or steps over a simple expansion. Returns false when the
  // `$` is a literal.
  bool dollar() {
    char n = at(i_ + 1);
    if (n == '(' && at(i_ + 2) == '(') {
      push(Frame::kArithmetic, i_);
      top().depth = 2;
      i_ += 3;
      return true;
    }
    if (n == '(') {
      push_command_sub(i_, 2);
      return true;
    }
    if (n == '{') {
      push(Frame::kParameter, i_);
      top().depth = 1;
      i_ += 2;
      return true;
    }
    if (n == '[') {  // $[ ... ]: old arithmetic
      std::size_t k = i_ + 2;
      while (k < t_.size() && t_[k] != ']') ++k;
      if (k >= t_.size()) return give_up(), true;
      i_ = k + 1;
      return true;
    }
    if (n == '\'') {  // $'...': backslash escapes
      std::size_t open = i_;
      std::size_t k = i_ + 2;
      while (k < t_.size() && t_[k] != '\'') k += t_[k] == '\\' ? 2 : 1;
      if (k >= t_.size())
        return fail(open, "the $' opened here is never closed (bash: unexpected end of file)"), true;
      i_ = k + 1;
      return true;
    }
    ++i_;
    return true;
  }

  // `...` at i_ (its content is a command list; parlint does not look inside for errors).
  void backtick() {
    std::size_t open = i_;
    std::size_t k = i_ + 1;
    while (k < t_.size() && t_[k] != '`') k += t_[k] == '\\' ? 2 : 1;
    if (k >= t_.size()) {
      fail(open, "the ` opened here is never closed (bash: unexpected end of file)");
      return;
    }
    i_ = k + 1;
  }

  void single_quote() {
    std::size_t open = i_;
    std::size_t k = t_.find('\'', i_ + 1);
    if (k == std::string_view::npos) {
      fail(open, "the ' opened here is never closed (bash: unexpected end of file)");
      return;
    }
    i_ = k + 1;
  }

  // ---- code -----------------------------------------------------------------------------------

  void reset_command() {
    in_word_ = false;
    command_start_ = true;
    after_word_ = false;
  }

  void begin_word() {
    body_pending_.reset();
    if (in_word_) return;
    in_word_ = true;
    word_.clear();
    word_plain_ = true;
    word_at_ = i_;
  }

  void code_step() {
    char c = t_[i_];
    if (c == '\\') {
      if (at(i_ + 1) == '\n') {
        i_ += 2;  // continuation
        return;
      }
      begin_word();
      word_plain_ = false;
      i_ += 2;
      return;
    }
    if (c == '#' && !in_word_) {
      while (i_ < t_.size() && t_[i_] != '\n') ++i_;
      return;
    }
    if (c == '\'') {
      begin_word();
      word_plain_ = false;
      return single_quote();
    }
    if (c == '"') {
      begin_word();
      word_plain_ = false;
      push(Frame::kDoubleQuote, i_++);
      return;
    }
    if (c == '`') {
      begin_word();
      word_plain_ = false;
      return backtick();
    }
    if (c == '$') {
      begin_word();
      word_plain_ = false;
      dollar();
      return;
    }
    if (c == '(' && in_word_) {
      // a=( ... ), a+=( ... ); extglob @( ... ); otherwise a function name: `f()`.
      if (!word_.empty() && word_.back() == '=' && is_assignment_word(word_)) {
        push(Frame::kArray, i_++);
        in_word_ = false;
        return;
      }
      if (!word_.empty() && (word_.back() == '@' || word_.back() == '?' || word_.back() == '*' ||
                             word_.back() == '+' || word_.back() == '!'))
        return give_up();
    }
    if (!is_meta(c)) {
      begin_word();
      word_.push_back(c);
      ++i_;
      return;
    }
    if ((c == '<' || c == '>') && at(i_ + 1) == '(') {  // process substitution: a word
      begin_word();
      word_plain_ = false;
      return push_command_sub(i_, 2);
    }
    std::size_t before = i_;
    end_word();
    if (error_ || gave_up_ || i_ != before) return;  // a keyword read ahead (`function f`, `for ((`)
    if (top().frame == Frame::kArray) {
      if (c == ')') {
        stack_.pop_back();
        command_start_ = true;  // the assignment is done; a command may follow
        after_word_ = false;
        in_word_ = false;
        ++i_;
        return;
      }
      if (c == ' ' || c == '\t' || c == '\n') {
        ++i_;
        if (c == '\n') read_heredoc_bodies();
        return;
      }
      return give_up();
    }
    switch (c) {
      case ' ':
      case '\t':
        ++i_;
        return;
      case '\n':
        ++i_;
        if (redirect_pending_) {
          fail(redirect_at_,
               "a redirection without a target (bash: syntax error near unexpected token `newline')");
          return;
        }
        read_heredoc_bodies();
        if (top().frame == Frame::kCase && top().case_state != CaseState::kBody) return;
        if (top().frame == Frame::kLoop && top().header_words) {
          command_start_ = true;
          return;
        }
        command_start_ = true;
        after_word_ = false;
        return;
      case ';':
        return semicolon();
      case '&':
      case '|':
        if (redirect_pending_) return redirect_without_target();
        if (c == '&' && (at(i_ + 1) == '>')) return redirection();
        i_ += (at(i_ + 1) == c || (c == '|' && at(i_ + 1) == '&')) ? 2 : 1;
        if (c == '|' && top().frame == Frame::kCase && top().case_state == CaseState::kPattern) return;
        command_start_ = true;
        after_word_ = false;
        return;
      case '<':
      case '>':
        if (redirect_pending_) return redirect_without_target();
        return redirection();
      case '(':
        return open_paren();
      case ')':
        return close_paren();
      default:
        return give_up();
    }
  }

  void semicolon() {
    if (redirect_pending_) return redirect_without_target();
    bool dbl = at(i_ + 1) == ';';
    std::size_t len = dbl ? (at(i_ + 2) == '&' ? 3 : 2) : (at(i_ + 1) == '&' ? 2 : 1);
    if (len > 1) {
      if (top().frame != Frame::kCase || top().case_state != CaseState::kBody) {
        fail(i_, "`;;` outside a case branch (bash: syntax error near unexpected token `;;')");
        return;
      }
      top().case_state = CaseState::kPattern;
      i_ += len;
      return;
    }
    ++i_;
    command_start_ = true;
    after_word_ = false;
  }

  void redirect_without_target() {
    fail(redirect_at_, "a redirection without a target (bash: syntax error near unexpected token)");
  }

  void redirection() {
    std::size_t start = i_;
    char c = t_[i_];
    std::size_t k = i_ + 1;
    bool heredoc = false;
    if (c == '&') {
      k = i_ + 2;  // &> or &>>
      if (at(k) == '>') ++k;
    } else if (c == '<') {
      if (at(k) == '<') {
        ++k;
        if (at(k) == '<') {
          ++k;  // <<< here-string
        } else {
          heredoc = true;
          if (at(k) == '-') {
            heredoc_strip_ = true;
            ++k;
          } else {
            heredoc_strip_ = false;
          }
        }
      } else if (at(k) == '&' || at(k) == '>') {
        ++k;
      }
    } else {  // >
      if (at(k) == '>' || at(k) == '|' || at(k) == '&') ++k;
    }
    i_ = k;
    redirect_pending_ = true;
    heredoc_pending_ = heredoc;
    redirect_at_ = start;
  }

  void open_paren() {
    if (redirect_pending_) return redirect_without_target();
    Open& o = top();
    if (o.frame == Frame::kCase && o.case_state == CaseState::kPattern) {
      ++i_;  // (pattern)
      return;
    }
    body_pending_.reset();
    if (after_word_ && !command_start_) {
      // name () compound-command; any other ( after a word is refused
      std::size_t k = i_ + 1;
      while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
      if (at(k) != ')') {
        fail(i_, "a ( in the middle of a command (bash: syntax error near unexpected token `(')");
        return;
      }
      body_pending_ = i_;
      i_ = k + 1;
      command_start_ = true;
      after_word_ = false;
      return;
    }
    if (!command_start_) return give_up();
    if (at(i_ + 1) == '(') {
      push(Frame::kArithmetic, i_);
      top().depth = 2;
      i_ += 2;
      command_start_ = false;
      return;
    }
    push(Frame::kSubshell, i_++);
    reset_command();
  }

  void close_paren() {
    if (redirect_pending_) return redirect_without_target();
    Open& o = top();
    if (o.frame == Frame::kCase && o.case_state == CaseState::kPattern) {
      o.case_state = CaseState::kBody;
      ++i_;
      reset_command();
      return;
    }
    if (o.frame == Frame::kCommandSub) {
      ++i_;
      return pop_command_sub();
    }
    if (o.frame == Frame::kSubshell) {
      stack_.pop_back();
      ++i_;
      command_start_ = false;
      after_word_ = true;
      in_word_ = false;
      return;
    }
    if (o.frame == Frame::kTop) {
      fail(i_, "a ) with no ( open (bash: syntax error near unexpected token `)')");
      return;
    }
    give_up();  // a ) inside if/while/{ }: bash refuses, but say nothing we are not sure of
  }

  void end_word() {
    if (!in_word_) return;
    in_word_ = false;
    if (redirect_pending_) {
      redirect_pending_ = false;
      top().empty = false;  // `then > file; fi` is a command
      if (heredoc_pending_) {
        heredoc_pending_ = false;
        std::string delim;
        std::string_view raw = t_.substr(word_at_, i_ - word_at_);
        for (char ch : raw)
          if (ch != '\'' && ch != '"' && ch != '\\') delim.push_back(ch);
        heredocs_.push_back({delim, heredoc_strip_});
      }
      after_word_ = false;
      return;
    }
    Open& o = top();
    if (o.frame == Frame::kCase && o.case_state != CaseState::kBody) {
      if (o.case_state == CaseState::kSubject) {
        o.case_state = CaseState::kIn;
      } else if (o.case_state == CaseState::kIn) {
        if (!word_plain_ || word_ != "in") return give_up();
        o.case_state = CaseState::kPattern;
      } else if (word_plain_ && word_ == "esac") {
        stack_.pop_back();
        command_start_ = false;
      }
      return;
    }
    if (o.frame == Frame::kLoop && o.header_words) {
      if (command_start_ && word_plain_ && word_ == "do") {
        o.header_words = false;
        o.empty = true;
        o.body = true;
        reset_command();
        return;
      }
      if (command_start_ && !(word_plain_ && word_ == "in")) return give_up();
      command_start_ = false;
      return;
    }
    if (command_start_ && word_plain_ && keyword()) return;
    top().empty = false;
    if (command_start_ && is_assignment_word(word_)) return;  // X=1 cmd
    command_start_ = false;
    after_word_ = true;
  }

  // A reserved word at command position; false when the word is not one.
  bool keyword() {
    const std::string& w = word_;
    std::size_t at_ = word_at_;
    auto stray = [&](std::string_view what) {
      fail(at_, "`" + std::string(what) +
                    "` with nothing open that it could close (bash: syntax error near "
                    "unexpected token `" +
                    std::string(what) + "')");
    };
    if (w == "if" || w == "while" || w == "until") {
      push(w == "if" ? Frame::kIf : Frame::kLoop, at_);
      reset_command();
      return true;
    }
    if (w == "for" || w == "select") {
      push(Frame::kLoop, at_);
      top().header_words = true;
      command_start_ = false;
      after_word_ = false;
      // for (( ... )); do
      std::size_t k = i_;
      while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
      if (at(k) == '(' && at(k + 1) == '(') {
        push(Frame::kArithmetic, k);
        top().depth = 2;
        i_ = k + 2;
      }
      return true;
    }
    if (w == "case") {
      push(Frame::kCase, at_);
      return true;
    }
    auto nothing_before = [&](std::string_view what) {
      fail(at_, "`" + std::string(what) +
                    "` with no command before it (bash: syntax error near unexpected token `" +
                    std::string(what) + "')");
    };
    if (w == "then" || w == "elif" || w == "else") {
      if (top().frame != Frame::kIf) return stray(w), true;
      if (top().empty) return nothing_before(w), true;
      top().empty = true;
      reset_command();
      return true;
    }
    if (w == "fi") {
      if (top().frame != Frame::kIf) return stray(w), true;
      if (top().empty) return nothing_before(w), true;
      stack_.pop_back();
      command_start_ = false;
      return true;
    }
    if (w == "do") {
      if (top().frame != Frame::kLoop || top().body) return stray(w), true;
      if (top().empty && !top().header_words) return nothing_before(w), true;
      top().empty = true;
      top().body = true;
      reset_command();
      return true;
    }
    if (w == "done") {
      if (top().frame != Frame::kLoop || !top().body) return stray(w), true;
      if (top().empty) return nothing_before(w), true;
      stack_.pop_back();
      command_start_ = false;
      return true;
    }
    if (w == "esac") {
      if (top().frame != Frame::kCase) return stray(w), true;
      stack_.pop_back();
      command_start_ = false;
      return true;
    }
    if (w == "{") {
      push(Frame::kGroup, at_);
      reset_command();
      return true;
    }
    if (w == "}") {
      if (top().frame != Frame::kGroup) return stray(w), true;
      stack_.pop_back();
      command_start_ = false;
      return true;
    }
    if (w == "function") {  // function NAME [()] BODY: the body is a command
      std::size_t k = i_;
      while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
      while (k < t_.size() && !is_meta(t_[k])) ++k;
      while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
      if (at(k) == '(') {
        ++k;
        while (k < t_.size() && (t_[k] == ' ' || t_[k] == '\t')) ++k;
        if (at(k) != ')') return give_up(), true;
        ++k;
      }
      i_ = k;
      reset_command();
      return true;
    }
    if (w == "!" || w == "time" || w == "coproc") return true;
    if (w == "[[") {
      push(Frame::kTest, at_);
      return true;
    }
    return false;
  }

  // After a newline in code: the bodies of the heredocs the line opened.
  void read_heredoc_bodies() {
    for (const Heredoc& h : heredocs_) {
      bool closed = false;
      while (i_ < t_.size()) {
        std::size_t e = t_.find('\n', i_);
        if (e == std::string_view::npos) e = t_.size();
        std::string_view line = t_.substr(i_, e - i_);
        i_ = e < t_.size() ? e + 1 : e;
        if (h.strip_tabs)
          while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line == h.delimiter) {
          closed = true;
          break;
        }
      }
      if (!closed) break;  // bash only warns: "here-document delimited by end-of-file"
    }
    heredocs_.clear();
  }

  // ---- other frames ---------------------------------------------------------------------------

  void double_quote_step() {
    char c = t_[i_];
    if (c == '\\') {
      i_ += 2;
    } else if (c == '"') {
      stack_.pop_back();
      ++i_;
    } else if (c == '$') {
      dollar();
    } else if (c == '`') {
      backtick();
    } else {
      ++i_;
    }
  }

  void parameter_step() {
    char c = t_[i_];
    if (c == '\\') {
      i_ += 2;
    } else if (c == '}') {
      if (--top().depth == 0) stack_.pop_back();
      ++i_;
    } else if (c == '{') {
      ++top().depth;
      ++i_;
    } else if (c == '\'') {
      single_quote();
    } else if (c == '"') {
      push(Frame::kDoubleQuote, i_++);
    } else if (c == '$') {
      dollar();
    } else if (c == '`') {
      backtick();
    } else {
      ++i_;
    }
  }

  void arithmetic_step() {
    char c = t_[i_];
    if (c == '(') {
      ++top().depth;
    } else if (c == ')') {
      if (--top().depth == 0) stack_.pop_back();
    } else if (c == '$') {
      dollar();
      return;
    } else if (c == '"') {
      push(Frame::kDoubleQuote, i_);
    } else if (c == '`') {
      backtick();
      return;
    }
    ++i_;
  }

  void test_step() {
    char c = t_[i_];
    if (c == '\\') {
      i_ += 2;
    } else if (c == '\'') {
      single_quote();
    } else if (c == '"') {
      push(Frame::kDoubleQuote, i_++);
    } else if (c == '$') {
      dollar();
    } else if (c == '`') {
      backtick();
    } else if (c == ']' && at(i_ + 1) == ']' && (i_ == 0 || t_[i_ - 1] == ' ' || t_[i_ - 1] == '\t') &&
               (i_ + 2 >= t_.size() || is_meta(t_[i_ + 2]))) {
      stack_.pop_back();
      i_ += 2;
      command_start_ = false;
      after_word_ = false;
    } else {
      ++i_;
    }
  }
};

}  // namespace

std::optional<BashSyntaxError> find_bash_syntax_error(std::string_view text) {
  return Scanner(text).run();
}

}  // namespace parlint
