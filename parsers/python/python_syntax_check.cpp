#include "parsers/python/python_syntax_check.h"

#include <cctype>
#include <vector>

namespace parlint {
namespace {

struct Opener {
  char c;
  std::size_t at;
};

class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {}

  std::optional<PythonSyntaxError> run() {
    std::vector<std::size_t> indents{0};
    bool line_start = true;
    while (i_ < t_.size()) {
      if (error_) return error_;
      if (line_start && brackets_.empty()) {
        line_start = false;
        if (!indentation(indents)) return error_;
        continue;
      }
      char c = t_[i_];
      if (c == '#') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
      } else if (c == '\\' && i_ + 1 < t_.size() && (t_[i_ + 1] == '\n' || t_[i_ + 1] == '\r')) {
        i_ += t_[i_ + 1] == '\r' && i_ + 2 < t_.size() && t_[i_ + 2] == '\n' ? 3 : 2;  // joins the lines
      } else if (c == '\n') {
        ++i_;
        line_start = brackets_.empty();  // a line inside brackets continues the logical line
      } else if (c == '(' || c == '[' || c == '{') {
        brackets_.push_back({c, i_++});
      } else if (c == ')' || c == ']' || c == '}') {
        if (!close(c)) return error_;
      } else if (c == '"' || c == '\'') {
        if (!string(i_, false)) return error_;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        word();
      } else {
        ++i_;
      }
    }
    if (error_) return error_;
    if (!brackets_.empty())
      return PythonSyntaxError{brackets_.back().at,
                               std::string("'") + brackets_.back().c + "' was never closed"};
    return std::nullopt;
  }

 private:
  // A name, or a string prefix (r, b, u, f and their pairs) followed by its string.
  void word() {
    std::size_t b = i_;
    while (i_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[i_])) || t_[i_] == '_' ||
                              static_cast<unsigned char>(t_[i_]) >= 0x80))
      ++i_;
    if (i_ < t_.size() && (t_[i_] == '"' || t_[i_] == '\'') && i_ - b <= 2) {
      bool prefix = true, f = false;
      for (std::size_t k = b; k < i_; ++k) {
        char p = static_cast<char>(std::tolower(static_cast<unsigned char>(t_[k])));
        if (p != 'r' && p != 'b' && p != 'u' && p != 'f' && p != 't') prefix = false;
        f |= p == 'f' || p == 't';
      }
      if (prefix) string(b, f);
    }
  }

  // A string from its opening quote at i_ (its prefix starts at `start`); an f-string's replacement
  // fields may hold brackets and strings of their own (Python 3.12 allows the same quote inside).
  bool string(std::size_t start, bool f) {
    char q = t_[i_];
    bool triple = i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q;
    i_ += triple ? 3 : 1;
    int depth = 0;
    while (i_ < t_.size()) {
      char c = t_[i_];
      if (depth > 0) {
        if (c == '"' || c == '\'') {
          if (!string(i_, false)) return false;
          continue;
        }
        if (c == '{' || c == '[' || c == '(') ++depth;
        if (c == '}' || c == ']' || c == ')') --depth;
        ++i_;
        continue;
      }
      if (c == '\\') {
        i_ += 2;
        continue;
      }
      if (f && c == '{') {
        if (i_ + 1 < t_.size() && t_[i_ + 1] == '{') {
          i_ += 2;
          continue;
        }
        ++depth;
        ++i_;
        continue;
      }
      if (c == '\n' && !triple) break;
      if (c == q && (!triple || (i_ + 2 < t_.size() && t_[i_ + 1] == q && t_[i_ + 2] == q))) {
        i_ += triple ? 3 : 1;
        return true;
      }
      ++i_;
    }
    if (f) return give_up();  // an f-string's fields may hold what this scanner does not follow
    error_ = PythonSyntaxError{
        start, triple ? "unterminated triple-quoted string literal" : "unterminated string literal"};
    return false;
  }

  bool close(char c) {
    char want = c == ')' ? '(' : c == ']' ? '[' : '{';
    if (brackets_.empty()) {
      error_ = PythonSyntaxError{i_, std::string("unmatched '") + c + "'"};
      return false;
    }
    if (brackets_.back().c != want) {
      error_ = PythonSyntaxError{i_, std::string("closing parenthesis '") + c +
                                         "' does not match opening parenthesis '" + brackets_.back().c + "'"};
      return false;
    }
    brackets_.pop_back();
    ++i_;
    return true;
  }

  // A logical line's indentation against the levels open: a dedent must land on one of them.
  bool indentation(std::vector<std::size_t>& indents) {
    std::size_t width = 0, b = i_;
    bool tabs = false;
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\f')) {
      if (t_[i_] == '\t') {
        width = (width / 8 + 1) * 8;
        tabs = true;
      } else if (t_[i_] == ' ') {
        ++width;
      } else {
        width = 0;
      }
      ++i_;
    }
    if (i_ >= t_.size() || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '#') return true;  // blank
    if (tabs) return true;  // tab and space mixes are judged by rules this scanner does not follow
    if (width > indents.back()) {
      indents.push_back(width);
    } else {
      while (width < indents.back()) indents.pop_back();
      if (width != indents.back()) {
        error_ = PythonSyntaxError{b, "unindent does not match any outer indentation level"};
        return false;
      }
    }
    return true;
  }

  // No verdict on the rest of the file.
  bool give_up() {
    i_ = t_.size();
    brackets_.clear();
    return true;
  }

  std::string_view t_;
  std::size_t i_ = 0;
  std::vector<Opener> brackets_;
  std::optional<PythonSyntaxError> error_;
};

}  // namespace

std::optional<PythonSyntaxError> find_python_syntax_error(std::string_view text) {
  return Scanner(text).run();
}

}  // namespace parlint
