"""The man page and the bash and zsh completions against the binary's command line: they are what
scripts/gen_cli_docs.py makes of this parlint now (not a stale build), every option `--help` lists is in
each of them, the man page renders without warnings, and the completions complete for real: the bash
function is called with COMP_WORDS, the zsh one runs in an interactive zsh on a pseudo-terminal
(zsh/zpty) with TAB pressed."""
import filecmp
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
DOCS = os.environ.get("CLI_DOCS_DIR", os.path.join(os.path.dirname(PARLINT), "cli-docs"))
GEN = os.path.join(ROOT, "scripts", "gen_cli_docs.py")
BASH = os.path.join(DOCS, "parlint.bash")
ZSH = os.path.join(DOCS, "_parlint")
MAN = os.path.join(DOCS, "parlint.1")
SUBCOMMANDS = ["check", "plan", "rules", "rule", "clusters", "lsp"]


def read(path):
    with open(path) as f:
        return f.read()


def parlint(*args):
    return subprocess.run([PARLINT, *args], capture_output=True, text=True, timeout=60)


def help_options(*sub):
    """Every option name in the Options section of `parlint [SUB] --help`."""
    text = parlint(*sub, "--help").stdout
    names, in_options = [], False
    for line in text.splitlines():
        if re.match(r"^\w+:$", line):
            in_options = line == "Options:"
            continue
        m = re.match(r"^  (-[^ ]+)", line)
        if in_options and m:
            names += m.group(1).split(",")
    return names


def rule_codes():
    import json
    return [r["code"] for r in json.loads(parlint("rules", "--format", "json").stdout)]


def bash_complete(words, cwd=None):
    """COMPREPLY of _parlint for the command line `words` (the last one is the word being completed)."""
    cword = len(words) - 1
    line = " ".join(words)
    script = (f"source {shlex.quote(BASH)}\n"
              f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)})\n"
              f"COMP_CWORD={cword}\nCOMP_LINE={shlex.quote(line)}\nCOMP_POINT={len(line)}\n"
              "_parlint parlint \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
              "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
                       timeout=30, cwd=cwd)
    if p.returncode != 0 or p.stderr:
        raise AssertionError(f"bash completion failed for {words}: {p.stderr}")
    return sorted(filter(None, p.stdout.split("\n")))


# An interactive zsh on a pseudo-terminal, completion set up with compinit and our _parlint in fpath;
# compadd is wrapped so that each match is printed (with the ignored prefix, e.g. `PL101,`) instead of
# inserted, and the shell exits after the first completion. Same idea as Valodim/zsh-capture-completion.
ZSH_INIT = r"""
PROMPT=
fpath=(%(fpath)s $fpath)
autoload -Uz compinit
compinit -u -d %(dump)s
bindkey '^M' undefined
bindkey '^J' undefined
bindkey '^I' complete-word
comppostfuncs=( exit )
zstyle ':completion:*' insert-tab false
compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
    builtin compadd "$@"
    return $?
  fi
  typeset -a __hits
  builtin compadd -A __hits "$@"
  local h
  for h in $__hits; do
    echo -E - "MATCH:$IPREFIX$h"
  done
}
echo init-ok
"""
ZSH_DRIVER = r"""
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "source ${(q)1}"
local line
repeat 20; do
  zpty -r z line || break
  [[ $line == init-ok* ]] && break
done
[[ $line == init-ok* ]] || { print -u2 "zsh completion set-up failed: $line"; exit 2 }
zpty -n -w z "$2"$'\t'
while zpty -r z line; do
  print -r -- "$line"
done
"""


