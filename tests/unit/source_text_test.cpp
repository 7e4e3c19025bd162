// SourceText: an edited text's index, updated around the edit, is the index of the text built afresh.
#include "lint/model/source_text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace parlint {
namespace {

void expect_same_index(const SourceText& a, const SourceText& b, const std::string& what) {
  ASSERT_EQ(a.text(), b.text()) << what;
  ASSERT_EQ(a.line_count(), b.line_count()) << what;
  for (int line = 1; line <= a.line_count(); ++line) {
    ASSERT_EQ(a.line_start(line), b.line_start(line)) << what << " line " << line;
    ASSERT_EQ(a.line(line), b.line(line)) << what << " line " << line;
  }
  for (std::size_t offset = 0; offset <= a.text().size(); offset += 7)
    ASSERT_EQ(a.position(offset), b.position(offset)) << what << " offset " << offset;
}

// Random edits: of ASCII text only (the index is updated each time), and with carriage returns and
// non-ASCII bytes among them (rebuilt from then on).
TEST(SourceText, EditedIndexIsTheFreshIndex) {
  std::mt19937 rng(44);
  const std::vector<std::string> ascii = {"a", "\n", "x\ny\n", "", "TP=8", "\n\n", "  # c\n", "}"};
  std::vector<std::string> more = ascii;
  for (const char* piece : {"\xc3\xbc", "\r", "\r\n", "\xe4\xb8\xad\n"}) more.push_back(piece);
  const std::vector<std::string>& mixed = more;
  int updated = 0;
  for (const auto* pieces : {&ascii, &mixed})
    for (std::string text :
         {std::string("TP=4\nPP=2\n"), std::string(""), std::string("no newline"),
          std::string("\xc3\xbc\nline\n"), std::string("a\r\nb\r\n"), std::string("\n\n\n")}) {
      SourceText index(text);
      for (int step = 0; step < 300; ++step) {
        std::size_t at = rng() % (text.size() + 1);
        std::size_t removed = std::min<std::size_t>(rng() % 4, text.size() - at);
        const std::string& added = (*pieces)[rng() % pieces->size()];
        updated += text.find_first_of("\r\x80\xbc\xc3\xe4") == std::string::npos;
        text.replace(at, removed, added);
        index = index.edited(text, at, removed, added.size());
        expect_same_index(index, SourceText(text), "step " + std::to_string(step) + " of \"" + text + "\"");
        if (HasFatalFailure()) return;
      }
    }
  EXPECT_GT(updated, 1000);
}

}  // namespace
}  // namespace parlint
