"""cmake/check_layers.py: the build refuses an include across the line between parlint's parts."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECK = ROOT / "cmake" / "check_layers.py"


def run(root):
    with tempfile.TemporaryDirectory() as tmp:
        stamp = pathlib.Path(tmp) / "layers.ok"
        r = subprocess.run([sys.executable, str(CHECK), str(root), str(stamp)], capture_output=True, text=True)
        return r.returncode, r.stderr, stamp.exists()


def tree(files):
    tmp = tempfile.TemporaryDirectory()
    for rel, text in files.items():
        p = pathlib.Path(tmp.name) / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp


class Layers(unittest.TestCase):
    def test_the_tree_respects_its_parts(self):
        rc, err, stamp = run(ROOT)
        self.assertEqual(rc, 0, err)
        self.assertTrue(stamp)

    def test_a_rule_reaching_a_parser_through_a_header_is_refused(self):
        t = tree({
            "lint/rule.h": '#include "lint/job.h"\n',
            "lint/job.h": '#include "parsers/shell_parser.h"\n',
            "parsers/shell_parser.h": "\n",
            "rules/pl999_x.cpp": '#include "lint/rule.h"\n',
        })
        with t:
            rc, err, stamp = run(t.name)
        self.assertEqual(rc, 1)
        self.assertFalse(stamp)
        self.assertIn("rules/pl999_x.cpp (rules) reaches parsers/shell_parser.h (parsers)", err)
        self.assertIn("lint/rule.h -> lint/job.h -> parsers/shell_parser.h", err)

    def test_parsers_use_only_the_fact_model(self):
        t = tree({
            "lint/fact.h": "\n",
            "lint/engine.h": "\n",
            "parsers/yaml_parser.cpp": '#include "lint/fact.h"\n#include "lint/engine.h"\n',
        })
        with t:
            rc, err, _ = run(t.name)
        self.assertEqual(rc, 1)
        self.assertIn("parsers/yaml_parser.cpp (parsers) reaches lint/engine.h (core)", err)
        self.assertNotIn("lint/fact.h (model)", err)

    def test_the_model_includes_nothing_outside_it(self):
        t = tree({"lint/keys.cpp": '#include "lint/rule.h"\n', "lint/rule.h": "\n"})
        with t:
            rc, err, _ = run(t.name)
        self.assertEqual(rc, 1)
        self.assertIn("lint/keys.cpp (model) reaches lint/rule.h (rule_api)", err)


if __name__ == "__main__":
    unittest.main()
