"""docs/found-in-the-wild.md (issue 46): generated from the hand-checked triage, it lists every finding the
triage agreed with, and its generator refuses a finding parlint no longer reports. Where the repositories
are at hand (PARLINT_WILD_ARGS: a file of corpus_triage.py's set arguments; PARLINT_WILD_CORPUS: the
public corpus), the page is regenerated from them and must be what it is."""
import csv
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
GEN = os.path.join(ROOT, "scripts", "found_in_the_wild.py")
PAGE = os.path.join(ROOT, "docs", "found-in-the-wild.md")
TRIAGE = os.path.join(ROOT, "tests", "corpus", "triage.tsv")
ENTRY = re.compile(r"^<!-- wild: ([^|]+)\|([^|]+)\|(\d+)\|(PL\d+) -->$", re.M)


def agreed():
    with open(TRIAGE, encoding="utf-8") as f:
        rows = csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t")
        return {(r["set"], r["path"], r["line"], r["code"]): r["severity"] for r in rows
                if r["verdict"] == "agree" and r["severity"] in ("error", "warning")}


class ThePage(unittest.TestCase):
    def setUp(self):
        with open(PAGE, encoding="utf-8") as f:
            self.page = f.read()

    def test_every_agreed_error_and_warning_has_one_entry(self):
        entries = ENTRY.findall(self.page)
        self.assertEqual(len(entries), len(set(entries)))
        self.assertEqual(set(entries), set(agreed()),
                         "the triage changed: regenerate the page (scripts/found_in_the_wild.py, make docs)")

    def test_counts_at_the_top_are_the_entries(self):
        rows = agreed()
        errors = sum(1 for s in rows.values() if s == "error")
        m = re.search(r"^(\d+) mistakes parlint reports in (\d+) public repositories.*\*\*(\d+) errors\*\*.*"
                      r"\*\*(\d+) warnings\*\*", self.page, re.M)
        self.assertIsNotNone(m)
        self.assertEqual((int(m[1]), int(m[3]), int(m[4])), (len(rows), errors, len(rows) - errors))
        table = re.findall(r"^\| \[[^]]+\]\(#[^)]+\) \| (\d+) \| (\d+) \|$", self.page, re.M)
        self.assertEqual(sum(int(e) + int(w) for e, w in table), len(rows))

    def test_each_entry_has_its_fields(self):
        blocks = self.page.split("\n### ")[1:]
        self.assertEqual(len(blocks), len(agreed()))
        for b in blocks:
            self.assertRegex(b, r"\n- where: \[[^]]+:\d+\]\(https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/")
            self.assertRegex(b, r"\n- parlint: (error|warning)\[PL\d+\] ")
            self.assertRegex(b, r"\n- checked by hand: ")

    def test_the_readme_links_it_with_the_counts(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        trusted = readme[readme.index("## How far it can be trusted"):]
        trusted = trusted[:trusted.index("\n## ", 5)]
        self.assertIn("(docs/found-in-the-wild.md)", trusted)
        rows = agreed()
        errors = sum(1 for s in rows.values() if s == "error")
        self.assertIn(f"{len(rows)} real mistakes ({errors} errors, {len(rows) - errors} warnings)", trusted)


class TheGenerator(unittest.TestCase):
    """On a set of our own: an agreed finding becomes an entry; once parlint no longer reports it (the file
    fixed here), the generator refuses and writes nothing."""

    def test_it_refuses_a_finding_parlint_no_longer_reports(self):
        with tempfile.TemporaryDirectory() as tmp:
            corpus = os.path.join(tmp, "corpus")
            os.makedirs(corpus)
            with open(os.path.join(corpus, "MANIFEST.tsv"), "w") as f:
                f.write("repo\tcommit\tpath\tkind\twhy-interesting\n")
            demo = os.path.join(tmp, "demo")
            os.makedirs(os.path.join(demo, "conf"))
            conf = os.path.join(demo, "conf", "train.yaml")
            with open(conf, "w") as f:
                f.write("trainer:\n  devices: 8\n  num_nodes: 1\nmodel:\n  tensor_model_parallel_size: 16\n")
            triage = os.path.join(tmp, "triage.tsv")
            with open(triage, "w") as f:
                f.write("set\tpath\tline\tcode\tseverity\tverdict\treason\n"
                        "demo\tconf/train.yaml\t3\tPL102\terror\tagree\tW=8 cannot hold TP=16\n")
            pointers = os.path.join(tmp, "sets.tsv")
            with open(pointers, "w") as f:
                f.write("set\trepo\tcommit\tfolders\n" f"demo\towner/demo\t{'a' * 40}\tconf\n")
            out = os.path.join(tmp, "page.md")
            args = [sys.executable, GEN, "--parlint", PARLINT, "--corpus", corpus, "--set", f"demo={demo}:conf",
                    "--triage", triage, "--pointers", pointers, "--out", out]
            p = subprocess.run(args, capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                page = f.read()
            self.assertIn("<!-- wild: demo|conf/train.yaml|3|PL102 -->", page)
            self.assertIn("- the line: `num_nodes: 1`", page)
            self.assertIn("https://github.com/owner/demo/blob/" + "a" * 40 + "/conf/train.yaml#L3", page)
            self.assertEqual(subprocess.run(args + ["--check"], capture_output=True, timeout=120).returncode, 0)
            with open(conf, "w") as f:
                f.write("trainer:\n  devices: 8\n  num_nodes: 2\nmodel:\n  tensor_model_parallel_size: 16\n")
            p = subprocess.run(args, capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 1)
            self.assertIn("no longer reported: demo:conf/train.yaml:3 error[PL102]", p.stderr)
            with open(out) as f:
                self.assertEqual(f.read(), page)  # nothing written


@unittest.skipUnless(os.environ.get("PARLINT_WILD_ARGS") and os.environ.get("PARLINT_WILD_CORPUS"),
                     "the repositories are not at hand (PARLINT_WILD_ARGS, PARLINT_WILD_CORPUS)")
class AgainstTheRepositories(unittest.TestCase):
    def test_the_page_is_what_parlint_reports_now(self):
        with open(os.environ["PARLINT_WILD_ARGS"]) as f:
            sets = shlex.split(f.read())
        p = subprocess.run([sys.executable, GEN, "--parlint", PARLINT, "--corpus", os.environ["PARLINT_WILD_CORPUS"],
                            *sets, "--check"], capture_output=True, text=True, timeout=1800)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])


if __name__ == "__main__":
    unittest.main()
