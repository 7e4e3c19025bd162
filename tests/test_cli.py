"""Command-line behaviour of the built parlint binary: exit codes, formats, file selection, safety.

Run by ctest with PARLINT set to the binary.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(os.path.dirname(__file__), "..", "build", "parlint")))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# 3 nodes of 8: TP=16 crosses nodes (PL101) and 24 GPUs do not hold TP=16 (PL102).
TP16 = "trainer:\n  devices: 8\n  num_nodes: 3\nmodel:\n  tensor_model_parallel_size: 16\n"
CLEAN = "trainer:\n  devices: 8\n  num_nodes: 2\nmodel:\n  tensor_model_parallel_size: 4\n"
INFO_ONLY = ("trainer:\n  num_nodes: 2\n  devices: 8\nmodel:\n  num_moe_experts: 32\n  tensor_model_parallel_size: 2\n"
             "  expert_model_parallel_size: 8\n  expert_tensor_parallel_size: 1\n  sequence_parallel: true\n")
WARNING_ONLY = "trainer:\n  devices: 8\n  num_nodes: 3\nmodel:\n  tensor_model_parallel_size: 6\n"


def run(*args, cwd=None, stdin=None, env=None):
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    e["COLUMNS"] = "1000"  # `plan` text unbroken: these tests read its content (PlanWidth reads its lines)
    e.update(env or {})
    return subprocess.run([PARLINT, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60, env=e)


def ciede2000(hex1, hex2):
    """CIEDE2000 colour difference of two #rrggbb colours (sRGB, D65)."""
    import math

    def lab(h):
        def lin(c):
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = (lin(int(h[i:i + 2], 16) / 255) for i in (1, 3, 5))
        x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
        return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))

    (L1, a1, b1), (L2, a2, b2) = lab(hex1), lab(hex2)
    cb = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cb ** 7 / (cb ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0 if c1 * c2 == 0 else (h2 - h1 - 360 if h2 - h1 > 180 else h2 - h1 + 360 if h2 - h1 < -180 else h2 - h1)
    dH = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    lb, cbp = (L1 + L2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        hb = h1 + h2
    elif abs(h1 - h2) <= 180:
        hb = (h1 + h2) / 2
    else:
        hb = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hb - 30)) + 0.24 * math.cos(math.radians(2 * hb))
         + 0.32 * math.cos(math.radians(3 * hb + 6)) - 0.20 * math.cos(math.radians(4 * hb - 63)))
    rt = -math.sin(math.radians(60 * math.exp(-((hb - 275) / 25) ** 2))) * 2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lb - 50) ** 2 / math.sqrt(20 + (lb - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    dl, dc = (L2 - L1) / sl, (c2 - c1) / sc
    return math.sqrt(dl ** 2 + dc ** 2 + (dH / sh) ** 2 + rt * dc * (dH / sh))


class TempDir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="parlint-cli-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, rel, text):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return path


class ExitCodes(TempDir):
    def test_findings_exit_1_and_clean_exit_0(self):
        self.assertEqual(run("check", self.write("bad.yaml", TP16)).returncode, 1)
        r = run("check", self.write("good.yaml", CLEAN))
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("No problems found in 1 file.", r.stdout)

    def test_fail_on_threshold(self):
        warn = self.write("warn.yaml", WARNING_ONLY)
        info = self.write("info.yaml", INFO_ONLY)
        self.assertEqual(run("check", warn).returncode, 1)                     # default: warning
        self.assertEqual(run("check", "--fail-on", "error", warn).returncode, 0)
        self.assertEqual(run("check", info).returncode, 0)                     # info does not fail by default
        self.assertEqual(run("check", "--fail-on", "info", info).returncode, 1)
        self.assertEqual(run("check", "--fail-on", "never", self.write("bad.yaml", TP16)).returncode, 0)

    def test_missing_path_is_exit_2_after_linting_the_rest(self):
        bad = self.write("bad.yaml", TP16)
        r = run("check", "--format", "json", os.path.join(self.dir, "missing.yaml"), bad)
        self.assertEqual(r.returncode, 2)
        doc = json.loads(r.stdout)
        self.assertEqual(sorted(d["code"] for d in doc["diagnostics"]), ["PL101", "PL102"])
        self.assertEqual(doc["errors"][0]["path"], os.path.join(self.dir, "missing.yaml"))
        self.assertIn("No such file", doc["errors"][0]["message"])
        self.assertIn("missing.yaml", r.stderr)

    def test_text_summary_counts_unreadable_inputs(self):
        r = run("check", os.path.join(self.dir, "gone.yaml"), os.path.join(self.dir, "gone.sh"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("No problems found in 0 files; 2 inputs could not be read.", r.stdout)
        r = run("check", os.path.join(self.dir, "gone.yaml"), self.write("bad.yaml", TP16))
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stdout, r"in 1 file; 1 input could not be read\.\n$")

    def test_fifo_is_refused_without_blocking(self):
        fifo = os.path.join(self.dir, "pipe.yaml")
        os.mkfifo(fifo)
        r = run("check", fifo)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a regular file", r.stderr)

    def test_oversized_file_is_reported_not_read(self):
        big = self.write("big.yaml", "# " + "x" * (17 << 20) + "\n")
        r = run("check", big)
        self.assertEqual(r.returncode, 2)
        self.assertIn("MiB limit", r.stderr)

    def test_syntax_error_is_a_finding_exit_1(self):
        r = run("check", "--format", "gcc", self.write("broken.yaml", "model: [1, 2\n"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("[PL900]", r.stdout)

    def test_usage_errors_exit_2(self):
        self.assertEqual(run().returncode, 2)
        self.assertEqual(run("check", "--format", "xml", ".").returncode, 2)
        self.assertEqual(run("check", "--no-such-option").returncode, 2)
        r = run("check", "--select", "PL999", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("PL999", r.stderr)
        r = run("check", "--cluster", "dgx-z9000", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("gb200-nvl72", r.stderr)


class Formats(TempDir):
    def test_json_matches_the_design_shape(self):
        self.write("a/bad.yaml", TP16)
        self.write("a/ok.yaml", CLEAN)
        r = run("check", "--format", "json", "a", cwd=self.dir)
        self.assertEqual(r.returncode, 1)
        doc = json.loads(r.stdout)
        self.assertEqual(list(doc), ["version", "tool", "files_checked", "diagnostics", "errors", "summary"])
        self.assertEqual(doc["version"], 1)
        self.assertEqual(doc["tool"]["name"], "parlint")
        self.assertRegex(doc["tool"]["version"], r"^\d+\.\d+\.\d+$")
        self.assertEqual(doc["files_checked"], 2)
        self.assertEqual(doc["errors"], [])
        self.assertEqual(doc["summary"], {"error": 2, "warning": 0, "info": 0})
        self.assertEqual([(d["range"]["start"]["line"], d["code"]) for d in doc["diagnostics"]],
                         [(3, "PL102"), (5, "PL101")])  # sorted by path, line, column, code
        d = doc["diagnostics"][1]
        self.assertEqual(list(d), ["code", "name", "severity", "message", "path", "range", "related", "help", "fix"])
        self.assertEqual((d["code"], d["name"], d["severity"]), ("PL101", "tp-crosses-nvlink-domain", "error"))
        self.assertEqual(d["path"], "a/bad.yaml")  # relative stays relative
        self.assertEqual(d["range"], {"start": {"line": 5, "column": 31}, "end": {"line": 5, "column": 33}})
        # An unsafe fix: TP into the 8-GPU node, as an edit of the value's own text.
        self.assertEqual(d["fix"], {"applicability": "unsafe",
                                    "message": "set TP to 8 (data parallelism takes the other GPUs)",
                                    "edits": [{"path": "a/bad.yaml", "range": d["range"], "new_text": "8"}]})
        self.assertEqual(d["related"][0]["path"], "a/bad.yaml")
        self.assertEqual(d["related"][0]["range"]["start"]["line"], 2)
        self.assertIsInstance(d["related"][0]["message"], str)
        self.assertTrue(d["help"])

    def test_gcc_format(self):
        self.write("bad.yaml", TP16)
        r = run("check", "--format", "gcc", "bad.yaml", cwd=self.dir)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2)  # PL101 and PL102
        for line in lines:
            self.assertRegex(line, r"^bad\.yaml:\d+:\d+: (error|warning|note): .* \[PL\d{3}\]$")

    def test_text_format_snippet_and_summary(self):
        self.write("bad.yaml", TP16)
        r = run("check", "bad.yaml", cwd=self.dir)
        self.assertIn("bad.yaml:5:31: error[PL101] TP=16 spans 2 NVLink domains of 8 GPUs", r.stdout)
        self.assertIn("5 |   tensor_model_parallel_size: 16\n  |                               ^^\n", r.stdout)
        self.assertIn("= help: keep TP <= 8", r.stdout)
        self.assertIn("= note: bad.yaml:2:12: GPUs per node set here", r.stdout)
        self.assertRegex(r.stdout, r"Found \d+ problems? \(\d+ errors?, \d+ warnings?, \d+ info\) in 1 file\.\n$")
        self.assertNotIn("\x1b", r.stdout)  # not a terminal: no colour
        q = run("check", "--quiet", "bad.yaml", cwd=self.dir)
        self.assertNotIn("Found", q.stdout)

    def test_colour_flags(self):
        bad = self.write("bad.yaml", TP16)
        self.assertIn("\x1b[", run("check", "--color", "always", bad).stdout)
        self.assertNotIn("\x1b[", run("check", "--color", "never", bad).stdout)

    def test_control_characters_from_input_are_escaped(self):
        bad = self.write("bad.yaml", TP16.replace("16\n", "16  # \x1b[2J\x1b]0;pwned\x07\n"))
        r = run("check", "--color", "never", bad)
        self.assertEqual(r.returncode, 1)
        self.assertNotIn("\x1b", r.stdout)
        self.assertNotIn("\x07", r.stdout)
        self.assertIn("\\x1b[2J", r.stdout)
        self.assertNotIn("\x1b", run("check", "--format", "gcc", bad).stdout)

    def test_output_file(self):
        bad = self.write("bad.yaml", TP16)
        out = os.path.join(self.dir, "report.json")
        r = run("check", "--format", "json", "--output", out, bad)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        with open(out) as f:
            self.assertEqual(json.load(f)["summary"]["error"], 2)

    def test_stdin(self):
        r = run("check", "--format", "json", "-", "--stdin-filename", "conf/x.yaml", stdin=TP16)
        doc = json.loads(r.stdout)
        self.assertEqual({d["path"] for d in doc["diagnostics"]}, {"conf/x.yaml"})
        self.assertEqual(doc["files_checked"], 1)

    def test_output_is_deterministic_across_jobs(self):
        outs = {run("check", "--format", "json", "-j", str(j), os.path.join(ROOT, "fixtures")).stdout for j in (1, 2, 4)}
        self.assertEqual(len(outs), 1)


class Selection(TempDir):
    def test_select_and_ignore(self):
        bad = self.write("bad.yaml", TP16)

        def codes(*args):
            return sorted({d["code"] for d in json.loads(run("check", "--format", "json", *args, bad).stdout)["diagnostics"]})

        self.assertEqual(codes(), ["PL101", "PL102"])
        self.assertEqual(codes("--select", "PL101"), ["PL101"])
        self.assertEqual(codes("--select", "world-size-indivisible"), ["PL102"])
        self.assertEqual(codes("--ignore", "PL1"), [])
        self.assertEqual(codes("--select", "PL2,PL101"), ["PL101"])
        # TP=16 fits a 72-GPU NVLink domain; 8 devices a node do not fit a GB200 NVL72 node's 4 GPUs.
        self.assertEqual(codes("--cluster", "gb200-nvl72"), ["PL102", "PL105"])
        self.assertEqual(codes("--nvlink-domain", "16"), ["PL102"])

    def test_framework_option(self):
        yaml = self.write("x.yaml", "model:\n  sequence_parallel: true\n")
        msg = json.loads(run("check", "--format", "json", "--framework", "megatron-bridge", yaml).stdout)
        self.assertIn("Megatron-Bridge", msg["diagnostics"][0]["message"])


class ShippedDocs(unittest.TestCase):
    """What a user reads (the README, docs/ but the contributors' guide, the integrations' READMEs, every
    rule's page) points only at files that ship: not at the design contract or the reference notes beside
    the repository (issue 45). The public corpus is named as what it is, measured beside the repository."""

    def test_no_pointer_to_files_outside_the_repository(self):
        pages = [os.path.join(ROOT, "README.md")]
        pages += [os.path.join(ROOT, "docs", n) for n in os.listdir(os.path.join(ROOT, "docs"))
                  if n.endswith(".md") and n != "contributing.md"]
        for folder, _, files in os.walk(os.path.join(ROOT, "integrations")):
            pages += [os.path.join(folder, n) for n in files if n.endswith(".md") and "node_modules" not in folder]
        texts = {p: open(p, encoding="utf-8").read() for p in pages}
        texts["parlint rules --format markdown"] = run("rules", "--format", "markdown").stdout
        for where, text in texts.items():
            for pointer in ("DESIGN.md", "DESIGN §", "shared/reference"):
                self.assertNotIn(pointer, text, where)


class PlanText(TempDir):
    """`plan`'s text (issue 45): columns that never run together, no MoE rows for a dense model, and a
    scaling list the global batch allows, without a dangling separator."""

    DENSE = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
             "srun torchrun --nnodes 2 --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 "
             "--pipeline-model-parallel-size 2 --num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
             "--seq-length 4096 --micro-batch-size 1 --global-batch-size 6 --sequence-parallel\n")

    def test_dense_plan(self):
        r = run("plan", self.write("d.sbatch", self.DENSE))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {line.split()[0]: line for line in r.stdout.splitlines() if line.startswith("  ") and not line.startswith("   ")}
        self.assertRegex(rows["account_for_embedding_in_pipeline_split"], r"_split +false +")
        for moe in ("expert_tensor_parallel_size", "moe_router_topk", "expert_model_parallel_size"):
            self.assertNotIn(moe, rows)
        self.assertNotIn("expert DP", r.stdout)
        self.assertIn("    scaling DP: 4 GPUs (DP 1); 8 GPUs (DP 2)\n", r.stdout)
        self.assertIn("not 16 GPUs: global_batch_size 6 is not divisible by micro_batch_size 1 x DP there", r.stdout)

    def test_moe_plan_keeps_its_expert_rows(self):
        moe = self.DENSE.replace("--sequence-parallel", "--sequence-parallel --num-experts 8 "
                                 "--expert-model-parallel-size 2").replace("--global-batch-size 6", "--global-batch-size 64")
        r = run("plan", self.write("m.sbatch", moe))
        self.assertIn("expert_model_parallel_size", r.stdout)
        self.assertIn("expert DP = ", r.stdout)
        self.assertRegex(r.stdout, r"scaling DP: \d+ GPUs \(DP \d+, expert DP \d+\)")


class PlanWidth(unittest.TestCase):
    """`plan` reads at 80 columns (issue 45): written to a pipe or a terminal of 80 columns, every line fits,
    except one word longer than a line (a path); a table row continues under its source column, a smoke
    test's command ends its broken lines in " \\" and still runs as it was."""

    FILES = sorted(glob.glob(os.path.join(ROOT, "fixtures", "examples", "*.*")))

    def plan(self, *args, columns=None):
        env = dict(os.environ)
        env.pop("COLUMNS", None)
        if columns:
            env["COLUMNS"] = str(columns)
        return subprocess.run([PARLINT, "plan", *args], capture_output=True, text=True, env=env, timeout=60)

    def test_every_line_fits_80_columns(self):
        files = [f for f in self.FILES if not f.endswith((".expected", ".fixed"))]
        self.assertGreater(len(files), 5)
        text = "".join(self.plan("--smoke-test", f).stdout for f in files)
        self.assertGreater(len(text.splitlines()), 300)
        for line in text.splitlines():
            if len(line) > 80:
                self.assertEqual(len(line.split()), 1, f"{len(line)} columns: {line!r}")

    def test_an_unknown_value_reads_as_its_reason(self):
        # A value written nowhere: "unknown" then the reason, with no stray separator before it.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "exp.yaml")
            with open(path, "w") as f:
                f.write("defaults:\n  - train: 32b\nexperiment:\n  task:\n    type: train\n    backend: megatron\n")
            rows = [l for l in self.plan(path).stdout.splitlines() if l.startswith("  tensor_model_parallel_size ")]
        self.assertEqual(len(rows), 1)
        self.assertRegex(rows[0], r"^  tensor_model_parallel_size +unknown +no key of this document")

    def test_a_wider_terminal_gets_longer_lines(self):
        path = os.path.join(ROOT, "fixtures", "examples", "bridge_srun_native_tp16.sbatch")
        narrow, wide = self.plan(path).stdout, self.plan(path, columns=160).stdout
        self.assertLess(len(wide.splitlines()), len(narrow.splitlines()))
        self.assertTrue(any(len(line) > 100 for line in wide.splitlines()))
        self.assertTrue(all(len(line) <= 160 for line in wide.splitlines()))
        # The first row's source continues under the source column, not at the left edge.
        rows = narrow.splitlines()
        tp = next(i for i, line in enumerate(rows) if line.startswith("  tensor_model_parallel_size "))
        column = rows[tp].index("model.tensor_model_parallel_size")
        self.assertEqual(len(rows[tp + 1]) - len(rows[tp + 1].lstrip()), column)

    def test_the_smoke_test_command_survives_the_break(self):
        path = os.path.join(ROOT, "fixtures", "examples", "bridge_recipe_sp_tp1.py")
        text = self.plan("--smoke-test", path).stdout.splitlines()
        start = next(i for i, line in enumerate(text) if line.lstrip().startswith("torchrun "))
        parts = []
        for line in text[start:]:
            parts.append(line.strip().removesuffix(" \\"))
            if not line.endswith(" \\"):
                break
        self.assertGreater(len(parts), 1)
        doc = json.loads(subprocess.run([PARLINT, "plan", "--format", "json", "--smoke-test", path],
                                        capture_output=True, text=True, timeout=60).stdout)
        self.assertEqual(" ".join(parts), doc["jobs"][0]["derived"]["smoke_test"]["command"])


class Suggestions(TempDir):
    """Every mistake of the command line and the configuration gets the name meant (issue 45), and a
    configuration's every mistake is reported at once."""

    def error_of(self, *args, cwd=None):
        r = run(*args, cwd=cwd)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        return r.stderr

    def test_command_line_mistakes(self):
        script = self.write("train.sbatch", "#!/bin/bash\n#SBATCH --nodes=1\n")
        cases = [
            (("chek", script), "unknown command 'chek' (did you mean 'check'?)"),
            (("check", "--selct", "PL101", script), "unknown option '--selct' for parlint check (did you mean '--select'?)"),
            (("check", "--format", "concise", script), "'concise' is not one of text, gcc, json, github, sarif, gitlab (did you mean 'gcc'?)"),
            (("check", "--select", "PL1O1", script), "unknown rule selector 'PL1O1' in --select (did you mean 'PL101'?)"),
            (("check", "--cluster", "gb200-nvl7", script), "(did you mean 'gb200-nvl72'?)"),
            (("plan", "--format", "jsn", script), "(did you mean 'json'?)"),
        ]
        for args, expected in cases:
            with self.subTest(args=args):
                self.assertIn(expected, self.error_of(*args))

    def test_every_configuration_mistake_at_once_with_suggestions(self):
        script = self.write("train.sbatch", "#!/bin/bash\n#SBATCH --nodes=1\n")
        self.write("pyproject.toml", '[tool.parlint]\nignroe = ["PL101"]\ncluster = "gb200-nvl7"\n'
                                     'fail-on = "warnign"\nselect = ["PL1O1"]\n')
        lines = self.error_of("check", script, cwd=self.dir).splitlines()
        self.assertEqual(lines, [
            "parlint: error: pyproject.toml:2: unknown configuration key 'ignroe' (did you mean 'ignore'?)",
            "parlint: error: pyproject.toml:3: unknown cluster profile 'gb200-nvl7' (did you mean 'gb200-nvl72'?)",
            "parlint: error: pyproject.toml:4: fail-on must be error, warning, info or never (did you mean 'warning'?)",
            "parlint: error: pyproject.toml:5: unknown rule 'PL1O1' in select (did you mean 'PL101'?)",
        ])

    def test_a_misspelt_suppression_names_the_rule_meant(self):
        script = self.write("s.sh", "#!/bin/bash\nTP=2  # parlint: ignore[PL4O1]\n")
        doc = json.loads(run("check", "--format", "json", script).stdout)
        messages = [d["message"] for d in doc["diagnostics"] if d["code"] == "PL902"]
        self.assertEqual(messages, ["'PL4O1' in this suppression is not a parlint rule code or name "
                                    "(did you mean 'PL401'?)"])

    def test_clusters_lists_the_profiles(self):
        r = run("clusters")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("gb200-nvl72", r.stdout)
        self.assertIn("(the default)", r.stdout)
        profiles = json.loads(run("clusters", "--format", "json").stdout)
        gb200 = next(p for p in profiles if p["name"] == "gb200-nvl72")
        self.assertEqual((gb200["gpus_per_node"], gb200["nvlink_domain"]), (4, 72))
        self.assertEqual(sum(p["default"] for p in profiles), 1)


class FileSelection(TempDir):
    def test_folder_walk(self):
        self.write("conf/a.yaml", TP16)
        self.write("conf/b.yml", CLEAN)
        self.write("conf/notes.txt", TP16)                 # not a lint extension
        self.write("conf/launch", "#!/bin/bash\n#SBATCH --nodes=2\n")  # shell without extension
        self.write("node_modules/x.yaml", TP16)
        self.write("build/y.yaml", TP16)
        self.write("cmake-build-debug/z.yaml", TP16)
        self.write(".git/config.yaml", TP16)
        doc = json.loads(run("check", "--format", "json", ".", cwd=self.dir).stdout)
        self.assertEqual(doc["files_checked"], 3)
        self.assertEqual({d["path"] for d in doc["diagnostics"]}, {"conf/a.yaml"})

    def test_a_named_file_of_another_language_is_not_a_yaml_syntax_error(self):
        # pre-commit passes a repository's extension-less files (a Makefile, a LICENSE) along with its
        # sbatch scripts: what neither the name nor the first lines call YAML, and YAML cannot read, is left
        # alone. YAML on standard input, and a named file YAML reads, are still linted.
        makefile = self.write("Makefile", "all: build\n\tcc -o x x.c \\\n\t  -O2\n")
        license_file = self.write("LICENSE", "Permission is hereby granted: free of charge.\n")
        r = run("check", "--format", "json", makefile, license_file)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(json.loads(r.stdout)["diagnostics"], [])
        piped = run("check", "--format", "json", "-", stdin="model: [1, 2\n")
        self.assertEqual([d["code"] for d in json.loads(piped.stdout)["diagnostics"]], ["PL900"])
        named_yaml = self.write("trainconf", TP16)
        self.assertEqual(run("check", named_yaml).returncode, 1)

    def test_a_binary_file_is_one_finding_without_a_snippet(self):
        # As ruff's E902: where and why, no kilobytes of escaped bytes.
        path = os.path.join(self.dir, "model.bin.sh")
        with open(path, "wb") as f:
            f.write(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
        r = run("check", "--color", "never", path)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("error[PL900] binary file (a NUL byte at byte 7); not linted", r.stdout)
        self.assertNotIn("\\x", r.stdout)
        self.assertLess(len(r.stdout), 400, r.stdout)

    def test_a_yaml_document_too_long_to_read_is_a_warning_that_says_so(self):
        # 16 MB of plain keys, no alias: the real cause, and a warning, so that CI does not pass it unread.
        path = self.write("big.yaml", "model:\n" + "".join(f"  key_{i}: {i}\n" for i in range(210_000)))
        r = run("check", "--format", "json", path)
        self.assertEqual(r.returncode, 1, r.stdout)
        (d,) = json.loads(r.stdout)["diagnostics"]
        self.assertEqual((d["code"], d["severity"]), ("PL903", "warning"))
        self.assertIn("it holds more than 200,000 values", d["message"])

    def test_one_spelling_of_each_path(self):
        # `./x`, `x/./y` and the paths of the files a launch refers to print alike, as ruff prints them.
        self.write("sub/env.sh", "TP=16\n")
        self.write("sub/run.sh", "#!/bin/bash\n#SBATCH --gpus-per-node=8\nsource ./env.sh\n"
                                 "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP\n")
        for given in (".", "./sub", "sub/.", "./sub/../sub/run.sh"):
            doc = json.loads(run("check", "--format", "json", given, cwd=self.dir).stdout)
            paths = {d["path"] for d in doc["diagnostics"]}
            paths |= {r["path"] for d in doc["diagnostics"] for r in d["related"]}
            self.assertEqual(paths, {"sub/run.sh", "sub/env.sh"}, given)

    def test_gitignore_inside_a_checkout(self):
        subprocess.run(["git", "init", "-q", self.dir], check=True)
        self.write(".gitignore", "generated/\n*.tmp.yaml\n!keep.tmp.yaml\n/top.yaml\n")
        self.write("generated/a.yaml", TP16)
        self.write("x.tmp.yaml", TP16)
        self.write("keep.tmp.yaml", TP16)
        self.write("top.yaml", TP16)
        self.write("sub/top.yaml", TP16)
        self.write("sub/.gitignore", "local.yaml\n")
        self.write("sub/local.yaml", TP16)
        doc = json.loads(run("check", "--format", "json", ".", cwd=self.dir).stdout)
        self.assertEqual(sorted({d["path"] for d in doc["diagnostics"]}), ["keep.tmp.yaml", "sub/top.yaml"])

    def test_exclude_and_force_exclude(self):
        self.write("third_party/x.yaml", TP16)
        self.write("mine.yaml", CLEAN)
        r = run("check", "--format", "json", "--exclude", "third_party/**", ".", cwd=self.dir)
        self.assertEqual(json.loads(r.stdout)["files_checked"], 1)
        # Named explicitly, a file is linted unless --force-exclude.
        r = run("check", "--format", "json", "--exclude", "third_party", "third_party/x.yaml", cwd=self.dir)
        self.assertEqual(json.loads(r.stdout)["files_checked"], 1)
        r = run("check", "--format", "json", "--exclude", "third_party", "--force-exclude", "third_party/x.yaml",
                cwd=self.dir)
        self.assertEqual(json.loads(r.stdout)["files_checked"], 0)
        self.assertEqual(r.returncode, 0)

    def test_symlink_loop_does_not_hang(self):
        os.symlink(self.dir, os.path.join(self.dir, "loop"))
        self.write("a.yaml", CLEAN)
        r = run("check", "--format", "json", self.dir)
        self.assertEqual(json.loads(r.stdout)["files_checked"], 1)


class RuleDocs(unittest.TestCase):
    def test_rules_listing(self):
        rules = json.loads(run("rules", "--format", "json").stdout)
        self.assertEqual([r["code"] for r in rules], sorted(r["code"] for r in rules))
        self.assertIn("PL101", [r["code"] for r in rules])
        self.assertIn("| [PL101](#PL101-tp-crosses-nvlink-domain) | tp-crosses-nvlink-domain | error |",
                      run("rules", "--format", "markdown").stdout)
        self.assertRegex(run("rules").stdout, r"PL202  cp-seq-divisibility\s+error")

    def test_rule_by_code_and_name(self):
        by_code = run("rule", "PL101")
        self.assertEqual(by_code.returncode, 0)
        self.assertTrue(by_code.stdout.startswith("# PL101 tp-crosses-nvlink-domain"))
        self.assertEqual(run("rule", "tp-crosses-nvlink-domain").stdout, by_code.stdout)
        self.assertEqual(run("rule", "pl101").stdout, by_code.stdout)
        self.assertEqual(run("rule", "PL000").returncode, 2)

    def test_version(self):
        r = run("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^parlint \d+\.\d+\.\d+\n")
        self.assertIn("tree-sitter 0.25.1, tree-sitter-python 0.25.0, tree-sitter-bash 0.25.1", r.stdout)


class Examples(unittest.TestCase):
    def test_every_bundled_example_has_a_finding(self):
        doc = json.loads(run("check", "--format", "json", "fixtures/examples", cwd=ROOT).stdout)
        with_findings = {d["path"] for d in doc["diagnostics"]}
        files = {os.path.join("fixtures/examples", f) for f in os.listdir(os.path.join(ROOT, "fixtures/examples"))
                 if not f.endswith((".expected", ".fixed"))}
        self.assertEqual(with_findings, files)


class ReadmeExample(TempDir):
    """The README's front-page example is real: its script, linted as train.sbatch, prints its output."""

    def test_output_is_what_parlint_prints(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        blocks = re.findall(r"```(\w*)\n(.*?)```", readme, re.S)
        script = next(body for lang, body in blocks if lang == "bash")
        output = next(body for lang, body in blocks if lang == "" and "parlint check" in body)
        self.write("train.sbatch", script)
        r = run("check", "--color", "never", "train.sbatch", cwd=self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual("$ parlint check train.sbatch\n" + r.stdout, output)


MLM_TP4 = """#!/bin/bash
#SBATCH -N 2
#SBATCH --gpus-per-node=8
srun torchrun --nnodes=1 --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 4 \\
    --num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 4096 \\
    --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 8
"""


class MessagesInTheFilesSyntax(TempDir):
    """Help lines say the change the way the file writes settings; values are quoted as written."""

    def help_lines(self, name, text, code):
        r = run("check", "--format", "json", self.write(name, text))
        return [d["help"] for d in json.loads(r.stdout)["diagnostics"] if d["code"] == code]

    def test_a_megatron_lm_script_gets_flags(self):
        self.assertEqual(self.help_lines("train.sbatch", MLM_TP4, "PL205"), ["add --sequence-parallel"])

    def test_pl401_says_vpp_in_the_files_syntax(self):
        # Issue 45: PL401 said `set virtual_pipeline_model_parallel_size to 2 or 4` whatever the file wrote.
        mlm = ("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --gpus-per-node=8\ntorchrun --nproc_per_node 8 pretrain_gpt.py "
               "--pipeline-model-parallel-size 4 --num-layers 32 --tensor-model-parallel-size 2\n")
        self.assertEqual(self.help_lines("mlm.sbatch", mlm, "PL401"),
                         ["pass --num-virtual-stages-per-pipeline-rank 2 (or 4 or 8: it must divide the 8 layers per stage)"])
        hydra = ("#!/bin/bash\npython megatron_gpt_pretraining.py trainer.devices=8 trainer.num_nodes=1 "
                 "model.pipeline_model_parallel_size=4 model.num_layers=32\n")
        self.assertEqual(self.help_lines("nemo.sh", hydra, "PL401"),
                         ["set model.virtual_pipeline_model_parallel_size=2 (or 4 or 8: it must divide the 8 layers per stage)"])

    def test_a_yaml_config_gets_keys(self):
        yaml = ("trainer:\n  devices: 8\n  num_nodes: 1\nmodel:\n  tensor_model_parallel_size: 4\n"
                "  sequence_parallel: false\n  encoder_seq_length: 4096\n")
        self.assertEqual(self.help_lines("conf.yaml", yaml, "PL205"), ["set sequence_parallel: true"])

    def test_overrides_and_python_get_their_own_forms(self):
        launch = ("#!/bin/bash\npython pretrain.py model.tensor_model_parallel_size=1 model.sequence_parallel=true "
                  "trainer.devices=8 trainer.num_nodes=1\n")
        helps = self.help_lines("launch.sh", launch, "PL201")
        self.assertEqual(len(helps), 1)
        self.assertTrue(helps[0].startswith("set model.sequence_parallel=False, "), helps)
        recipe = ("def recipe():\n    cfg = llama3_8b_pretrain_config()\n    cfg.model.tensor_model_parallel_size = 1\n"
                  "    cfg.model.sequence_parallel = True\n    return cfg\n")
        helps = self.help_lines("recipe.py", recipe, "PL201")
        self.assertEqual(len(helps), 1)
        self.assertTrue(helps[0].startswith("set cfg.model.sequence_parallel = False, "), helps)
        # Another key of the parallel section goes on the object the recipe assigns to.
        nemo = ("def recipe():\n    recipe = llm.llama3_70b.pretrain_recipe()\n"
                "    recipe.trainer.strategy.tensor_model_parallel_size = 8\n"
                "    recipe.trainer.num_nodes = 2\n    recipe.trainer.devices = 8\n"
                "    recipe.model.config.seq_length = 16384\n    return recipe\n")
        helps = self.help_lines("nemo_recipe.py", nemo, "PL205")
        self.assertEqual(helps, ["set recipe.trainer.strategy.sequence_parallel = True"])

    def test_values_are_quoted_as_written(self):
        r = run("check", self.write("train.sbatch", MLM_TP4))
        self.assertIn("(#SBATCH -N 2 at line 2)", r.stdout)  # not "-N=2"
        self.assertIn("(torchrun --nnodes=1 at line 4)", r.stdout)
        self.assertIn("help: set torchrun --nnodes to 2 (or $SLURM_NNODES)", r.stdout)

    def test_an_assumed_gpu_is_said_to_be_assumed(self):
        path = os.path.join(ROOT, "fixtures", "rules", "PL601", "fail_70b_one_node.yaml")
        r = run("check", "--select", "PL601", path)
        self.assertIn("80 GiB of each H100 GPU (assumed: the default dgx-h100 profile", r.stdout)
        r = run("check", "--select", "PL601", "--cluster", "dgx-h100", path)
        self.assertIn("80 GiB of each H100 GPU (the dgx-h100 profile)", r.stdout)


class Statistics(TempDir):
    """--statistics adds the counts to a machine-read report and never replaces it (JSON and SARIF stay
    valid, gcc and github lines stay alone on stdout); the text report is the table alone, as ruff's."""

    def test_every_format_keeps_its_report(self):
        path = self.write("bad.yaml", TP16)
        doc = json.loads(run("check", "--statistics", "--format", "json", path).stdout)
        self.assertEqual([d["code"] for d in doc["diagnostics"]], ["PL102", "PL101"])
        self.assertEqual(doc["statistics"], {"rules": [{"code": "PL101", "name": "tp-crosses-nvlink-domain", "count": 1},
                                                       {"code": "PL102", "name": "world-size-indivisible", "count": 1}],
                                             "suppressed": 0})
        sarif = json.loads(run("check", "--statistics", "--format", "sarif", path).stdout)
        self.assertEqual(len(sarif["runs"][0]["results"]), 2)
        self.assertEqual(sarif["runs"][0]["properties"]["statistics"], doc["statistics"])
        for fmt in ("github", "gcc"):
            r = run("check", "--statistics", "--format", fmt, path)
            self.assertEqual(len(r.stdout.splitlines()), 2, r.stdout)  # the two findings, nothing else
            self.assertIn("    1  PL101  tp-crosses-nvlink-domain\n", r.stderr)
        r = run("check", "--statistics", path)
        self.assertEqual(r.returncode, 1)  # the findings still decide the exit code
        self.assertEqual(r.stdout, "    1  PL101  tp-crosses-nvlink-domain\n    1  PL102  world-size-indivisible\n")


# SP at TP=1 in a Megatron-LM launch (a safe fix removes the flag), a misspelt TP flag (a safe respelling)
# and a global batch size DP does not divide (an unsafe fix).
FIXABLE = """#!/bin/bash
TP=1
torchrun --nproc_per_node=8 pretrain_gpt.py \\
    --tensor-model-parallel-size $TP \\
    --sequence-parallel \\
    --pipeline-model-paralel-size 1 \\
    --micro-batch-size 1 --global-batch-size 12 \\
    --num-layers 32
"""


class Fixes(TempDir):
    def test_fix_applies_safe_fixes_and_a_second_run_changes_nothing(self):
        path = self.write("train.sh", FIXABLE)
        os.chmod(path, 0o750)
        r = run("check", "--fix", "--show-fixes", path)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)  # the unsafe PL503 remains
        with open(path) as f:
            fixed = f.read()
        self.assertNotIn("--sequence-parallel", fixed)
        self.assertIn("--pipeline-model-parallel-size 1", fixed)
        self.assertIn("--global-batch-size 12", fixed)  # unsafe: not without --unsafe-fixes
        self.assertIn("Fixed 2 findings:", r.stdout)
        self.assertIn("PL201 (safe): remove --sequence-parallel", r.stdout)  # in the script's own syntax
        self.assertIn("error[PL503]", r.stdout)
        self.assertIn("1 more with --unsafe-fixes", r.stdout)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o750)  # the mode is kept
        again = run("check", "--fix", path)
        with open(path) as f:
            self.assertEqual(f.read(), fixed)
        self.assertNotIn("Fixed", again.stdout)
        r = run("check", "--fix", "--unsafe-fixes", path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(path) as f:
            self.assertIn("--global-batch-size 8", f.read())

    def test_diff_changes_nothing_and_patch_accepts_it(self):
        path = self.write("train.sh", FIXABLE)
        r = run("check", "--diff", "--unsafe-fixes", "train.sh", cwd=self.dir)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("Would fix 3 findings.", r.stderr)
        with open(path) as f:
            self.assertEqual(f.read(), FIXABLE)
        self.assertTrue(r.stdout.startswith("--- train.sh\n+++ train.sh\n@@ "), r.stdout)
        patch = subprocess.run(["patch", "-p0"], cwd=self.dir, input=r.stdout, capture_output=True, text=True)
        self.assertEqual(patch.returncode, 0, patch.stdout + patch.stderr)
        clean = run("check", "--diff", "--unsafe-fixes", "train.sh", cwd=self.dir)
        self.assertEqual((clean.returncode, clean.stdout), (0, ""))
        self.assertEqual(run("check", "train.sh", cwd=self.dir).returncode, 0)

    def test_stdin_prints_the_fixed_text_and_reports_on_stderr(self):
        r = run("check", "--fix", "-", "--stdin-filename", "train.sh", stdin=FIXABLE)
        self.assertNotIn("--sequence-parallel", r.stdout)
        self.assertTrue(r.stdout.startswith("#!/bin/bash\n"), r.stdout)
        self.assertIn("PL503", r.stderr)
        clean = run("check", "--fix", "-", "--stdin-filename", "c.yaml", stdin=CLEAN)
        self.assertEqual(clean.stdout, CLEAN)  # nothing to fix: the text as it came

    def test_a_fix_for_one_arm_of_a_case_is_unsafe(self):
        # TP=1 comes from the arm a case on a constant takes; the 8B arm shares the flag and needs it.
        path = os.path.join(ROOT, "fixtures", "rules", "PL201", "fail_case_chosen_scale.sh")
        doc = json.loads(run("check", "--format", "json", "--select", "PL201", path).stdout)
        (d,) = doc["diagnostics"]
        self.assertEqual(d["fix"]["applicability"], "unsafe")
        self.assertIn("the case at line 5 takes this arm", " ".join(r["message"] for r in d["related"]))

    def test_json_and_sarif_carry_the_fix(self):
        path = self.write("train.sh", FIXABLE)
        doc = json.loads(run("check", "--format", "json", path).stdout)
        fixes = {d["code"]: d["fix"] for d in doc["diagnostics"]}
        self.assertEqual(fixes["PL201"]["applicability"], "safe")
        self.assertEqual(fixes["PL201"]["edits"][0]["new_text"], "")
        self.assertEqual(fixes["PL503"]["applicability"], "unsafe")
        self.assertEqual(fixes["PL503"]["edits"][0],
                         {"path": path, "range": {"start": {"line": 7, "column": 46}, "end": {"line": 7, "column": 48}},
                          "new_text": "8"})
        sarif = json.loads(run("check", "--format", "sarif", path).stdout)
        results = {r["ruleId"]: r for r in sarif["runs"][0]["results"]}
        change = results["PL503"]["fixes"][0]["artifactChanges"][0]
        self.assertEqual(change["replacements"][0]["insertedContent"]["text"], "8")
        self.assertEqual(change["replacements"][0]["deletedRegion"]["startLine"], 7)

    def test_a_value_written_in_a_sourced_file_is_fixed_there(self):
        params = self.write("conf/params.sh", "MODEL_ARGS=(\n    --tensor-model-parallel-size 1\n    --sequence-parallel\n)\n")
        launch = ("#!/bin/bash\nsource conf/params.sh\n"
                  "torchrun --nproc_per_node=8 pretrain_gpt.py \"${MODEL_ARGS[@]}\" --num-layers 32\n")
        script = self.write("train.sh", launch)
        diff = run("check", "--diff", "train.sh", cwd=self.dir)
        self.assertEqual(diff.returncode, 1, diff.stderr)
        self.assertIn("parlint: conf/params.sh is edited for train.sh, which reads its values\n--- conf/params.sh\n",
                      diff.stdout)
        # Standard input never edits another file: the fix is reported, not made.
        piped = run("check", "--fix", "-", "--stdin-filename", "train.sh", cwd=self.dir, stdin=launch)
        self.assertEqual(piped.stdout, launch)
        self.assertIn("fixes of standard input change only its own text", piped.stderr)
        with open(params) as f:
            self.assertIn("--sequence-parallel", f.read())
        r = run("check", "--fix", "--show-fixes", "train.sh", cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("conf/params.sh:3:5: PL201 (safe)", r.stdout)
        with open(params) as f:
            self.assertEqual(f.read(), "MODEL_ARGS=(\n    --tensor-model-parallel-size 1\n)\n")
        with open(script) as f:
            self.assertEqual(f.read(), launch)

    def test_a_fix_that_breaks_another_rule_is_dropped_and_reported(self):
        # TP=16 -> 8 would make DP 2, which the global batch of 3 does not divide.
        text = ("trainer:\n  num_nodes: 2\n  devices: 8\nmodel:\n  tensor_model_parallel_size: 16\n"
                "  global_batch_size: 3\n  micro_batch_size: 1\n")
        path = self.write("c.yaml", text)
        r = run("check", "--fix", "--unsafe-fixes", "--select", "PL101", path)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"parlint: {path}:5: the fix for PL101 was not applied: it leads to another error (PL503 at "
                      "line 6: global_batch_size=3 is not a multiple of micro_batch_size·DP", r.stderr)
        with open(path) as f:
            self.assertEqual(f.read(), text)

    def test_a_sourced_file_fix_is_unsafe_when_the_launch_sets_the_other_value(self):
        # SP is in the shared params file, TP=1 in this launch: another script may source the file with TP=8.
        self.write("conf/common.sh", "COMMON=(\n    --sequence-parallel\n    --num-layers 32\n)\n")
        self.write("train.sh", "#!/bin/bash\nsource conf/common.sh\n"
                               "torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 1 "
                               "\"${COMMON[@]}\"\n")
        doc = json.loads(run("check", "--format", "json", "--select", "PL201", "train.sh", cwd=self.dir).stdout)
        fix = doc["diagnostics"][0]["fix"]
        self.assertEqual(fix["applicability"], "unsafe")
        self.assertIn("in conf/common.sh, which other scripts may read with other settings", fix["message"])

    def test_a_setting_another_recipe_inherits_gets_no_fix(self):
        # SP is right in base_config (TP=2); only the variant that drops TP to 1 is wrong, so the setting
        # in base.py must not change: the variant's finding has no fix.
        base = ("def base_config():\n    cfg = ConfigContainer()\n    cfg.model.tensor_model_parallel_size = 2\n"
                "    cfg.model.sequence_parallel = True\n    return cfg\n")
        self.write("base.py", base)
        self.write("variant.py", "from base import base_config\n\n\ndef small_config():\n    cfg = base_config()\n"
                                 "    cfg.model.tensor_model_parallel_size = 1\n    return cfg\n")
        doc = json.loads(run("check", "--format", "json", "--select", "PL201", "variant.py", cwd=self.dir).stdout)
        self.assertEqual([(d["code"], d["path"], d["fix"]) for d in doc["diagnostics"]], [("PL201", "base.py", None)])
        run("check", "--fix", "--unsafe-fixes", "variant.py", cwd=self.dir)
        with open(os.path.join(self.dir, "base.py")) as f:
            self.assertEqual(f.read(), base)

    def test_read_only_files_and_fifos_are_reported_not_touched(self):
        path = self.write("train.sh", FIXABLE)
        os.chmod(path, 0o444)
        if os.geteuid() != 0:  # root writes anyway: access(2) says yes
            r = run("check", "--fix", path)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("not writable", r.stderr)
            with open(path) as f:
                self.assertEqual(f.read(), FIXABLE)
        fifo = os.path.join(self.dir, "pipe.sh")
        os.mkfifo(fifo)
        r = run("check", "--fix", fifo)  # refused before it is opened: no writer is needed, nothing hangs
        self.assertTrue(os.path.exists(fifo) and not os.path.isfile(fifo))
        self.assertIn("pipe.sh: not a regular file", r.stderr)
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main()


class ShellLaunches(unittest.TestCase):
    """The shell-script cases of the launch-script issue, end to end."""

    def check(self, path, *args):
        r = run("check", "--format", "json", *args, path, cwd=ROOT)
        return json.loads(r.stdout)["diagnostics"]

    def test_srun_native_bridge_template_tp16(self):
        ds = [d for d in self.check("fixtures/examples/bridge_srun_native_tp16.sbatch") if d["code"] == "PL101"]
        self.assertEqual(len(ds), 1)
        d = ds[0]
        self.assertEqual(d["range"]["start"]["line"], 30)  # the model.tensor_model_parallel_size=$TP override
        related_lines = {r["range"]["start"]["line"]: r["message"] for r in d["related"]}
        self.assertIn(18, related_lines)                   # TP=16
        self.assertIn("TP=16", related_lines[18])

    def test_legacy_template_nested_torchrun(self):
        codes = {d["code"] for d in self.check("fixtures/rules/PL104/fail_legacy_bridge_template.sbatch")}
        self.assertIn("PL104", codes)
        self.assertNotIn("PL105", codes)

    def test_megatron_lm_arrays(self):
        ds = [d for d in self.check("fixtures/examples/mlm_gpt_torchrun_pp16.sh") if d["severity"] != "info"]
        self.assertEqual([d["code"] for d in ds], ["PL102"])
        self.assertIn("128", ds[0]["message"])
        sp = self.check("fixtures/shell/mlm_sp_without_tp.sh")
        self.assertIn("PL201", [d["code"] for d in sp])

    def test_secret_is_never_printed(self):
        token = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"
        for fmt in ("json", "text", "gcc"):
            r = run("check", "--format", fmt, "--color", "never", "fixtures/shell/hf_token_in_script.sh", cwd=ROOT)
            self.assertIn("PL701", r.stdout)
            self.assertNotIn(token, r.stdout, fmt)
            self.assertNotIn(token[3:], r.stdout, fmt)

    def test_slurm_nnodes_without_directive_is_unknown(self):
        codes = {d["code"] for d in self.check("fixtures/shell/slurm_nnodes_without_directive.sh")}
        self.assertFalse(codes & {"PL102", "PL103", "PL106"})
        plan = json.loads(run("plan", "--format", "json", "fixtures/shell/slurm_nnodes_without_directive.sh",
                              cwd=ROOT).stdout)
        job = plan["jobs"][0]
        self.assertIsNone(job["derived"]["world_size"])
        self.assertIsNone(job["values"]["nnodes"]["value"])
        self.assertIn("SLURM_NNODES", job["values"]["nnodes"]["unknown"])
        self.assertEqual(job["values"]["tensor_model_parallel_size"]["value"], 8)
        self.assertEqual(job["values"]["tensor_model_parallel_size"]["origin"], "megatron-flag")
        self.assertEqual(job["derived"]["min_gpus"], 24)
        self.assertEqual(job["values"]["context_parallel_size"]["origin"], "framework-default")


class CrossFile(unittest.TestCase):
    def test_launch_merges_the_local_python_script(self):
        r = run("check", "--format", "json", "fixtures/crossfile/launch_train_moe.sbatch", cwd=ROOT)
        ds = [d for d in json.loads(r.stdout)["diagnostics"] if d["code"] == "PL102"]
        self.assertEqual(len(ds), 1)
        paths = {rel["path"] for rel in ds[0]["related"]}
        self.assertIn("fixtures/crossfile/train_moe.py", paths)  # EP=8 is set in the script
        plan = json.loads(run("plan", "--format", "json", "fixtures/crossfile/launch_train_moe.sbatch", cwd=ROOT).stdout)
        values = plan["jobs"][0]["values"]
        self.assertEqual(values["expert_model_parallel_size"]["value"], 8)
        self.assertEqual(values["tensor_model_parallel_size"]["value"], 4)  # the command line wins over TP = 2
        self.assertEqual(values["tensor_model_parallel_size"]["origin"], "megatron-flag")


class ImportedRecipes(unittest.TestCase):
    def test_variant_inherits_from_a_local_module(self):
        r = run("check", "--format", "json", "fixtures/crossfile/recipes/variants.py", cwd=ROOT)
        ds = {d["code"]: d for d in json.loads(r.stdout)["diagnostics"]}
        self.assertEqual(set(ds), {"PL201", "PL301", "PL303"})  # Megatron-Core warns about EP+TP without SP too
        self.assertIn("base.py:12", ds["PL201"]["message"])
        related = {(rel["path"], rel["range"]["start"]["line"]) for rel in ds["PL201"]["related"]}
        self.assertIn(("fixtures/crossfile/recipes/variants.py", 12), related)  # tensor_parallelism=1 passed here


class ModelKnowledge(unittest.TestCase):
    def codes(self, path):
        r = run("check", "--format", "json", path, cwd=ROOT)
        return {d["code"]: d for d in json.loads(r.stdout)["diagnostics"]}

    def test_deepseek_v3_recipe_layout_from_the_table(self):
        ds = self.codes("fixtures/crossfile/bridge_deepseek_v3_512gpus.sbatch")
        self.assertIn("PL102", ds)
        self.assertIn("M = PP·lcm(TP·CP, EP·ETP) = 1024", ds["PL102"]["message"])
        plan = json.loads(run("plan", "--format", "json", "fixtures/crossfile/bridge_deepseek_v3_512gpus.sbatch",
                              cwd=ROOT).stdout)
        v = plan["jobs"][0]["values"]
        self.assertEqual([v[k]["value"] for k in ("tensor_model_parallel_size", "pipeline_model_parallel_size",
                                                  "expert_model_parallel_size", "expert_tensor_parallel_size")],
                         [2, 16, 64, 1])
        self.assertEqual(v["num_moe_experts"]["value"], 256)
        self.assertEqual(v["expert_model_parallel_size"]["origin"], "recipe-default")
        self.assertEqual(plan["jobs"][0]["framework"], "megatron-bridge")

    def test_ep_on_a_dense_recipe_model(self):
        ds = self.codes("fixtures/crossfile/bridge_llama3_70b_ep8.sbatch")
        self.assertIn("PL301", ds)
        self.assertIn("Llama 3 70B", ds["PL301"]["message"])

    def test_launcher_config_group_chain(self):
        ds = self.codes("fixtures/crossfile/launcher/examples/gpt3_5b_16nodes.sh")
        d = ds["PL202"]
        self.assertEqual(d["path"], "fixtures/crossfile/launcher/conf/training/gpt3/5b.yaml")
        self.assertEqual(d["range"]["start"]["line"], 15)
        related = {(r["path"], r["range"]["start"]["line"]) for r in d["related"]}
        self.assertIn(("fixtures/crossfile/launcher/examples/gpt3_5b_16nodes.sh", 4), related)
        # Linting the folder reports the YAML's own finding once, not once per job that reads it.
        all_ds = json.loads(run("check", "--format", "json", "fixtures/crossfile/launcher", cwd=ROOT).stdout)
        self.assertEqual(sum(1 for x in all_ds["diagnostics"] if x["code"] == "PL202"), 1)

    def test_missing_config_is_unknown_and_explained(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "launch.sh")
            with open(script, "w") as f:
                f.write("python3 main.py training=gpt3/999b training.trainer.num_nodes=3\n")
            r = run("check", "--format", "json", script)
            # Nothing is checked against defaults the missing config may not have; PL904 says so.
            ds = json.loads(r.stdout)["diagnostics"]
            self.assertEqual([d["code"] for d in ds], ["PL904"])
            self.assertIn("TP, PP, CP, EP unknown (set by the config training=gpt3/999b, which was not found)",
                          ds[0]["message"])
            plan = json.loads(run("plan", "--format", "json", script).stdout)
            self.assertTrue(any("gpt3/999b was not found" in n for n in plan["jobs"][0]["notes"]))
            tp = plan["jobs"][0]["values"]["tensor_model_parallel_size"]
            self.assertIsNone(tp["value"])
            self.assertIn("gpt3/999b, which was not found", tp["unknown"])


class NamedModels(unittest.TestCase):
    def test_hugging_face_id_and_nemo2_recipe_module(self):
        plan = json.loads(run("plan", "--format", "json", "fixtures/crossfile/hf_model_llama3_8b.sh", cwd=ROOT).stdout)
        v = plan["jobs"][0]["values"]
        self.assertEqual(v["num_attention_heads"]["value"], 32)
        self.assertEqual(v["num_query_groups"]["value"], 8)
        r = run("check", "--format", "json", "fixtures/crossfile/nemo2_llama3_70b_ep.py", cwd=ROOT)
        ds = json.loads(r.stdout)["diagnostics"]
        # The recipe keeps sequence_parallel=True (built-in NeMo 2 recipe table), so EP with TP is not PL303.
        self.assertEqual([d["code"] for d in ds], ["PL301"])
        self.assertIn("Llama 3 70B", ds[0]["message"])


class Configuration(TempDir):
    def codes(self, *args, cwd=None):
        r = run("check", "--format", "json", *args, cwd=cwd or self.dir)
        return r, sorted({d["code"] for d in json.loads(r.stdout)["diagnostics"]}) if r.stdout else []

    def test_closest_config_select_ignore_severity(self):
        self.write("a/bad.yaml", TP16)
        self.write(".parlint.yaml", "ignore: [PL102]\nseverity: {PL101: warning}\n")
        r, codes = self.codes("a")
        self.assertEqual(codes, ["PL101"])
        d = json.loads(r.stdout)["diagnostics"][0]
        self.assertEqual(d["severity"], "warning")
        # A closer configuration wins over the one above it.
        self.write("a/.parlint.yaml", "select: [PL102]\n")
        r, codes = self.codes("a")
        self.assertEqual(codes, ["PL102"])
        # Command-line flags win over configuration.
        r, codes = self.codes("--select", "PL101", "a")
        self.assertEqual(codes, ["PL101"])

    def test_fail_on_cluster_and_framework(self):
        self.write("bad.yaml", TP16)
        self.write(".parlint.yaml", "fail-on: never\ncluster: gb200-nvl72\n")
        r, codes = self.codes(".")
        self.assertEqual(r.returncode, 0)
        self.assertNotIn("PL101", codes)  # TP=16 fits the configured 72-GPU domain
        self.assertEqual(run("check", "--fail-on", "error", ".", cwd=self.dir).returncode, 1)
        self.write(".parlint.yaml", "cluster: {gpus_per_node: 4, nvlink_domain: 4}\nframework: megatron-bridge\n")
        self.write("sp.yaml", "model:\n  sequence_parallel: true\n")
        r = run("check", "--format", "json", "sp.yaml", cwd=self.dir)
        self.assertIn("Megatron-Bridge", json.loads(r.stdout)["diagnostics"][0]["message"])

    def test_configured_cluster_bounds_the_gpu_request(self):
        # Issue 45: a script written for 8-GPU nodes, linted for a GB200 NVL72 cluster (4 GPUs a node).
        self.write("train.sbatch", "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\n"
                   "#SBATCH --ntasks-per-node=1\nsrun torchrun --nnodes=2 --nproc_per_node=8 pretrain_gpt.py\n")
        r = run("check", "--format", "json", "train.sbatch", cwd=self.dir)
        self.assertEqual([d["code"] for d in json.loads(r.stdout)["diagnostics"]], [])  # the default profile
        self.write(".parlint.yaml", "cluster: gb200-nvl72\n")
        r = run("check", "--format", "json", "train.sbatch", cwd=self.dir)
        (d,) = json.loads(r.stdout)["diagnostics"]
        self.assertEqual((d["code"], d["severity"], d["range"]["start"]["line"]), ("PL105", "error", 3))
        self.assertIn("asks for 8 GPUs per node, but nodes of the gb200-nvl72 profile hold 4", d["message"])
        self.assertIn("Requested node configuration is not available", d["message"])
        self.assertIn("on 4 nodes instead of 2", d["help"])
        # A profile of the user's own sizes counts the same; one that fits does not fire.
        self.write(".parlint.yaml", "cluster: {gpus_per_node: 4, nvlink_domain: 4}\n")
        r = run("check", "--format", "json", "--select", "PL105", "train.sbatch", cwd=self.dir)
        self.assertEqual([d["code"] for d in json.loads(r.stdout)["diagnostics"]], ["PL105"])
        self.write(".parlint.yaml", "cluster: dgx-b200\n")
        r = run("check", "--format", "json", "train.sbatch", cwd=self.dir)
        self.assertEqual(json.loads(r.stdout)["diagnostics"], [])

    def test_exclude_and_per_file_ignores(self):
        self.write("third_party/x.yaml", TP16)
        self.write("examples/ex.yaml", "model:\n  num_layers: 32\n  pipeline_model_parallel_size: 4\n")
        self.write("conf/main.yaml", "model:\n  num_layers: 32\n  pipeline_model_parallel_size: 4\n")
        self.write(".parlint.yaml", "exclude: [\"third_party/**\"]\nper-file-ignores: {\"examples/**\": [PL401]}\n")
        r = run("check", "--format", "json", ".", cwd=self.dir)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["files_checked"], 2)
        self.assertEqual({(d["path"], d["code"]) for d in doc["diagnostics"]}, {("conf/main.yaml", "PL401")})

    def test_errors_name_file_and_line(self):
        self.write("ok.yaml", CLEAN)
        self.write(".parlint.yaml", "select: [PL1]\nseverities: {PL101: error}\n")
        r = run("check", "ok.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn(".parlint.yaml:2: unknown configuration key 'severities'", r.stderr)
        self.write(".parlint.yaml", "ignore: [PL999]\n")
        r = run("check", "ok.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown rule 'PL999'", r.stderr)
        self.write(".parlint.yaml", "cluster: dgx-z9000\n")
        self.assertEqual(run("check", "ok.yaml", cwd=self.dir).returncode, 2)
        self.write(".parlint.yaml", "framework-source: no/such/dir\n")
        r = run("check", "ok.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn(".parlint.yaml:1: framework-source no/such/dir is not a folder", r.stderr)
        self.write(".parlint.yaml", "megatron-core-version: latest\n")
        r = run("check", "ok.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("megatron-core-version must be a version such as 0.15", r.stderr)

    def test_a_vendored_framework_source_wins_over_the_built_in_table(self):
        """The project's own Megatron-Bridge copy is where a recipe's layout is read from; editing it changes
        the findings, and plan names the source and its version."""
        launch = ("#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n"
                  "srun python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config\n")
        self.write("train.sh", launch)
        clean = run("check", "--format", "json", "train.sh", cwd=self.dir)
        self.assertEqual(json.loads(clean.stdout)["diagnostics"], [], clean.stdout)  # the built-in table: TP1
        package = "3rdparty/Megatron-Bridge/src/megatron/bridge"
        self.write(package + "/package_info.py", "MAJOR = 0\nMINOR = 8\nPATCH = 2\n")
        self.write(package + "/recipes/__init__.py", "from .llama import llama3_8b_pretrain_config\n")
        recipe = ("def llama3_8b_pretrain_config():\n    cfg = ConfigContainer()\n"
                  "    cfg.model.tensor_model_parallel_size = {tp}\n    return cfg\n")
        self.write(package + "/recipes/llama.py", recipe.format(tp=2))
        self.assertEqual(json.loads(run("check", "--format", "json", "train.sh", cwd=self.dir).stdout)["diagnostics"],
                         [])
        self.write(package + "/recipes/llama.py", recipe.format(tp=16))
        edited = json.loads(run("check", "--format", "json", "train.sh", cwd=self.dir).stdout)["diagnostics"]
        self.assertIn("PL102", {d["code"] for d in edited})
        plan = run("plan", "train.sh", cwd=self.dir).stdout
        self.assertIn("read from Megatron-Bridge 0.8.2 at " + package + "/recipes/llama.py", plan)
        self.assertRegex(plan, r"tensor_model_parallel_size\s+16")

    def test_explicit_config(self):
        self.write("bad.yaml", TP16)
        cfg = self.write("cfg/strict.yaml", "severity: {PL101: info}\nfail-on: warning\n")
        r = run("check", "--config", cfg, "--format", "json", "bad.yaml", cwd=self.dir)
        sev = {d["code"]: d["severity"] for d in json.loads(r.stdout)["diagnostics"]}
        self.assertEqual(sev["PL101"], "info")
        self.assertEqual(run("check", "--config", os.path.join(self.dir, "missing.yaml"), "bad.yaml", cwd=self.dir).returncode, 2)


class SharedOptions(unittest.TestCase):
    """check and plan declare the options they share once: they accept and refuse the same values."""

    def test_an_unknown_cluster_lists_the_profiles_in_check_and_in_plan(self):
        for command in ("check", "plan"):
            r = run(command, "--cluster", "dgx-h1000", "-", stdin="model: {}\n")
            self.assertEqual(r.returncode, 2, command)
            self.assertIn("unknown cluster profile 'dgx-h1000' (built in: dgx-a100, dgx-h100", r.stderr, command)

    def test_the_perf_recipe_targets_are_profiles(self):
        # Megatron-Bridge's perf recipes target b300, vr200 and r100: accepted by name or GPU, with the
        # GPUs per node and NVLink domain Megatron-Bridge gives them.
        for name, domain in (("b300", 8), ("dgx-b300", 8), ("vr200", 72), ("r100", 72)):
            doc = json.loads(run("plan", "--format", "json", "--cluster", name, "--tp", "16", "--gpus", "64").stdout)
            self.assertEqual(doc["jobs"][0]["derived"]["nvlink_domain"], domain, name)
        text = run("plan", "--cluster", "vr200", "--model", "llama3-70b", "--tp", "8", "--pp", "2", "--gpus", "64",
                   "--seq-length", "8192").stdout
        self.assertNotIn("of 0 GiB", text)

    def test_the_shared_options_are_listed_by_both(self):
        for option in ("--cluster", "--gpus-per-node", "--nvlink-domain", "--framework", "--stdin-filename"):
            for command in ("check", "plan"):
                self.assertIn(option, run(command, "--help").stdout, (command, option))


class RuleReference(unittest.TestCase):
    def test_docs_rules_md_is_generated_from_the_rules(self):
        with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as f:
            committed = f.read()
        self.assertEqual(run("rules", "--format", "markdown").stdout, committed,
                         "docs/rules.md is stale: regenerate it with `build/parlint rules --format markdown > docs/rules.md`")


class PlanUncheckedRules(unittest.TestCase):
    """An unknown value names the rules it keeps from checking (each rule declares the keys it reads)."""

    SCRIPT = ("TP=${TP:-$1}\ntorchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size $TP "
              "--num-attention-heads 32\n")

    def test_text_and_json_name_the_rules(self):
        text = run("plan", "--stdin-filename", "launch.sh", "-", stdin=self.SCRIPT).stdout
        self.assertRegex(text, r"unchecked: tensor_model_parallel_size is unknown, so PL101, .*PL501.* cannot check it")
        doc = json.loads(run("plan", "--format", "json", "--stdin-filename", "launch.sh", "-", stdin=self.SCRIPT).stdout)
        tp = doc["jobs"][0]["values"]["tensor_model_parallel_size"]
        self.assertIn("PL501", tp["unchecked_by"])
        self.assertNotIn("PL202", tp["unchecked_by"])  # CP and the sequence length, not TP
        self.assertNotIn("unchecked_by", doc["jobs"][0]["values"]["num_attention_heads"])


class PlanFromFlags(unittest.TestCase):
    def test_minimum_gpus_against_the_product(self):
        r = run("plan", "--pp", "2", "--tp", "2", "--cp", "1", "--ep", "8", "--etp", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("minimum GPUs M = PP·lcm(TP·CP, EP·ETP) = 2·lcm(2, 8) = 16", r.stdout)
        self.assertIn("product PP·TP·CP·EP·ETP = 32 over-allocates 2x", r.stdout)
        self.assertIn("dense DP = W / (TP·PP·CP)", r.stdout)
        self.assertIn("expert DP = W / (PP·EP·ETP)", r.stdout)
        self.assertIn("16 GPUs (DP 4, expert DP 1)", r.stdout)
        doc = json.loads(run("plan", "--format", "json", "--pp", "2", "--tp", "2", "--ep", "8", "--etp", "1",
                             "--gpus", "32", "--gpus-per-node", "8").stdout)
        d = doc["jobs"][0]["derived"]
        self.assertEqual((d["min_gpus"], d["product_gpus"], d["world_size"]), (16, 32, 32))
        self.assertEqual((d["data_parallel_size"], d["expert_data_parallel_size"]), (8, 2))
        groups = {g["name"]: g for g in d["groups"]}
        self.assertEqual(groups["TP"]["crossing_nodes"], 0)
        self.assertEqual(groups["PP"]["crossing_nodes"], groups["PP"]["groups"])  # PP spans the two nodes
        self.assertIn("PL103", [f["code"] for f in doc["jobs"][0]["findings"]])

    def test_model_and_errors(self):
        r = run("plan", "--format", "json", "--tp", "2", "--pp", "16", "--ep", "64", "--etp", "1", "--gpus", "512",
                "--gpus-per-node", "8", "--model", "deepseek_v3_pretrain_config")
        job = json.loads(r.stdout)["jobs"][0]
        self.assertEqual(job["values"]["num_moe_experts"]["value"], 256)
        self.assertIn("PL102", [f["code"] for f in job["findings"]])
        self.assertEqual(run("plan", "--model", "gpt-17").returncode, 2)
        self.assertEqual(run("plan").returncode, 2)


class PlanMemory(unittest.TestCase):
    def test_memory_estimate_and_unknown_inputs(self):
        job = json.loads(run("plan", "--format", "json", "fixtures/crossfile/bridge_llama3_70b_ep8.sbatch",
                             cwd=ROOT).stdout)["jobs"][0]
        mem = job["derived"]["memory"]
        self.assertAlmostEqual(mem["weights_optimizer_gib"], 50.8, delta=0.1)
        self.assertLess(mem["total_gib"], mem["gpu_memory_gib"])
        self.assertAlmostEqual(job["derived"]["memory_gib_per_gpu"], mem["total_gib"])
        other = json.loads(run("plan", "--format", "json", "--tp", "2", "--pp", "2").stdout)["jobs"][0]
        self.assertIsNone(other["derived"]["memory_gib_per_gpu"])
        self.assertIn("hidden_size", other["derived"]["memory_unknown"])


class PlanTokenizerVocab(TempDir):
    """A Megatron-LM launch that names its tokenizer, not its vocab_size (issue 45: 'memory per GPU: unknown
    (needs vocab_size)' where the tokenizer is known): the vocabulary comes from the tokenizer when parlint
    knows what it loads, and stays unknown when it does not."""

    LAUNCH = ("#!/bin/bash\ntorchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 "
              "--num-layers 24 --hidden-size 2048 --ffn-hidden-size 8192 --num-attention-heads 16 "
              "--seq-length 2048 --micro-batch-size 4 --global-batch-size 256 {tokenizer}\n")

    def memory(self, tokenizer):
        doc = json.loads(run("plan", "--format", "json",
                             self.write("t.sh", self.LAUNCH.format(tokenizer=tokenizer))).stdout)
        return doc["jobs"][0]

    def test_gpt2_bpe_and_a_known_hugging_face_tokenizer(self):
        job = self.memory("--tokenizer-type GPT2BPETokenizer --vocab-file /data/gpt2-vocab.json "
                          "--merge-file /data/gpt2-merges.txt")
        self.assertIsNotNone(job["derived"]["memory_gib_per_gpu"], job["derived"].get("memory_unknown"))
        text = run("plan", os.path.join(self.dir, "t.sh")).stdout
        self.assertRegex(text, r"vocab_size +50257 +the GPT-2 BPE vocabulary of gpt2-vocab.json")
        job = self.memory("--tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Meta-Llama-3-8B")
        self.assertIsNotNone(job["derived"]["memory_gib_per_gpu"])
        self.assertRegex(run("plan", os.path.join(self.dir, "t.sh")).stdout,
                         r"vocab_size +128256 +the vocabulary of Llama 3 8B's tokenizer")

    def test_an_unknown_tokenizer_file_leaves_the_vocabulary_unknown(self):
        for tokenizer in ("--tokenizer-type GPT2BPETokenizer --vocab-file /data/my-vocab.json",
                          "--tokenizer-type HuggingFaceTokenizer --tokenizer-model /ckpt/our-own-model",
                          "--tokenizer-type HuggingFaceTokenizer --tokenizer-model $TOKENIZER"):
            job = self.memory(tokenizer)
            self.assertIsNone(job["derived"]["memory_gib_per_gpu"], tokenizer)
            self.assertIn("vocab_size", job["derived"]["memory_unknown"], tokenizer)


class PlanAssumedMemory(unittest.TestCase):
    """A plan that leaves out only the micro-batch size and the optimizer's sharding gets an estimate with
    those inputs assumed and named (DESIGN §5 memory_assumptions); PL601 still judges known inputs only."""

    ISSUE = ["--model", "llama3-70b", "--tp", "4", "--pp", "4", "--gpus", "64", "--seq-length", "4096"]

    def plan(self, *extra):
        r = run("plan", "--format", "json", *self.ISSUE, *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["jobs"][0]

    def test_the_issue_layout_gets_a_per_gpu_estimate_with_its_assumptions(self):
        text = run("plan", *self.ISSUE).stdout
        self.assertNotIn("memory per GPU: unknown", text)
        self.assertRegex(text, r"memory per GPU: \d+\.\d GiB of 80 GiB, with 2 assumed inputs")
        self.assertIn("assumed: micro_batch_size = 1: not set", text)
        self.assertIn("assumed: use_distributed_optimizer = false: not set; Megatron-Core's default", text)
        self.assertRegex(text, r"with the distributed optimizer: \d+\.\d GiB")
        job = self.plan()
        d = job["derived"]
        assumed = {a["key"]: a for a in d["memory_assumptions"]}
        self.assertEqual(set(assumed), {"micro_batch_size", "use_distributed_optimizer"})
        self.assertEqual(assumed["micro_batch_size"]["value"], 1)
        self.assertEqual(assumed["use_distributed_optimizer"]["value"], False)
        self.assertEqual(assumed["use_distributed_optimizer"]["framework"], "megatron-core")
        # 4.54B parameters per GPU x 18 bytes (no distributed optimizer), as the unit tests work out.
        self.assertAlmostEqual(d["memory"]["weights_optimizer_gib"], 76.1, delta=0.1)
        self.assertGreater(d["memory_gib_per_gpu"], 80)
        self.assertAlmostEqual(d["memory"]["with_distributed_optimizer_gib"],
                               d["memory_gib_per_gpu"] - 76.1 + 38.1, delta=0.2)

    def test_each_framework_assumes_its_own_default(self):
        bridge = self.plan("--framework", "megatron-bridge")["derived"]
        distopt = [a for a in bridge["memory_assumptions"] if a["key"] == "use_distributed_optimizer"]
        self.assertEqual(distopt[0]["value"], True)
        self.assertEqual(distopt[0]["framework"], "megatron-bridge")
        self.assertAlmostEqual(bridge["memory"]["weights_optimizer_gib"], 38.1, delta=0.1)
        # Megatron-LM: off unless --use-distributed-optimizer is given, a known default, not an assumption.
        mlm = self.plan("--framework", "megatron-lm")["derived"]
        self.assertEqual([a["key"] for a in mlm["memory_assumptions"]], ["micro_batch_size"])

    def test_pl601_fires_on_known_inputs_only(self):
        assumed = self.plan("--recompute", "selective")
        self.assertGreater(assumed["derived"]["memory_gib_per_gpu"], 80)
        self.assertNotIn("PL601", [f["code"] for f in assumed["findings"]])
        known = self.plan("--recompute", "selective", "--mbs", "1", "--no-distributed-optimizer")
        self.assertEqual(known["derived"]["memory_assumptions"], [])
        self.assertIn("PL601", [f["code"] for f in known["findings"]])
        self.assertEqual(known["values"]["micro_batch_size"]["source"], "--mbs")
        # A bigger micro-batch grows the activations.
        two = self.plan("--mbs", "2", "--distributed-optimizer")
        self.assertAlmostEqual(two["derived"]["memory"]["activations_gib"],
                               2 * assumed["derived"]["memory"]["activations_gib"], delta=0.01)
        # The global batch is a setting like any other: 8 = one micro-batch of 2 per DP rank, fewer micro-batches
        # than the 4 stages, so the first stage holds fewer in flight (Megatron-LM's min(1, m/p)).
        few = self.plan("--mbs", "2", "--gbs", "8", "--distributed-optimizer")
        self.assertEqual(few["values"]["global_batch_size"]["value"], 8)
        self.assertAlmostEqual(few["derived"]["memory"]["activations_gib"],
                               two["derived"]["memory"]["activations_gib"] / 4, delta=0.01)
        self.assertEqual(run("plan", *self.ISSUE, "--distributed-optimizer", "--no-distributed-optimizer").returncode, 2)
        self.assertEqual(run("plan", *self.ISSUE, "--recompute", "some").returncode, 2)


class PlanFromNumbersRunsEveryRule(unittest.TestCase):
    def test_tp_wider_than_the_node(self):
        doc = json.loads(run("plan", "--format", "json", "--tp", "16", "--gpus-per-node", "8").stdout)
        findings = {f["code"]: f for f in doc["jobs"][0]["findings"]}
        self.assertIn("PL101", findings)
        self.assertEqual(findings["PL101"]["severity"], "error")
        self.assertIn("--gpus-per-node 8 on the command line", findings["PL101"]["message"])
        text = run("plan", "--tp", "16", "--gpus-per-node", "8").stdout
        self.assertIn("error[PL101] TP=16 spans 2 NVLink domains", text)
        self.assertNotIn("(line 1)", text)  # options are not lines of a file

    def test_advice_follows_the_options(self):
        codes = lambda *a: [f["code"] for f in json.loads(run("plan", "--format", "json", "--seq-length", "4096",
                                                              *a).stdout)["jobs"][0]["findings"]]
        self.assertIn("PL205", codes("--tp", "4"))  # TP > 1 without sequence parallelism
        self.assertNotIn("PL205", codes("--tp", "4", "--sequence-parallel"))
        self.assertIn("PL201", codes("--tp", "1", "--sequence-parallel"))


class PlanWithoutJobs(TempDir):
    """A plan of files that hold no training job says so, rather than printing nothing."""

    def test_a_gpt_neox_config_and_a_script_without_a_launch(self):
        neox = self.write("neox.yml", '{\n  "pipe_parallel_size": 4,\n  "model_parallel_size": 2,\n'
                                      '  "seq_length": 8192,\n}\n')
        script = self.write("prep.sh", "#!/bin/bash\necho preparing data\n")
        r = run("plan", neox, script)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("no training job in the given files", r.stderr)
        self.assertIn("GPT-NeoX", r.stderr)
        r = run("plan", "--format", "json", neox)
        self.assertEqual(json.loads(r.stdout)["jobs"], [])
        self.assertEqual(r.stderr, "")


class PlanSmokeTest(TempDir):
    """--smoke-test (DESIGN §5): a command built to pass every rule of check, on the fewest GPUs that keep
    every parallel size, with the smallest recipe of the model's family."""

    ISSUE = ["--model", "llama3-70b", "--tp", "4", "--pp", "4", "--gpus", "64", "--seq-length", "4096"]

    def check_command(self, command):
        script = self.write("smoke.sh", command + "\n")
        r = run("check", "--format", "json", "--fail-on", "info", script)
        self.assertEqual(json.loads(r.stdout)["diagnostics"], [], command)
        self.assertEqual(r.returncode, 0, r.stdout)
        return json.loads(run("plan", "--format", "json", script).stdout)["jobs"][0]

    def test_the_issue_layout(self):
        r = run("plan", *self.ISSUE, "--smoke-test")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        head = next(i for i, l in enumerate(lines) if l.startswith("  smoke test: "))
        self.assertIn("llama32_1b_pretrain_config (Llama 3.2 1B) on 16 GPUs (2 nodes of 8)", lines[head])
        command = lines[head + 1].strip()
        self.assertTrue(command.startswith("torchrun --nnodes=2 --nproc_per_node=8 "), command)
        self.assertIn("scripts/training/run_recipe.py --recipe llama32_1b_pretrain_config", command)
        self.assertIn("success:", r.stdout)
        self.assertIn("iteration 3 logs a finite loss", r.stdout)
        # Saved as a script, check has nothing to say, and the launch runs the planned layout.
        job = self.check_command(command)
        v = job["values"]
        self.assertEqual((v["tensor_model_parallel_size"]["value"], v["pipeline_model_parallel_size"]["value"]),
                         (4, 4))
        self.assertEqual(job["derived"]["world_size"], 16)
        self.assertEqual(job["framework"], "megatron-bridge")
        # The same command in the JSON plan.
        smoke = json.loads(run("plan", "--format", "json", *self.ISSUE).stdout)["jobs"][0]["derived"]["smoke_test"]
        self.assertEqual(smoke["command"], command)
        self.assertEqual((smoke["recipe"], smoke["gpus"], smoke["nodes"]), ("llama32_1b_pretrain_config", 16, 2))
        self.assertTrue(smoke["success"])

    def test_moe_layout_keeps_the_expert_mesh(self):
        doc = json.loads(run("plan", "--format", "json", "--model", "qwen3-235b-a22b", "--tp", "2", "--pp", "4",
                             "--ep", "8", "--etp", "1", "--gpus", "256", "--seq-length", "4096").stdout)
        smoke = doc["jobs"][0]["derived"]["smoke_test"]
        self.assertEqual(smoke["recipe"], "qwen3_30b_a3b_pretrain_config")  # the family's smallest MoE recipe
        self.assertEqual(smoke["gpus"], 32)  # PP·lcm(TP·CP, EP·ETP) = 4·lcm(2, 8)
        job = self.check_command(smoke["command"])
        v = job["values"]
        self.assertEqual((v["expert_model_parallel_size"]["value"], v["expert_tensor_parallel_size"]["value"]), (8, 1))

    def test_a_layout_no_recipe_can_hold_says_why(self):
        r = run("plan", "--model", "llama3-70b", "--tp", "64", "--smoke-test")
        self.assertIn("smoke test: none: every recipe of the llama family gives the same finding", r.stdout)
        job = json.loads(run("plan", "--format", "json", "--model", "llama3-70b", "--tp", "64").stdout)["jobs"][0]
        self.assertIsNone(job["derived"]["smoke_test"])
        self.assertIn("PL101", job["derived"]["smoke_test_unavailable"])


class Suggest(unittest.TestCase):
    CASES = [
        ("llama3-8b", ["--gpus", "8", "--seq-length", "8192"], []),
        ("llama3-70b", ["--gpus", "64", "--seq-length", "4096"], []),
        ("deepseek-v3", ["--gpus", "1024"], []),
        ("kimi-k2", ["--nodes", "288"], ["--cluster", "gb200-nvl72"]),  # a 1T MoE on GB200 NVL72
    ]

    def test_suggestions_pass_every_rule(self):
        for model, size, extra in self.CASES:
            with self.subTest(model=model):
                r = run("plan", "--suggest", "--format", "json", "--model", model, *size, *extra)
                self.assertEqual(r.returncode, 0, r.stderr)
                doc = json.loads(r.stdout)
                self.assertGreaterEqual(len(doc["suggestions"]), 1)
                best = doc["suggestions"][0]
                self.assertLessEqual(best["memory_gib_per_gpu"], doc["jobs"][0]["derived"]["memory"]["gpu_memory_gib"])
                bad = [f for f in doc["jobs"][0]["findings"] if f["severity"] != "info"]
                self.assertEqual(bad, [], f"{model}: {bad}")
                if model in ("deepseek-v3", "kimi-k2"):
                    self.assertLessEqual(best["tp"], 4)   # MoE: TP sized by the active parameters
                    self.assertEqual(best["etp"], 1)
                    self.assertGreaterEqual(best["ep"], 8)
                if model == "llama3-70b":
                    self.assertGreaterEqual(best["tp"], 4)
                for layout in doc["suggestions"]:  # 10% of the GPU's memory stays free
                    self.assertLessEqual(layout["memory_gib_per_gpu"], 0.9 * doc["jobs"][0]["derived"]["memory"]["gpu_memory_gib"])

    def test_deepseek_v3_follows_the_published_recipe(self):
        doc = json.loads(run("plan", "--suggest", "--format", "json", "--model", "deepseek-v3", "--gpus", "1024").stdout)
        best = doc["suggestions"][0]
        self.assertEqual((best["tp"], best["pp"], best["ep"], best["etp"]), (2, 16, 64, 1))
        self.assertIn("deepseek_v3_pretrain_1024gpu_h100_bf16_config", best["published"])
        for alt in doc["suggestions"]:
            self.assertLessEqual(alt["tp"], 2)
            self.assertGreaterEqual(alt["ep"], alt["pp"])  # EP is the main axis, PP splits the depth
        # Every assumption is stated: the sequence length (not given), the micro-batch, the optimizer.
        self.assertEqual(doc["seq_length"], 4096)
        said = " ".join(doc["assumptions"])
        for part in ("sequence length 4096: not given", "micro-batch size 1", "distributed optimizer on"):
            self.assertIn(part, said)
        text = run("plan", "--suggest", "--model", "qwen3-235b-a22b", "--gpus", "256").stdout
        self.assertIn("assumes: sequence length 4096: not given", text)
        self.assertIn("not the 32768-token context of the model table", text)
        self.assertIn("plan it: parlint plan --model qwen3-235b-a22b", text)

    def test_needs_model_and_size(self):
        self.assertEqual(run("plan", "--suggest", "--gpus", "8").returncode, 2)
        self.assertEqual(run("plan", "--suggest", "--model", "llama3-8b").returncode, 2)


class LayoutPicture(TempDir):
    NS = "{http://www.w3.org/2000/svg}"

    def cells(self, *args):
        import xml.etree.ElementTree as ET
        out = os.path.join(self.dir, "layout.svg")
        r = run("plan", *args, "--svg", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        tree = ET.parse(out)  # well-formed XML
        cells = [e for e in tree.iter(self.NS + "rect") if "cell" in (e.get("class") or "").split()]
        return cells, [c for c in cells if "crossing" in c.get("class").split()]

    def test_tp_crossing_the_domain_is_outlined(self):
        cells, crossing = self.cells("--tp", "16", "--gpus", "32", "--gpus-per-node", "8")
        self.assertEqual((len(cells), len(crossing)), (32, 32))
        self.assertTrue(all(c.get("stroke") == "red" for c in crossing))

    def test_straddling_groups_only(self):
        # TP=6 on 3 nodes of 8: groups [6-11] and [12-17] straddle nodes; [0-5] and [18-23] do not.
        cells, crossing = self.cells("--tp", "6", "--gpus", "24", "--gpus-per-node", "8")
        self.assertEqual((len(cells), len(crossing)), (24, 12))

    def test_stage_colours_are_distinct_categories(self):
        import xml.etree.ElementTree as ET
        out = os.path.join(self.dir, "pp16.svg")
        self.assertEqual(run("plan", "--tp", "1", "--pp", "16", "--gpus", "16", "--gpus-per-node", "8",
                             "--svg", out).returncode, 0)
        fills = {}
        for e in ET.parse(out).iter(self.NS + "rect"):
            if e.get("class") == "stage":
                fills.setdefault(int(e.get("data-stage")), set()).add(e.get("fill"))
        self.assertEqual(sorted(fills), list(range(16)))
        self.assertTrue(all(len(f) == 1 for f in fills.values()))
        colours = [next(iter(fills[i])) for i in range(16)]
        closest = min(ciede2000(a, b) for i, a in enumerate(colours) for b in colours[i + 1:])
        self.assertGreater(closest, 15, colours)  # the golden-angle shades this replaced came within 0.8

    def test_ep_groups_and_every_size_in_the_legend(self):
        import xml.etree.ElementTree as ET
        out = os.path.join(self.dir, "moe.svg")
        self.assertEqual(run("plan", "--tp", "2", "--pp", "2", "--ep", "8", "--etp", "1", "--gpus", "32",
                             "--gpus-per-node", "8", "--svg", out).returncode, 0)
        tree = ET.parse(out)
        ep = [e for e in tree.iter(self.NS + "rect") if e.get("class") == "ep"]
        self.assertEqual(len(ep), 32)
        # The EP band and the stage band never share a colour (issue 45: EP group 0 looked like stage 0).
        stages = {e.get("fill") for e in tree.iter(self.NS + "rect") if e.get("class") in ("stage", "legend-stage")}
        groups = {e.get("fill") for e in tree.iter(self.NS + "rect") if e.get("class") in ("ep", "legend-ep")}
        self.assertEqual((len(stages), len(groups)), (2, 4))
        self.assertEqual(stages & groups, set())
        groups = {}
        for e in ep:
            groups.setdefault(e.get("data-ep-group"), 0)
            groups[e.get("data-ep-group")] += 1
        self.assertEqual(sorted(groups.values()), [8, 8, 8, 8])  # 32 GPUs / EP 8
        sizes = next(e.text for e in tree.iter(self.NS + "text") if e.get("class") == "sizes")
        for part in ("TP=2", "PP=2", "CP=1", "EP=8", "ETP=1", "DP=8", "EDP=2", "GPUs/node=8"):
            self.assertIn(part, sizes)
        legend = [e for e in tree.iter(self.NS + "rect") if e.get("class") == "legend-stage"]
        self.assertEqual(len(legend), 2)

    def test_job_chooses_what_to_draw(self):
        import xml.etree.ElementTree as ET
        src = os.path.join(ROOT, "fixtures", "python", "nemo2_library_recipe.py")
        out = os.path.join(self.dir, "job.svg")
        r = run("plan", src, "--job", "2", "--svg", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        title = ET.parse(out).getroot().find(self.NS + "title").text
        self.assertEqual(title, "four_nodes_70b()")
        self.assertEqual(r.stdout.count("(NeMo 2)\n"), 1)  # only that job is explained
        self.assertEqual(run("plan", src, "--job", "four_nodes", "--svg", out).returncode, 0)
        self.assertEqual(ET.parse(out).getroot().find(self.NS + "title").text, "four_nodes_70b()")
        for bad in ("9", "no_such_recipe"):
            r = run("plan", src, "--job", bad, "--svg", out)
            self.assertEqual(r.returncode, 2)
            self.assertIn("no such job; the plan has 3 jobs", r.stderr)
            self.assertIn("3: ", r.stderr)
        r = run("plan", src, "--job", "_70b", "--svg", out)  # two jobs match
        self.assertEqual(r.returncode, 2)
        self.assertIn("2 jobs match", r.stderr)

    def test_moe_layout_and_refusal(self):
        cells, crossing = self.cells("--tp", "2", "--pp", "2", "--ep", "8", "--etp", "1", "--gpus", "16",
                                     "--gpus-per-node", "8")
        self.assertEqual((len(cells), len(crossing)), (16, 0))
        r = run("plan", "--tp", "3", "--gpus", "16", "--svg", os.path.join(self.dir, "x.svg"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("not valid", r.stderr)


class ReferencedFilesSizeLimit(TempDir):
    # --max-file-size holds for the files a launch refers to, not only for the inputs named.
    def test_a_sourced_file_over_the_limit_is_not_read(self):
        self.write("params.sh", "TP=16\n" + "# padding\n" * 300)
        script = self.write("launch.sbatch", "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"
                            "#SBATCH --gpus-per-node=8\nsource params.sh\n"
                            "srun torchrun --nnodes 2 --nproc_per_node 8 pretrain_gpt.py "
                            "--tensor-model-parallel-size $TP\n")
        codes = lambda *extra: [d["code"] for d in json.loads(run("check", "--format", "json", *extra,
                                                                   script).stdout)["diagnostics"]]
        self.assertIn("PL101", codes())
        self.assertNotIn("PL101", codes("--max-file-size", "1KiB"))


class LoneCarriageReturns(TempDir):
    # A lone CR ends a line for check and plan alike (plan used to print no job for this file).
    def test_check_and_plan_read_the_same_lines(self):
        path = self.write("cr.yaml", "model:\r  tensor_model_parallel_size: 16\rtrainer:\r  num_nodes: 2\r"
                                     "  devices: 8\r")
        r = run("check", "--format", "json", path)
        self.assertEqual([d["code"] for d in json.loads(r.stdout)["diagnostics"]], ["PL101"])
        jobs = json.loads(run("plan", "--format", "json", path).stdout)["jobs"]
        self.assertEqual(len(jobs), 1)
        self.assertEqual(jobs[0]["values"]["tensor_model_parallel_size"]["value"], 16)
        self.assertEqual(jobs[0]["values"]["tensor_model_parallel_size"]["range"]["start"]["line"], 2)


class PlanRealLayouts(TempDir):
    def plan(self, script):
        path = self.write("launch.sbatch", script)
        r = run("plan", "--format", "json", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["jobs"][0]

    HEADER = "#!/bin/bash\n#SBATCH --nodes={}\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n"

    def test_dense_llama3_70b_recipe(self):
        job = self.plan(self.HEADER.format(4) + "srun python run_recipe.py --recipe llama3_70b_pretrain_config\n")
        d = job["derived"]
        self.assertEqual((d["world_size"], d["data_parallel_size"], d["min_gpus"]), (32, 1, 32))
        self.assertEqual(job["values"]["virtual_pipeline_model_parallel_size"]["value"], 5)
        self.assertEqual(job["values"]["tensor_model_parallel_size"]["origin"], "recipe-default")
        groups = {g["name"]: g for g in d["groups"]}
        self.assertEqual(groups["TP"]["crossing_nodes"], 0)
        self.assertEqual(groups["PP"]["crossing_nodes"], groups["PP"]["groups"])
        self.assertLess(d["memory"]["total_gib"], 80)
        self.assertEqual([f for f in job["findings"] if f["severity"] != "info"], [])

    def test_moe_qwen3_30b_recipe(self):
        job = self.plan(self.HEADER.format(2) + "srun python run_recipe.py --recipe qwen3_30b_a3b_pretrain_config\n")
        d = job["derived"]
        self.assertEqual((d["world_size"], d["data_parallel_size"], d["expert_data_parallel_size"]), (16, 16, 1))
        self.assertEqual((d["min_gpus"], d["product_gpus"]), (16, 16))
        self.assertEqual(job["values"]["num_moe_experts"]["value"], 128)
        self.assertEqual([f for f in job["findings"] if f["severity"] != "info"], [])

    def test_long_context_cp(self):
        job = self.plan(self.HEADER.format(8) + "srun python run_recipe.py --recipe llama3_8b_128k_pretrain_config\n")
        d = job["derived"]
        self.assertEqual(job["values"]["context_parallel_size"]["value"], 8)
        self.assertEqual(job["values"]["seq_length"]["value"], 131072)
        groups = {g["name"]: g for g in d["groups"]}
        self.assertEqual(groups["CP"]["size"], 8)
        self.assertEqual(groups["CP"]["crossing_nodes"], groups["CP"]["groups"])  # CP8 with stride TP4 spans nodes
        text = run("plan", os.path.join(self.dir, "launch.sbatch")).stdout
        self.assertIn("CP: seq_length 131072 is divisible by 2·CP = 16; 16384 tokens per CP rank", text)


class SuggestFromSize(unittest.TestCase):
    def test_params_borrow_the_closest_architecture(self):
        doc = json.loads(run("plan", "--suggest", "--format", "json", "--params", "1e12", "--active-params", "32e9",
                             "--experts", "384", "--nodes", "288", "--cluster", "gb200-nvl72").stdout)
        self.assertEqual(doc["assumed_architecture"], "Kimi K2")
        self.assertEqual([f for f in doc["jobs"][0]["findings"] if f["severity"] != "info"], [])
        dense = json.loads(run("plan", "--suggest", "--format", "json", "--params", "70e9", "--gpus", "64").stdout)
        self.assertEqual(dense["assumed_architecture"], "Llama 3 70B")


class NoInternalMarkers(TempDir):
    """Text known only at run time is a placeholder byte inside the shell parser; it never reaches a report."""

    def test_plan_and_check_print_no_placeholder_bytes(self):
        self.write("train.sh", "#!/bin/bash\n"
                   "case \"$SIZE\" in\n  small) TP=1 ;;\n  *) TP=4 ;;\nesac\n"
                   "options=\"--tensor-model-parallel-size ${TP} --micro-batch-size 2\"\n"
                   "torchrun --nproc_per_node 8 $SCRIPT ${options}\n"
                   "deepspeed --num_gpus ${GPUS}x pretrain_gpt.py ${options}\n")
        for args in (["plan", "--format", "json"], ["plan"], ["check", "--format", "json", "--fail-on", "never"],
                     ["check", "--fail-on", "never"]):
            p = run(*args, "train.sh", cwd=self.dir)
            self.assertNotIn("\x01", p.stdout, args)
            self.assertNotIn("\\u0001", p.stdout, args)
            self.assertNotIn("\\x01", p.stdout, args)
        doc = json.loads(run("plan", "--format", "json", "train.sh", cwd=self.dir).stdout)
        self.assertEqual(doc["jobs"][0]["description"], "launch of a script known only at run time")
        self.assertIsNone(doc["jobs"][0]["values"]["tensor_model_parallel_size"]["value"])


class FrameworkCheckout(TempDir):
    """Inside a Megatron-LM checkout, a launch of pretrain_gpt.py is not followed into Megatron-LM's source."""

    def test_results_do_not_depend_on_where_parlint_runs(self):
        launch = ("#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
                  "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 4 "
                  "--expert-model-parallel-size 2 --num-layers 32 --hidden-size 4096 --num-attention-heads 32\n")
        # Framework code that, read as settings, would hide the launch's mistakes.
        framework_entry = ("from megatron.core import parallel_state\n"
                           "parallel_state.initialize_model_parallel(tensor_model_parallel_size=1,\n"
                           "    expert_model_parallel_size=1, num_moe_experts=8)\n")
        self.write("user/train.sh", launch)
        self.write("user/pretrain_gpt.py", "")
        self.write("checkout/examples/train.sh", launch)
        self.write("checkout/pretrain_gpt.py", framework_entry)
        self.write("checkout/megatron/training/arguments.py", "")
        outside = run("check", "--format", "json", "--fail-on", "never", "train.sh", cwd=os.path.join(self.dir, "user"))
        inside = run("check", "--format", "json", "--fail-on", "never", "examples/train.sh",
                     cwd=os.path.join(self.dir, "checkout"))
        codes = lambda p: sorted(d["code"] for d in json.loads(p.stdout)["diagnostics"])
        self.assertIn("PL301", codes(outside))  # EP on a model without experts
        self.assertEqual(codes(outside), codes(inside))


class CorpusTriage(TempDir):
    """scripts/corpus_triage.py compares a run with the committed decisions and fails on new findings."""

    def triage(self, rows):
        path = self.write("triage.tsv", "set\tpath\tline\tcode\tseverity\tverdict\treason\n" +
                          "".join("\t".join(r) + "\n" for r in rows))
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "corpus_triage.py"), "--parlint", PARLINT,
                               "--corpus", os.path.join(self.dir, "corpus"), "--triage", path],
                              capture_output=True, text=True, timeout=60)

    def test_new_false_and_agreed_findings(self):
        self.write("corpus/MANIFEST.tsv", "repo\tcommit\tpath\tkind\twhy-interesting\n"
                   "someone/repo\tabc\ttrain.yaml\tyaml\tTP across nodes\n")
        self.write("corpus/someone__repo/train.yaml",
                   "trainer: {devices: 8, num_nodes: 2}\nmodel:\n  tensor_model_parallel_size: 16\n")
        finding = ("corpus", "someone__repo/train.yaml", "3", "PL101", "error")
        p = self.triage([])
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("not triaged: corpus:someone__repo/train.yaml:3 error[PL101]", p.stdout)
        p = self.triage([(*finding, "agree", "TP=16 on 8-GPU nodes")])
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("1 agreed", p.stdout.splitlines()[-1])
        p = self.triage([(*finding, "false", "not a problem")])
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("false alarm still reported", p.stdout)


GITLAB_SCHEMA = os.path.join(ROOT, "tests", "data", "gitlab", "codeclimate.json")
GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def gitlab_validator():
    """GitLab's own schema for one report entry (tests/data/gitlab/README.md), over the whole array."""
    try:
        import jsonschema
    except ImportError as e:  # pragma: no cover - the test tools of scripts/setup-deps.sh
        raise AssertionError("python3-jsonschema is missing: run scripts/setup-deps.sh") from e
    with open(GITLAB_SCHEMA) as f:
        entry = json.load(f)
    return jsonschema.Draft7Validator({"type": "array", "items": entry})


class GitLabFormat(TempDir):
    """--format gitlab: GitLab's Code Quality report, valid for GitLab's parser and stable across edits."""

    def gitlab(self, *args, cwd=None, env=None):
        r = run("check", "--format", "gitlab", *args, cwd=cwd or self.dir, env=env)
        self.assertFalse(r.stdout.startswith("\ufeff"))  # GitLab's parser refuses a byte order mark
        doc = json.loads(r.stdout)
        self.assert_valid(doc)
        return r, doc

    def assert_valid(self, doc):
        gitlab_validator().validate(doc)
        for e in doc:  # what GitLab's documentation adds to the schema ("Implement a custom tool")
            self.assertRegex(e["check_name"], r"^parlint/PL\d{3}$")
            self.assertIn(e["severity"], GITLAB_SEVERITIES)
            path = e["location"]["path"]
            self.assertFalse(os.path.isabs(path) or path.startswith(("./", "../")), path)
            self.assertGreaterEqual(e["location"]["lines"]["begin"], 1)
            self.assertGreaterEqual(e["location"]["lines"]["end"], e["location"]["lines"]["begin"])
            self.assertRegex(e["fingerprint"], r"^[0-9a-f]{16}$")
        fingerprints = [e["fingerprint"] for e in doc]
        self.assertEqual(len(fingerprints), len(set(fingerprints)))  # GitLab keys findings by fingerprint

    def test_the_schema_refuses_what_gitlab_drops(self):
        # The validation is not vacuous: an entry without a fingerprint or with a text line stops GitLab's parser.
        entry = {"description": "d", "check_name": "c", "fingerprint": "f", "severity": "minor",
                 "location": {"path": "a.yaml", "lines": {"begin": 1}}}
        gitlab_validator().validate([entry])
        for broken in ({k: v for k, v in entry.items() if k != "fingerprint"},
                       dict(entry, location={"path": "a.yaml", "lines": {"begin": "1"}})):
            with self.assertRaises(Exception):
                gitlab_validator().validate([broken])

    def test_every_severity_and_the_fields_gitlab_reads(self):
        self.write("a/bad.yaml", TP16)
        self.write("a/warn.yaml", WARNING_ONLY)
        self.write("a/info.yaml", INFO_ONLY)
        r, doc = self.gitlab("a")
        self.assertEqual(r.returncode, 1)
        by_path = {}
        for e in doc:
            by_path.setdefault(e["location"]["path"], []).append(e)
        self.assertEqual(sorted(by_path), ["a/bad.yaml", "a/info.yaml", "a/warn.yaml"])
        self.assertEqual({e["severity"] for e in by_path["a/bad.yaml"]}, {"critical"})
        self.assertEqual({e["severity"] for e in by_path["a/warn.yaml"]}, {"minor"})
        self.assertEqual({e["severity"] for e in by_path["a/info.yaml"]}, {"info"})
        pl101 = next(e for e in doc if e["check_name"] == "parlint/PL101")
        self.assertTrue(pl101["description"].startswith("PL101: TP=16 spans 2 NVLink domains"), pl101)
        self.assertEqual(pl101["location"]["lines"], {"begin": 5, "end": 5})
        self.assertEqual((pl101["type"], pl101["categories"]), ("issue", ["Bug Risk"]))

    def test_fingerprints_survive_unrelated_lines_and_differ_between_files(self):
        self.write("x/bad.yaml", TP16)
        self.write("y/bad.yaml", TP16)
        self.write("z/twice.yaml", TP16 + "---\n" + TP16)  # the same finding twice in one file
        _, doc = self.gitlab(".")
        first = {(e["location"]["path"], e["check_name"], e["location"]["lines"]["begin"]): e["fingerprint"]
                 for e in doc}
        self.assertEqual(len(first), len(doc))
        self.write("x/bad.yaml", "# a comment moves every line down\n\n" + TP16)
        _, doc = self.gitlab(".")
        moved = {(e["location"]["path"], e["check_name"], e["location"]["lines"]["begin"]): e["fingerprint"]
                 for e in doc}
        self.assertEqual(moved[("x/bad.yaml", "parlint/PL101", 7)], first[("x/bad.yaml", "parlint/PL101", 5)])
        self.assertNotEqual(first[("x/bad.yaml", "parlint/PL101", 5)], first[("y/bad.yaml", "parlint/PL101", 5)])

    def test_paths_are_relative_to_the_project(self):
        bad = self.write("proj/sub/bad.yaml", TP16)
        os.makedirs(os.path.join(self.dir, "proj", ".git"))
        sub = os.path.join(self.dir, "proj", "sub")
        for arg in ("bad.yaml", "./bad.yaml", bad):  # as given, ./, absolute: all from the checkout's top
            _, doc = self.gitlab(arg, cwd=sub)
            self.assertEqual({e["location"]["path"] for e in doc}, {"sub/bad.yaml"}, arg)
        # In GitLab CI the project is $CI_PROJECT_DIR.
        _, doc = self.gitlab("bad.yaml", cwd=sub, env={"CI_PROJECT_DIR": sub})
        self.assertEqual({e["location"]["path"] for e in doc}, {"bad.yaml"})

    def test_statistics_go_to_stderr_and_a_clean_run_is_an_empty_array(self):
        self.write("bad.yaml", TP16)
        r, doc = self.gitlab("--statistics", "bad.yaml")
        self.assertEqual(len(doc), 2)
        self.assertIn("    1  PL101  tp-crosses-nvlink-domain\n", r.stderr)
        self.write("good.yaml", CLEAN)
        r, doc = self.gitlab("good.yaml")
        self.assertEqual((r.returncode, r.stdout, doc), (0, "[]\n", []))

    def test_listed_in_help(self):
        self.assertIn("gitlab", run("check", "--help").stdout)


class PyprojectConfiguration(TempDir):
    """[tool.parlint] in pyproject.toml: the keys of .parlint.yaml, found the same way, checked the same way."""

    def codes(self, *args, cwd=None):
        r = run("check", "--format", "json", *args, cwd=cwd or self.dir)
        return r, sorted({d["code"] for d in json.loads(r.stdout)["diagnostics"]}) if r.stdout else []

    def settings(self, path, *args):
        r = run("check", "--show-settings", "--format", "json", *args, path, cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["settings"][0]

    def test_the_table_applies_like_parlint_yaml(self):
        self.write("a/bad.yaml", TP16)
        self.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.parlint]\nignore = ["PL102"]\n\n'
                                     '[tool.parlint.severity]\nPL101 = "warning"\n')
        r, codes = self.codes("a")
        self.assertEqual(codes, ["PL101"])
        self.assertEqual(json.loads(r.stdout)["diagnostics"][0]["severity"], "warning")
        r, codes = self.codes("--select", "PL102", "a")  # the command line wins
        self.assertEqual(codes, ["PL102"])

    def test_every_key(self):
        self.write("third_party/x.yaml", TP16)
        self.write("examples/ex.yaml", "model:\n  num_layers: 32\n  pipeline_model_parallel_size: 4\n")
        self.write("pyproject.toml", """[tool.parlint]
select = ["PL1", "PL4"]
fail-on = "never"
framework = "megatron-bridge"
megatron-core-version = "0.15"
exclude = ["third_party/**"]

[tool.parlint.cluster]
gpus_per_node = 4
nvlink_domain = 72
gpu_memory_gib = 186.5

[tool.parlint.per-file-ignores]
"examples/**" = ["PL401"]
""")
        r, codes = self.codes(".")
        self.assertEqual((r.returncode, codes), (0, []))  # excluded, ignored per file, fail-on never
        s = self.settings("examples/ex.yaml")
        self.assertEqual(s["configuration"], {"path": "pyproject.toml", "table": "tool.parlint",
                                              "found": "the closest above the file", "not_used": None})
        self.assertEqual(s["select"], {"value": ["PL1", "PL4"], "from": "configuration"})
        self.assertEqual(s["per_file_ignores"], [{"pattern": "examples/**", "rules": ["PL401"], "matches": True}])
        self.assertNotIn("PL401", [x["code"] for x in s["rules"]])
        self.assertEqual(s["fail_on"], {"value": "never", "from": "configuration"})
        self.assertEqual((s["cluster"]["gpus_per_node"], s["cluster"]["nvlink_domain"], s["cluster"]["gpu_memory_gib"],
                          s["cluster"]["from"]), (4, 72, 186.5, "configuration"))
        self.assertEqual(s["framework"], {"value": "megatron-bridge", "from": "configuration"})
        self.assertEqual(s["megatron_core_version"], {"value": "0.15.0", "from": "configuration"})
        self.assertEqual(s["exclude"]["configuration"], ["third_party/**"])

    def test_without_the_table_the_search_goes_on_and_parlint_yaml_wins_in_one_folder(self):
        self.write("pkg/bad.yaml", TP16)
        self.write(".parlint.yaml", "ignore: [PL102]\n")
        self.write("pkg/pyproject.toml", '[project]\nname = "pkg"\n')  # not a configuration: skipped
        self.assertEqual(self.codes("pkg")[1], ["PL101"])
        self.write("pkg/pyproject.toml", '[project]\nname = "pkg"\n[tool.parlint]\nignore = ["PL101"]\n')
        self.assertEqual(self.codes("pkg")[1], ["PL102"])  # the closest wins
        self.write("pkg/.parlint.yaml", "select: [PL102]\nignore: [PL102]\n")
        self.assertEqual(self.codes("pkg")[1], [])  # .parlint.yaml wins over [tool.parlint] in its folder
        s = self.settings("pkg/bad.yaml")
        self.assertEqual(s["configuration"]["path"], os.path.join("pkg", ".parlint.yaml"))
        self.assertEqual(s["configuration"]["not_used"], "[tool.parlint] in " + os.path.join("pkg", "pyproject.toml"))
        text = run("check", "--show-settings", "pkg/bad.yaml", cwd=self.dir).stdout
        self.assertIn("not used: [tool.parlint] in pkg/pyproject.toml (.parlint.yaml in the same folder wins)", text)

    def test_errors_name_the_file_and_line(self):
        self.write("ok.yaml", CLEAN)
        for text, message in [
                ('[tool.parlint]\nselect = ["PL1"]\nseverities = {PL101 = "error"}\n',
                 "pyproject.toml:3: unknown configuration key 'severities'"),
                ('[tool.parlint]\nignore = ["PL999"]\n', "pyproject.toml:2: unknown rule 'PL999' in ignore"),
                ('[tool.parlint]\ncluster = "dgx-z9000"\n', "pyproject.toml:2: unknown cluster profile 'dgx-z9000'"),
                ('[tool.parlint.cluster]\ngpus_per_node = "four"\n', "pyproject.toml:2: cluster.gpus_per_node has the wrong type"),
                ('[tool.parlint]\nfail-on = true\n', "pyproject.toml:2: fail-on must be error, warning, info or never"),
                ('[project]\nname = "x"\n[tool.parlint\nselect = []\n', "pyproject.toml:3: invalid TOML: "),
                ('[tool]\nparlint = 3\n', "pyproject.toml:2: tool.parlint must be a table")]:
            self.write("pyproject.toml", text)
            r = run("check", "ok.yaml", cwd=self.dir)
            self.assertEqual(r.returncode, 2, text)
            self.assertIn(message, r.stderr, text)

    def test_explicit_config(self):
        self.write("bad.yaml", TP16)
        cfg = self.write("cfg/pyproject.toml", '[tool.parlint.severity]\nPL101 = "info"\n')
        r = run("check", "--config", cfg, "--format", "json", "bad.yaml", cwd=self.dir)
        self.assertEqual({d["code"]: d["severity"] for d in json.loads(r.stdout)["diagnostics"]}["PL101"], "info")
        other = self.write("cfg/other.toml", '[project]\nname = "x"\n')
        r = run("check", "--config", other, "bad.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no [tool.parlint] table", r.stderr)

    def test_a_key_cannot_drive_the_terminal(self):
        self.write("ok.yaml", CLEAN)
        for name, text in (("pyproject.toml", '[tool.parlint]\n"x\\u001b[2J" = 1\n'), (".parlint.yaml", "x\x1b[2J: 1\n")):
            self.write(name, text)
            r = run("check", "ok.yaml", cwd=self.dir)
            self.assertEqual(r.returncode, 2)
            self.assertIn("unknown configuration key 'x\\x1b[2J'", r.stderr)
            self.assertNotIn("\x1b", r.stderr)

    def test_another_tools_broken_pyproject_is_not_read(self):
        self.write("ok.yaml", CLEAN)
        self.write("pyproject.toml", '[project\nname = "x"\n')  # no [tool.parlint]: not parsed at all
        self.assertEqual(run("check", "ok.yaml", cwd=self.dir).returncode, 0)
        self.write("pyproject.toml", '[project\nname = "x"\n[tool.parlint]\n')
        self.assertEqual(run("check", "ok.yaml", cwd=self.dir).returncode, 2)


class ShowSettings(TempDir):
    """--show-settings: the settings of each path and where each came from; nothing is linted."""

    CONFIG = ("select: [PL1, PL4]\nignore: [PL104]\nseverity: {PL103: error}\nfail-on: error\ncluster: gb200-nvl72\n"
              "framework: nemo2\nexclude: [\"third_party/**\"]\nper-file-ignores: {\"examples/**\": [PL401]}\n")

    def test_text(self):
        self.write(".parlint.yaml", self.CONFIG)
        self.write("examples/bad.yaml", TP16)
        r = run("check", "--show-settings", "examples/bad.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertNotIn("PL101]", out)  # nothing linted
        for line in ("Settings for examples/bad.yaml\n",
                     "  configuration          .parlint.yaml (the closest above the file)\n",
                     "  select                 PL1, PL4 (configuration)\n",
                     "  ignore                 PL104 (configuration)\n",
                     "  per-file-ignores       \"examples/**\": PL401 (matches this file)\n",
                     "  severity               PL103: error (configuration); the others their default\n",
                     "  fail-on                error (configuration); one threshold for the whole run\n",
                     "  cluster                gb200-nvl72 (configuration): 4 GPUs per node, NVLink domain 72, "
                     "186 GiB per GPU",
                     "  framework              nemo2 (configuration)\n",
                     "  exclude                third_party/** (configuration, relative to .)\n"):
            self.assertIn(line, out)
        self.assertRegex(out, r"rules enabled +\d+ of \d+: PL101 PL102 PL103 PL105 .*\n {25}PL\d")
        enabled = out.split("rules enabled")[1].split("severity")[0]
        self.assertNotIn("PL104", enabled)  # ignored
        self.assertNotIn("PL401", enabled)  # ignored for this file by per-file-ignores

    def test_command_line_wins_and_says_so(self):
        self.write(".parlint.yaml", self.CONFIG)
        self.write("conf/x.yaml", CLEAN)
        s = json.loads(run("check", "--show-settings", "--format", "json", "--cluster", "dgx-b200", "--select", "PL2",
                           "--fail-on", "warning", "--gpus-per-node", "4", "conf/x.yaml", cwd=self.dir).stdout)["settings"][0]
        self.assertEqual((s["cluster"]["name"], s["cluster"]["from"]), ("dgx-b200", "command line"))
        self.assertEqual(s["select"], {"value": ["PL2"], "from": "command line"})
        self.assertEqual(s["ignore"], {"value": [], "from": "default"})  # --select replaces both lists
        self.assertEqual(s["fail_on"], {"value": "warning", "from": "command line"})
        self.assertEqual(s["gpus_per_node"], {"value": 4, "from": "command line"})
        self.assertEqual(s["per_file_ignores"][0]["matches"], False)
        self.assertTrue(all(x["code"].startswith("PL2") for x in s["rules"]))

    def test_defaults_folders_and_errors(self):
        self.write("a/x.yaml", CLEAN)
        r = run("check", "--show-settings", "a", "a/x.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Settings for a (a file directly in this folder)\n", r.stdout)
        self.assertIn("Settings for a/x.yaml\n", r.stdout)
        self.assertIn("configuration          none", r.stdout)
        self.assertIn("select                 all rules (default)", r.stdout)
        self.assertIn("cluster                none chosen", r.stdout)
        self.assertIn("fail-on                warning (default)", r.stdout)
        r = run("check", "--show-settings", "--stdin-filename", "a/y.yaml", "-", cwd=self.dir, stdin="")
        self.assertIn("Settings for a/y.yaml\n", r.stdout)
        self.assertEqual(run("check", "--show-settings", "missing.yaml", cwd=self.dir).returncode, 2)
        self.write(".parlint.yaml", "selct: [PL1]\n")
        r = run("check", "--show-settings", "a/x.yaml", cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn(".parlint.yaml:1: unknown configuration key 'selct'", r.stderr)


MOE_TP8 = "model:\n  num_moe_experts: 128\n  tensor_model_parallel_size: 8\n  expert_model_parallel_size: 8\n  sequence_parallel: true\n"


class AddNoqa(TempDir):
    """--add-noqa: a suppression comment for every finding, where it changes nothing else in the file."""

    def add(self, *args, cwd=None):
        return run("check", "--add-noqa", *args, cwd=cwd or self.dir)

    def read(self, rel):
        with open(os.path.join(self.dir, rel), encoding="utf-8", newline="") as f:
            return f.read()

    def test_codes_of_one_line_go_in_one_comment_at_its_end(self):
        self.write("moe.yaml", MOE_TP8)
        self.write("bad.yaml", TP16)
        r = self.add("moe.yaml", "bad.yaml")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Added 3 suppression comments for 4 findings in 2 files.", r.stderr)
        self.assertEqual(self.read("moe.yaml"), MOE_TP8.replace(
            "tensor_model_parallel_size: 8\n", "tensor_model_parallel_size: 8  # parlint: ignore[PL304, PL305] -- TODO: reason\n"))
        self.assertEqual(self.read("bad.yaml"), TP16.replace("num_nodes: 3\n", "num_nodes: 3  # parlint: ignore[PL102] -- TODO: reason\n")
                         .replace(": 16\n", ": 16  # parlint: ignore[PL101] -- TODO: reason\n"))
        again = run("check", "moe.yaml", "bad.yaml", cwd=self.dir)
        self.assertEqual(again.returncode, 0, again.stdout)
        self.assertIn("No problems found in 2 files.", again.stdout)
        self.assertIn("Added 0 suppression comments for 0 findings in 0 files.", self.add("moe.yaml", "bad.yaml").stderr)

    def test_a_continued_command_gets_a_range_and_still_runs(self):
        path = self.write("train.sh", FIXABLE)
        os.chmod(path, 0o750)
        r = self.add("train.sh")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = FIXABLE.splitlines(keepends=True)
        # A comment at the end of a line that ends in a backslash would end the command there (PL109).
        expected = "".join(lines[:2] + ["# parlint: disable[PL201, PL503, PL801] -- TODO: reason\n"] + lines[2:] +
                           ["# parlint: enable[PL201, PL503, PL801]\n"])
        self.assertEqual(self.read("train.sh"), expected)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o750)  # written like --fix writes: the mode kept
        self.assertEqual(subprocess.run(["bash", "-n", path]).returncode, 0)
        self.assertEqual(run("check", "train.sh", cwd=self.dir).returncode, 0)

    def test_the_first_line_of_a_statement_gets_a_comment_above_and_a_multi_line_string_a_range(self):
        script = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
                  "srun torchrun --nnodes=2 --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 16 \\\n"
                  "  --num-layers 32\n"
                  "srun bash -c \"torchrun --nnodes=2 --nproc_per_node=8 pretrain_gpt.py \\\n"
                  "  --tensor-model-parallel-size 16 \\\n"
                  "  --num-layers 32\"\n")
        self.write("train.sh", script)
        r = self.add("train.sh")
        self.assertEqual(r.returncode, 0, r.stderr)
        text = self.read("train.sh")
        self.assertIn("export CUDA_DEVICE_MAX_CONNECTIONS=1\n# parlint: ignore[PL101] -- TODO: reason\nsrun torchrun", text)
        self.assertIn("  --num-layers 32\n# parlint: disable[PL101] -- TODO: reason\nsrun bash -c", text)
        self.assertTrue(text.endswith("--num-layers 32\"\n# parlint: enable[PL101]\n"), text)
        # Where the string ends on the finding's line, the comment goes after it.
        self.write("one.sh", script.replace("16 \\\n  --num-layers 32\"\n", "16 --num-layers 32\"\n"))
        self.add("one.sh")
        self.assertTrue(self.read("one.sh").endswith('--num-layers 32"  # parlint: ignore[PL101] -- TODO: reason\n'))
        self.assertEqual(subprocess.run(["bash", "-n", os.path.join(self.dir, "train.sh")]).returncode, 0)
        self.assertEqual(run("check", "train.sh", cwd=self.dir).returncode, 0)

    def test_a_new_code_is_merged_into_the_comment_that_covers_the_line(self):
        self.write("a.yaml", MOE_TP8)
        self.assertEqual(self.add("--select", "PL304", "a.yaml").returncode, 0)  # a baseline of one rule
        self.assertIn("tensor_model_parallel_size: 8  # parlint: ignore[PL304] -- TODO: reason\n", self.read("a.yaml"))
        self.add("a.yaml")  # a rule added later joins the comment
        self.assertIn("tensor_model_parallel_size: 8  # parlint: ignore[PL304, PL305] -- TODO: reason\n",
                      self.read("a.yaml"))
        for written, merged in [("  tensor_model_parallel_size: 8  # parlint: ignore=PL304 -- known\n",
                                 "  tensor_model_parallel_size: 8  # parlint: ignore=PL304,PL305 -- known\n"),
                                ("  # parlint: ignore[moe-large-tp] -- known\n  tensor_model_parallel_size: 8\n",
                                 "  # parlint: ignore[moe-large-tp, PL305] -- known\n  tensor_model_parallel_size: 8\n")]:
            self.write("b.yaml", MOE_TP8.replace("  tensor_model_parallel_size: 8\n", written))
            self.assertEqual(self.add("b.yaml").returncode, 0)
            self.assertEqual(self.read("b.yaml"), MOE_TP8.replace("  tensor_model_parallel_size: 8\n", merged))
            self.assertEqual(run("check", "b.yaml", cwd=self.dir).returncode, 0)

    def test_what_no_comment_can_hide_is_listed_and_standard_input_is_refused(self):
        self.write("typo.yaml", "model:\n  tensor_model_parallel_size: 2  # parlint: ignore[PL2O1]\n")
        r = self.add("typo.yaml")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("typo.yaml:2: PL902 not suppressed: it is about a suppression comment itself", r.stderr)
        self.assertIn("1 finding remains (above).", r.stderr)
        r = run("check", "--add-noqa", "-", "--stdin-filename", "x.yaml", stdin=TP16)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--add-noqa edits files in place and cannot edit standard input", r.stderr)
        self.assertEqual(run("check", "--add-noqa", "--fix", self.write("c.yaml", CLEAN)).returncode, 2)

    def test_the_fixture_tree(self):
        """Every fixture copied: each file still parses in its own language, and a second check finds only
        what no comment can hide (docs/usage.md, "Adding suppressions for every finding")."""
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        from own_language import parse_error
        tree = os.path.join(self.dir, "fixtures")
        shutil.copytree(os.path.join(ROOT, "fixtures"), tree, ignore=shutil.ignore_patterns("*.expected"))
        originals = {}
        for folder, _, names in os.walk(tree):
            for name in names:
                with open(os.path.join(folder, name), "rb") as f:
                    originals[os.path.join(folder, name)] = f.read()
        r = self.add(".", cwd=tree)
        self.assertEqual(r.returncode, 0, r.stderr)
        added = re.search(r"Added (\d+) suppression comments for (\d+) findings in (\d+) files\.", r.stderr)
        self.assertGreater(int(added.group(2)), 300, r.stderr)
        left = [line for line in r.stderr.splitlines() if " not suppressed: " in line]
        changed = 0
        for path, before in originals.items():
            with open(path, "rb") as f:
                after = f.read()
            if after == before:
                continue
            changed += 1
            old = before.decode("utf-8", "surrogateescape")
            new = after.decode("utf-8", "surrogateescape")
            if parse_error(path, old) is None:
                self.assertIsNone(parse_error(path, new), path)
            # Only comments were added: the file less its parlint comments is the file as it was.
            strip = lambda t: re.sub(r"[ \t]*# parlint: [^\n]*", "",
                                     re.sub(r"(?m)^[ \t]*# parlint: [^\n]*(\n|\Z)", "", t)).rstrip("\n")
            self.assertEqual(strip(new), strip(old), path)
        self.assertEqual(changed, int(added.group(3)))
        doc = json.loads(run("check", "--format", "json", ".", cwd=tree).stdout)
        remaining = [f"{d['path'].removeprefix('./')}:{d['range']['start']['line']}: {d['code']}"
                     for d in doc["diagnostics"]]
        self.assertEqual(set(remaining), {line.split(" not suppressed")[0].removeprefix("parlint: ./")
                                          .removeprefix("parlint: ") for line in left})
        self.assertIn(f"{len(remaining)} findings remain (above).", r.stderr)
        # What remains: comments about comments (PL901, PL902), a syntax error past the last line, and findings
        # that only a launch (or an environment file) reading another file reports.
        self.assertEqual({d["code"] for d in doc["diagnostics"]},
                         {"PL102", "PL201", "PL503", "PL303", "PL401", "PL900", "PL901", "PL902"})
        self.assertIn("Added 0 suppression comments", self.add(".", cwd=tree).stderr)


class FactsFromElsewhere(TempDir):
    """Facts a launch takes from outside the script (issue 36): the GPUs the node has when the script runs,
    the dimensions of the checkpoint it loads. Unknown, with plan saying where they come from; a checkpoint
    named like a known model takes that model's dimensions."""

    ARGS = ("--num-attention-heads 32 --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 "
            "--global-batch-size 64")

    def test_gpus_counted_at_run_time_stay_unknown_and_plan_names_the_count(self):
        path = self.write("run.sh", "#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
                                    "GPUS=$(nvidia-smi -L | wc -l)\n"
                                    f"torchrun --nproc_per_node $GPUS pretrain_gpt.py --tensor-model-parallel-size 3 "
                                    f"--num-layers 24 --hidden-size 3072 {self.ARGS}\n")
        check = run("check", "--format", "json", path)
        self.assertNotIn("PL102", {d["code"] for d in json.loads(check.stdout)["diagnostics"]})
        plan = run("plan", path).stdout
        self.assertIn("the GPUs of the node that runs the script, counted at run time ($(nvidia-smi -L | wc -l))",
                      plan)

    def test_a_checkpoint_folder_named_like_a_known_model_takes_its_dimensions(self):
        path = self.write("run.sh", "#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
                                    "torchrun --nproc_per_node 8 pretrain_gpt.py --hf-model /models/Qwen2.5-7B-Instruct "
                                    "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 3\n")
        codes = {d["code"] for d in json.loads(run("check", "--format", "json", path).stdout)["diagnostics"]}
        self.assertIn("PL402", codes)  # 28 layers over PP 3
        plan = run("plan", path).stdout
        self.assertIn("Qwen2.5 7B (built-in model table, by the name of /models/Qwen2.5-7B-Instruct)", plan)

    def test_an_unknown_checkpoint_leaves_the_dimensions_unknown_with_a_note(self):
        path = self.write("run.sh", "#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
                                    "torchrun --nproc_per_node 8 pretrain_gpt.py --hf-model /ckpt/my-finetune "
                                    "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 3\n")
        codes = {d["code"] for d in json.loads(run("check", "--format", "json", path).stdout)["diagnostics"]}
        self.assertNotIn("PL402", codes)
        self.assertIn("the model's dimensions come from /ckpt/my-finetune, which parlint does not read",
                      run("plan", path).stdout)
