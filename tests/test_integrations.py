"""The GitHub problem matcher reads every line of parlint's gcc output."""
import json
import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))


class ProblemMatcher(unittest.TestCase):
    def test_matches_gcc_output(self):
        with open(os.path.join(ROOT, "integrations", "github", "parlint-problem-matcher.json")) as f:
            pattern = json.load(f)["problemMatcher"][0]["pattern"][0]
        regexp = re.compile(pattern["regexp"])
        out = subprocess.run([PARLINT, "check", "--format", "gcc", "fixtures"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60).stdout
        lines = out.splitlines()
        self.assertGreater(len(lines), 10)
        for line in lines:
            m = regexp.match(line)
            self.assertIsNotNone(m, line)
            self.assertTrue(os.path.exists(os.path.join(ROOT, m.group(pattern["file"]))))
            self.assertRegex(m.group(pattern["code"]), r"^PL\d{3}$")


if __name__ == "__main__":
    unittest.main()
