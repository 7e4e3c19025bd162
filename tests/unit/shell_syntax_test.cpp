// Valid bash is never a syntax error: the grammar workarounds keep offsets, the bash syntax check finds
// only errors bash itself reports, and the parser turns the rest into unread regions (PL903).
#include <gtest/gtest.h>

#include <string>

#include "parsers/frameworks/adapters.h"
#include "parsers/shell/shell_grammar_workarounds.h"
#include "parsers/shell/shell_parser.h"
#include "parsers/shell/shell_syntax_check.h"

namespace parlint {
namespace {

ParsedFile sh(const std::string& text, const std::string& path = "t.sh") {
  SourceText source(text);
  return parse_shell(path, source, framework_adapters());
}

TEST(ShellGrammarWorkarounds, KeepTheLengthAndChangeOnlyWhatTheGrammarLacks) {
  const std::string cases[] = {
      "torchrun train.py \\\n  --tensor-model-parallel-size 2 \\\n",
      "x=$((10#$i + 1))\n(( y = 10#${j} ))\n",
      "V=\"${A:$K+1}\" W=${A:1:$N}\n",
      "cat > x <<EOF\nEOFINNER\nEOF\n",
      "case $x in a) echo;& b) echo;;& esac\n",
      "a=\"${x%%[*}\" b=\"${e%%]*}\"\n",
      "#SBATCH --nodes={{ nodes }}\n{% if x %}\necho\n",
      "read -r A <<< \\\n  \"$X\"\n",
  };
  for (const auto& c : cases) {
    std::string g = prepare_for_bash_grammar(c);
    EXPECT_EQ(g.size(), c.size()) << c;
    EXPECT_NE(g, c) << c;
  }
  EXPECT_EQ(prepare_for_bash_grammar("torchrun train.py \\\n  --tp 2 \\\n"),
            "torchrun train.py \\\n  --tp 2  \n");
  EXPECT_EQ(prepare_for_bash_grammar("x=$((10#$i))"), "x=$((   $i))");
  EXPECT_EQ(prepare_for_bash_grammar("x=$((16#ff))"), "x=$((16#ff))");  // the grammar reads this one
  EXPECT_EQ(prepare_for_bash_grammar("y=${x:-$d} z=${x:$k}"), "y=${x:-$d} z=${x: k}");
  // Text that needs none of them is left alone, including escaped backslashes at the end.
  for (std::string same :
       {"echo ok\n", "echo a \\\\\n", "cat <<EOF\nEOF\n", "echo $((1<<2))\n", "x=${a#b}\n"})
    EXPECT_EQ(prepare_for_bash_grammar(same), same);
}

TEST(BashSyntaxCheck, AcceptsWhatBashAccepts) {
  const char* valid[] = {
      "if [[ $x =~ ^(a|b)$ && -n \"$y\" ]]; then echo; fi\n",
      "case $x in\n  (a|b) echo ;;\n  --tp=*) TP=\"${x#*=}\" ;;\n  *) echo\nesac\n",
      "f() {\n  local a=$1\n}\nfunction g {\n  echo\n}\nh() ( echo )\n",
      "A=(\n  --tp 2 # comment\n  \"$X\"\n)\nA+=(--pp 4)\n",
      "while read -r x; do echo \"$x\"; done < <(ls)\n",
      "X=$(cat <<EOF\n$(echo \")\")\nEOF\n)\n",
      "for ((i = 0; i < 3; i++)); do :; done\nfor x in a b\ndo\n  :\ndone\n",
      "echo \"$(( $(nproc) / 2 ))\" `date` $'a\\'b' ${x:-\"a b\"} ${#a[@]}\n",
      "exec > >(tee -a log) 2>&1\ncmd &>> out |& tee x\n",
      "cat <<-'EOF'\n\tif\n\tEOF\necho\n",
      "torchrun x.py \\\n  --tp 2 \\\n",
      "cat <<EOF\nnever closed\n",  // bash warns, runs
      "{ echo; } 2>/dev/null || { echo no; exit 1; }\n",
      "echo $((10#$i)) ${A:$K+1}\n",
  };
  for (const char* v : valid) EXPECT_FALSE(find_bash_syntax_error(v).has_value()) << v;
}

TEST(BashSyntaxCheck, FindsWhatBashRefuses) {
  struct Case {
    const char* text;
    std::size_t offset;
    const char* says;
  };
  const Case bad[] = {
      {"echo ok\necho \"abc\n", 13, "\" opened here is never closed"},
      {"echo 'abc\n", 5, "' opened here"},
      {"if true; then\n echo\n", 0, "if has no fi"},
      {"echo\nfi\n", 5, "`fi` with nothing open"},
      {"export X=<slurm partition, used to feed>\n", 39, "redirection without a target"},
      {"x=$(echo\n", 2, "$( opened here"},
      {"X=<Path to checkpoint (e.g /345m)>\n", 22, "a ( in the middle of a command"},
      {"f()\n\n", 1, "function has no body"},
      {"echo ;; \n", 5, "outside a case branch"},
      {"for x in a; do\n echo\n", 0, "loop has no done"},
  };
  for (const auto& c : bad) {
    auto e = find_bash_syntax_error(c.text);
    ASSERT_TRUE(e.has_value()) << c.text;
    EXPECT_EQ(e->offset, c.offset) << c.text;
    EXPECT_NE(e->message.find(c.says), std::string::npos) << e->message;
  }
}

TEST(BashSyntaxCheck, HostileNestingGivesNoVerdictQuickly) {
  std::string deep;
  for (int i = 0; i < 50000; ++i) deep += "$(";
  EXPECT_FALSE(find_bash_syntax_error("echo " + deep).has_value());  // deeper than it follows
  EXPECT_TRUE(
      find_bash_syntax_error("echo $" + std::string(100000, '(')).has_value());  // one (( never closed
  std::string quotes(50000, '"');
  EXPECT_FALSE(find_bash_syntax_error(quotes).has_value());  // an even number of quotes
}

TEST(ShellParser, ValidBashTheGrammarMissesIsAnUnreadRegionNotASyntaxError) {
  auto pf =
      sh("#!/bin/bash\n"
         "[ \"$a\" \\< \"$b\" ] && echo\n"
         "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 4\n");
  EXPECT_TRUE(pf.errors.empty());
  ASSERT_EQ(pf.unread.size(), 1u);
  EXPECT_EQ(pf.unread[0].range.start.line, 2);
  ASSERT_EQ(pf.jobs.size(), 1u);  // the launch after it is still read
}

TEST(ShellParser, RealSyntaxErrorPointsWhereBashWould) {
  auto pf = sh("#!/bin/bash\necho ok\nCMD=\"torchrun x.py\nsrun bash -c \"$CMD\"\n");
  ASSERT_EQ(pf.errors.size(), 1u);
  EXPECT_EQ(pf.errors[0].range.start.line, 4);  // the last quote opens a string that never closes
  EXPECT_TRUE(pf.unread.empty());
}

TEST(ShellParser, LaunchOnTheLastContinuedLineIsRead) {
  auto pf = sh("torchrun --nproc_per_node 8 pretrain_gpt.py \\\n  --tensor-model-parallel-size 16 \\\n");
  EXPECT_TRUE(pf.errors.empty());
  EXPECT_TRUE(pf.unread.empty());
  ASSERT_EQ(pf.jobs.size(), 1u);
}

TEST(ShellParser, JinjaTemplateIsReadAroundItsPlaceholders) {
  auto pf = sh("#!/bin/bash\n#SBATCH --nodes={{ nodes }}\n{%- if x %}\nsrun python train.py\n{% endif %}\n",
               "slurm.sh.j2");
  EXPECT_TRUE(pf.errors.empty());
  EXPECT_TRUE(pf.unread.empty());
  EXPECT_EQ(pf.jobs.size(), 1u);
}

}  // namespace
}  // namespace parlint