class ManPageAndCompletions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for f in (BASH, ZSH, MAN):
            if not os.path.isfile(f):
                raise AssertionError(f"{f} is missing: it is built with the parlint_cli_docs target")
        cls.codes = rule_codes()
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_built_files_are_what_the_binary_gives_now(self):
        out = os.path.join(self.tmp, "fresh")
        subprocess.run([sys.executable, GEN, "--parlint", PARLINT, "--out-dir", out], check=True, timeout=120)
        for name in ("parlint.1", "parlint.1.gz", "parlint.bash", "_parlint"):
            self.assertTrue(filecmp.cmp(os.path.join(out, name), os.path.join(DOCS, name), shallow=False),
                            f"{name} is stale: rebuild the parlint_cli_docs target")

    def test_every_option_is_in_the_man_page_and_both_completions(self):
        page = read(MAN).replace("\\-", "-").replace("\\e", "\\")
        zsh = read(ZSH)
        self.assertIn("-V", help_options())
        for sub in SUBCOMMANDS:
            options = help_options(sub)
            self.assertIn("--help", options)
            self.assertIn(f".SS parlint {sub}", page)
            section = page.split(f".SS parlint {sub}", 1)[1].split(".SS ", 1)[0].split(".SH ", 1)[0]
            offered = bash_complete(["parlint", sub, "-"])
            for option in options:
                self.assertRegex(section, rf"\\fB{re.escape(option)}\\fR", f"man page, {sub} {option}")
                self.assertIn(option, offered, f"bash, {sub} {option}")
                self.assertRegex(zsh, rf"[{{,'*]{re.escape(option)}[=+,\[}}]", f"zsh, {sub} {option}")
        self.assertTrue({"--format", "--select", "--fix", "--cluster"} <= set(help_options("check")))
        self.assertTrue({"--tp", "--suggest", "--svg"} <= set(help_options("plan")))

    def test_man_page_renders_without_warnings(self):
        if not shutil.which("man"):
            self.skipTest("man-db is not installed")
        p = subprocess.run(["man", "--warnings", "-l", MAN], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0", PAGER="cat"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        text = re.sub(r".\x08", "", p.stdout)
        self.assertIn("parlint check [OPTIONS] [paths...]", text)
        self.assertIn("--fail-on error|warning|info|never", text)
        self.assertIn("PL101 tp-crosses-nvlink-domain (error)", text)
        self.assertIn("gb200-nvl72", text)
        for code in self.codes:
            self.assertIn(code, text)

    # --- bash, called the way readline calls it -----------------------------------------------------

    def test_bash_subcommands_and_global_options(self):
        self.assertEqual(bash_complete(["parlint", ""]), sorted(SUBCOMMANDS))
        self.assertEqual(bash_complete(["parlint", "r"]), ["rule", "rules"])
        self.assertEqual(bash_complete(["parlint", "--v"]), ["--version"])

    def test_bash_option_values(self):
        self.assertEqual(bash_complete(["parlint", "check", "--format", ""]),
                         sorted(["text", "gcc", "json", "github", "gitlab", "sarif"]))
        self.assertEqual(bash_complete(["parlint", "check", "--format", "g"]), ["gcc", "github", "gitlab"])
        # `--format=j`: bash splits at '=' (the default COMP_WORDBREAKS) ...
        self.assertEqual(bash_complete(["parlint", "check", "--format", "=", "j"]), ["json"])
        self.assertEqual(bash_complete(["parlint", "check", "--format", "="]),
                         sorted(["text", "gcc", "json", "github", "gitlab", "sarif"]))
        # ... or keeps one word when '=' is not a word break.
        self.assertEqual(bash_complete(["parlint", "check", "--fail-on=w"]), ["warning"])
        self.assertEqual(bash_complete(["parlint", "plan", "--format", ""]), ["json", "text"])
        self.assertEqual(bash_complete(["parlint", "rules", "--format", ""]), ["json", "markdown", "text"])
        self.assertEqual(bash_complete(["parlint", "check", "--framework", "nemo"]), ["nemo1", "nemo2"])
        self.assertEqual(bash_complete(["parlint", "check", "--cluster", "gb"]), ["gb200-nvl72", "gb300-nvl72"])
        self.assertIn("dgx-h100", bash_complete(["parlint", "plan", "--cluster", ""]))
        self.assertEqual(bash_complete(["parlint", "plan", "--tp", ""]), [])  # a number: nothing to offer
        self.assertEqual(bash_complete(["parlint", "check", "--fa"]), ["--fail-on"])

    def test_bash_rule_codes_and_names(self):
        self.assertEqual(bash_complete(["parlint", "check", "--select", ""]), sorted(self.codes))
        self.assertEqual(bash_complete(["parlint", "check", "--ignore", "PL10"]),
                         sorted(c for c in self.codes if c.startswith("PL10")))
        # A comma list: only the part after the last comma is completed, the head is kept.
        after = bash_complete(["parlint", "check", "--select", "PL101,PL90"])
        self.assertEqual(after, sorted("PL101," + c for c in self.codes if c.startswith("PL90")))
        self.assertEqual(bash_complete(["parlint", "check", "--ignore", "tp-cr"]), ["tp-crosses-nvlink-domain"])
        self.assertEqual(bash_complete(["parlint", "rule", "PL90"]), sorted(c for c in self.codes if c.startswith("PL90")))

    def test_bash_files(self):
        work = tempfile.mkdtemp(dir=self.tmp)
        for name in ("train.sbatch", "conf.yaml", "notes.txt"):
            open(os.path.join(work, name), "w").close()
        os.mkdir(os.path.join(work, "recipes"))
        everything = ["conf.yaml", "notes.txt", "recipes", "train.sbatch"]
        self.assertEqual(bash_complete(["parlint", "check", ""], cwd=work), everything)
        self.assertEqual(bash_complete(["parlint", "check", "--quiet", "tr"], cwd=work), ["train.sbatch"])
        self.assertEqual(bash_complete(["parlint", "plan", "c"], cwd=work), ["conf.yaml"])
        self.assertEqual(bash_complete(["parlint", "check", "--config", "c"], cwd=work), ["conf.yaml"])
        self.assertEqual(bash_complete(["parlint", "check", "-o", "n"], cwd=work), ["notes.txt"])

    def test_bash_registers_for_parlint(self):
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c", f"source {shlex.quote(BASH)}; complete -p parlint"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.stdout.strip(), "complete -F _parlint parlint")

    # --- zsh, in an interactive shell with TAB pressed ----------------------------------------------

    def zsh_complete(self, line, cwd=None):
        if not shutil.which("zsh"):
            self.skipTest("zsh is installed by scripts/setup-deps.sh")
        fpath = os.path.join(self.tmp, "zsh-fpath")
        os.makedirs(fpath, exist_ok=True)
        shutil.copy(ZSH, fpath)
        init = os.path.join(self.tmp, "init.zsh")
        with open(init, "w") as f:
            f.write(ZSH_INIT % {"fpath": shlex.quote(fpath), "dump": shlex.quote(os.path.join(self.tmp, "zcompdump"))})
        env = {"PATH": "/usr/bin:/bin", "HOME": self.tmp, "TERM": "dumb"}
        p = subprocess.run(["zsh", "-f", "-c", ZSH_DRIVER, "driver", init, line], capture_output=True, text=True,
                           timeout=60, cwd=cwd or self.tmp, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        matches = [m.group(1) for m in re.finditer(r"MATCH:([^\r\n]*)", p.stdout)]
        return sorted(set(matches))

    def test_zsh_subcommands_options_and_values(self):
        self.assertEqual(self.zsh_complete("parlint "), sorted(SUBCOMMANDS))
        self.assertTrue({"--format", "--select", "--cluster", "--fix", "--output"}
                        <= set(self.zsh_complete("parlint check --")))
        self.assertTrue({"--tp", "--suggest", "--model"} <= set(self.zsh_complete("parlint plan --")))
        self.assertEqual(self.zsh_complete("parlint check --format "),
                         sorted(["text", "gcc", "json", "github", "gitlab", "sarif"]))
        self.assertEqual(self.zsh_complete("parlint check --format=g"), ["--format=gcc", "--format=github", "--format=gitlab"])
        self.assertEqual(self.zsh_complete("parlint check --cluster gb"), ["gb200-nvl72", "gb300-nvl72"])
        self.assertEqual(self.zsh_complete("parlint rules --format "), ["json", "markdown", "text"])

    def test_zsh_rules_and_files(self):
        self.assertEqual(self.zsh_complete("parlint check --select "), sorted(self.codes))
        self.assertEqual(self.zsh_complete("parlint check --ignore PL101,PL90"),
                         sorted("PL101," + c for c in self.codes if c.startswith("PL90")))
        self.assertEqual(self.zsh_complete("parlint check --select tp-cr"), ["tp-crosses-nvlink-domain"])
        self.assertEqual(self.zsh_complete("parlint rule PL90"), sorted(c for c in self.codes if c.startswith("PL90")))
        work = tempfile.mkdtemp(dir=self.tmp)
        for name in ("train.sbatch", "conf.yaml"):
            open(os.path.join(work, name), "w").close()
        os.mkdir(os.path.join(work, "recipes"))
        self.assertEqual(self.zsh_complete("parlint check ", cwd=work), ["conf.yaml", "recipes", "train.sbatch"])
        self.assertEqual(self.zsh_complete("parlint check --config c", cwd=work), ["conf.yaml"])


if __name__ == "__main__":
    unittest.main()
