"""cmake/check_layers.py: a file's layer is its folder, and the build refuses an include the table does not allow."""
import importlib.util
import pathlib
import re
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


def load_check():
    spec = importlib.util.spec_from_file_location("check_layers", CHECK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Layers(unittest.TestCase):
    def test_the_tree_respects_its_layers(self):
        rc, err, stamp = run(ROOT)
        self.assertEqual(rc, 0, err)
        self.assertTrue(stamp)

    def test_a_rule_reaching_a_parser_through_a_header_is_refused(self):
        t = tree({
            "rules/api/rule.h": '#include "lint/resolve/job.h"\n',
            "lint/resolve/job.h": '#include "parsers/shell/shell_parser.h"\n',
            "parsers/shell/shell_parser.h": "\n",
            "rules/pl999_x.cpp": '#include "rules/api/rule.h"\n',
        })
        with t:
            rc, err, stamp = run(t.name)
        self.assertEqual(rc, 1)
        self.assertFalse(stamp)
        self.assertIn("rules/pl999_x.cpp (rules) reaches parsers/shell/shell_parser.h (parsers)", err)
        self.assertIn("rules/api/rule.h -> lint/resolve/job.h -> parsers/shell/shell_parser.h", err)

    def test_parsers_use_only_the_model(self):
        t = tree({
            "lint/model/fact.h": "\n",
            "lint/engine/engine.h": "\n",
            "parsers/yaml/yaml_parser.cpp": '#include "lint/model/fact.h"\n#include "lint/engine/engine.h"\n',
        })
        with t:
            rc, err, _ = run(t.name)
        self.assertEqual(rc, 1)
        self.assertIn("parsers/yaml/yaml_parser.cpp (parsers) reaches lint/engine/engine.h (engine)", err)
        self.assertNotIn("lint/model/fact.h (model)", err)

    def test_the_model_includes_nothing_outside_it(self):
        t = tree({"lint/model/keys.cpp": '#include "rules/api/rule.h"\n', "rules/api/rule.h": "\n"})
        with t:
            rc, err, _ = run(t.name)
        self.assertEqual(rc, 1)
        self.assertIn("lint/model/keys.cpp (model) reaches rules/api/rule.h (rules)", err)

    def test_an_edge_back_up_is_refused_whatever_the_file_is_called(self):
        # The layer comes from the folder alone: a knowledge file named like a model file is still knowledge.
        t = tree({"lint/knowledge/fact.cpp": '#include "lint/resolve/job.h"\n', "lint/resolve/job.h": "\n"})
        with t:
            rc, err, _ = run(t.name)
        self.assertEqual(rc, 1)
        self.assertIn("lint/knowledge/fact.cpp (knowledge) reaches lint/resolve/job.h (resolve)", err)

    def test_a_syntax_parser_may_not_include_a_framework_adapter(self):
        t = tree({"parsers/shell/x.cpp": '#include "parsers/frameworks/verl.h"\n', "parsers/frameworks/verl.h": "\n"})
        with t:
            rc, err, _ = run(t.name)
        self.assertEqual(rc, 1)
        self.assertIn("parsers/shell/x.cpp (parsers) reaches parsers/frameworks/verl.h (frameworks)", err)

    def test_a_file_outside_every_layer_folder_is_refused(self):
        t = tree({"lint/stray.cpp": "\n", "parsers/loose.h": "\n"})
        with t:
            rc, err, _ = run(t.name)
        self.assertEqual(rc, 1)
        self.assertIn("lint/stray.cpp is outside every layer folder", err)
        self.assertIn("parsers/loose.h is outside every layer folder", err)

    def test_a_known_break_that_is_gone_must_leave_the_list(self):
        check = load_check()
        check.KNOWN_BREAKS = {("parsers/yaml/y.cpp", "parsers/frameworks/f.h"): "while the move is under way"}
        with tree({"parsers/yaml/y.cpp": '#include "parsers/frameworks/f.h"\n', "parsers/frameworks/f.h": "\n"}) as t:
            self.assertEqual(check.check(pathlib.Path(t)), [])  # listed and still there: allowed
        with tree({"parsers/yaml/y.cpp": "\n"}) as t:
            errors = check.check(pathlib.Path(t))
        self.assertTrue(any("no longer exists: remove it" in e for e in errors), errors)

    def test_no_include_runs_the_wrong_way_any_more(self):
        self.assertEqual(load_check().KNOWN_BREAKS, {})

    def test_the_contributor_guide_prints_the_table_the_check_uses(self):
        table = subprocess.run([sys.executable, str(CHECK), "--table"], capture_output=True, text=True,
                               check=True).stdout
        guide = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
        m = re.search(r"<!-- layers: generated by cmake/check_layers.py --table -->\n(.*?)<!-- /layers -->",
                      guide, re.S)
        self.assertIsNotNone(m, "docs/contributing.md has no generated table of layers")
        self.assertEqual(m.group(1), table, "regenerate it: python3 cmake/check_layers.py --table")


if __name__ == "__main__":
    unittest.main()
