"""Hostile and broken input (docs/reliability.md): each case gets a clear message (PL900 or an `errors`
entry), the other files are still linted, nothing is written, memory stays bounded, and the exit code
follows DESIGN §4. Also: no output can carry control characters or secrets, and parlint never executes
anything it reads nor touches the network or its inputs."""
import hashlib
import json
import os
import resource
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
SANITIZED = os.environ.get("PARLINT_SANITIZED") == "1"  # ASan reserves terabytes of address space

GOOD = "model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true\n"  # PL201 at 3:22


def limit_memory():
    if not SANITIZED:
        gib = 1024 ** 3
        resource.setrlimit(resource.RLIMIT_AS, (2 * gib, 2 * gib))


def run(args, cwd, timeout=60, env=None, stdin=None):
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    e.update(env or {})
    started = time.monotonic()
    p = subprocess.run([PARLINT, *args], cwd=cwd, capture_output=True, timeout=timeout, env=e, input=stdin,
                       preexec_fn=limit_memory)
    p.seconds = time.monotonic() - started
    return p


def as_json(p):
    doc = json.loads(p.stdout)
    return doc, {(d["path"], d["code"]) for d in doc["diagnostics"]}


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.write("good.yaml", GOOD)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return path

    def check_json(self, *names, **kw):
        p = run(["check", "--format", "json", *names, "good.yaml"], self.dir, **kw)
        self.assertGreaterEqual(p.returncode, 0, f"killed by signal {-p.returncode}: {p.stderr[-2000:]}")
        self.assertNotEqual(p.returncode, 3, p.stderr)
        doc, found = as_json(p)
        self.assertIn(("good.yaml", "PL201"), found, "the other files must still be linted")
        return p, doc, found


class BrokenBytes(Case):
    def test_binary_and_nul_bytes(self):
        self.write("blob.yaml", os.urandom(4096) + b"\0")
        self.write("nul.sh", "#!/bin/bash\necho a\0b\n")
        self.write("nul.py", "x = 1\0\n")
        p, doc, found = self.check_json("blob.yaml", "nul.sh", "nul.py")
        self.assertEqual(p.returncode, 1)
        msgs = {d["path"]: d["message"] for d in doc["diagnostics"] if d["code"] == "PL900"}
        self.assertEqual(set(msgs), {"blob.yaml", "nul.sh", "nul.py"})
        self.assertTrue(all(m.startswith("binary file (a NUL byte at byte ") for m in msgs.values()), msgs)

    def test_invalid_utf8_is_escaped_in_every_format(self):
        self.write("bad.yaml", b"model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true"
                               b"  # parlint: ignore[\xff\xfe\xc2\x9b]\n")
        for fmt in ("json", "sarif", "gitlab"):
            p = run(["check", "--format", fmt, "bad.yaml"], self.dir)
            json.loads(p.stdout)  # valid JSON whatever the bytes
        p = run(["check", "--format", "text", "bad.yaml"], self.dir)
        p.stdout.decode("utf-8")  # the terminal gets valid UTF-8 only
        self.assertIn(b"\\xff\\xfe", p.stdout)
        self.assertNotIn(b"\xc2\x9b", p.stdout)  # a C1 control (CSI in some terminals) is shown escaped

    def test_bom_crlf_and_lone_cr_keep_positions(self):
        for name, text in [("bom.yaml", "\ufeff" + GOOD), ("crlf.yaml", GOOD.replace("\n", "\r\n")),
                           ("cr.yaml", GOOD.replace("\n", "\r")), ("bom_crlf.sh", "\ufeff#!/bin/bash\r\n"
                            "torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 1 "
                            "--sequence-parallel\r\n")]:
            self.write(name, text)
        p = run(["check", "--format", "gcc", "--fail-on", "never", "bom.yaml", "crlf.yaml", "cr.yaml", "bom_crlf.sh"],
                self.dir)
        lines = p.stdout.decode().splitlines()
        for name in ("bom.yaml", "crlf.yaml", "cr.yaml"):
            self.assertIn(f"{name}:3:22: error: sequence_parallel is on but TP=1", "\n".join(lines))
        self.assertTrue(any(l.startswith("bom_crlf.sh:2:") and "[PL201]" in l for l in lines), lines)

    def test_empty_files(self):
        for name in ("e.yaml", "e.py", "e.sh", "e.sbatch"):
            self.write(name, "")
        p, doc, found = self.check_json("e.yaml", "e.py", "e.sh", "e.sbatch")
        self.assertEqual(doc["errors"], [])
        self.assertEqual(found, {("good.yaml", "PL201")})


class Size(Case):
    def test_100_mb_file_is_reported_not_read(self):
        big = os.path.join(self.dir, "big.yaml")
        with open(big, "wb") as f:
            f.truncate(100 * 1024 * 1024)  # sparse: costs no disk, would cost 100 MB to read
        p, doc, found = self.check_json("big.yaml")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(doc["errors"][0]["path"], "big.yaml")
        self.assertIn("over the 16 MiB limit (--max-file-size); not read", doc["errors"][0]["message"])
        self.assertLess(p.seconds, 10)

    def test_one_megabyte_line(self):
        self.write("line.yaml", "model: {name: " + "x" * (1 << 20) + ", tensor_model_parallel_size: 3}\n")
        self.write("line.sh", "echo " + "a" * (1 << 20) + "\n")
        self.write("line.py", "X = '" + "a" * (1 << 20) + "'\n")
        p, doc, found = self.check_json("line.yaml", "line.sh", "line.py")
        self.assertLess(p.seconds, 30)
        # With a smaller limit the same files are reported and the run still goes on.
        p = run(["check", "--format", "json", "--max-file-size", "512KiB", "line.yaml", "good.yaml"], self.dir)
        doc, found = as_json(p)
        self.assertEqual(p.returncode, 2)
        self.assertIn("512 KiB limit", doc["errors"][0]["message"])
        self.assertIn(("good.yaml", "PL201"), found)

    def test_standard_input_is_bounded(self):
        p = run(["check", "-", "--max-file-size", "1MiB"], self.dir, stdin=b"a" * (3 << 20))
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"standard input is over the 1 MiB limit", p.stderr)


class Nesting(Case):
    DEPTH = 100_000

    def test_deep_nesting_everywhere(self):
        n = self.DEPTH
        self.write("deep_flow.yaml", "a: " + "[" * n + "]" * n + "\n")
        self.write("deep_unclosed.yaml", "a: " + "{b: " * n + "\n")
        self.write("deep_block.yaml", "".join(" " * i + "k:\n" for i in range(0, 3000)))
        self.write("deep_parens.py", "x = " + "(" * n + "1" + ")" * n + "\n")
        self.write("deep_unclosed.py", "x = " + "[" * n + "\n")
        self.write("deep_subst.sh", "X=" + "$(" * n + "echo" + ")" * n + "\n")
        self.write("deep_arith.sh", "X=$((" + "(" * n + "1" + ")" * n + "))\n")
        self.write("deep_unclosed.sh", "echo " + "$(" * n + "\n")
        self.write("deep_test.sh", "[[ " * n + "\n")
        names = ["deep_flow.yaml", "deep_unclosed.yaml", "deep_block.yaml", "deep_parens.py", "deep_unclosed.py",
                 "deep_subst.sh", "deep_arith.sh", "deep_unclosed.sh", "deep_test.sh"]
        p, doc, found = self.check_json(*names, timeout=120)
        self.assertLess(p.seconds, 60)
        reported = {path for path, code in found if code == "PL900"}
        # Every deep file is either read (its nesting bounded) or reported; none crashes the run. Shell
        # nested deeper than the bash syntax check follows gets no verdict from it: unread (PL903), not
        # a syntax error it cannot prove.
        self.assertTrue({"deep_flow.yaml", "deep_unclosed.yaml", "deep_unclosed.py"} <= reported, reported)
        self.assertIn(("deep_unclosed.sh", "PL903"), found)

    def test_shell_grammar_workarounds_stay_linear(self):
        # Inputs that would make a rescanning pass quadratic: unclosed forms repeated on one long line, and
        # many heredocs that never close.
        n = 200_000
        self.write("brackets.sh", "x=" + "${a#[}" * n + "\n")
        self.write("substr.sh", "x=" + "${a:${b" * (n // 2) + "\n")
        self.write("jinja.sh", "echo " + "{{ " * n + "\n")
        self.write("heredocs.sh", "".join(f"cat <<EOF{i}\n" for i in range(20_000)))
        self.write("arith.sh", "x=$((" + "10#$a+" * n + "\n")
        names = ["brackets.sh", "substr.sh", "jinja.sh", "heredocs.sh", "arith.sh"]
        p, doc, found = self.check_json(*names, timeout=300)
        # About 3 s natively, 35 s under the sanitizers; a pass that rescans would take hours.
        self.assertLess(p.seconds, 150 if SANITIZED else 30)

    def test_yaml_alias_bomb_is_bounded_by_work(self):
        lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
        for i in range(1, 12):
            lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i-1}"] * 10) + "]")
        lines.append("model: {tensor_model_parallel_size: *a11, sequence_parallel: true}")
        self.write("bomb.yaml", "\n".join(lines) + "\n")
        p, doc, found = self.check_json("bomb.yaml", timeout=60)
        self.assertLess(p.seconds, 20)


class Budget(Case):
    """A file over the per-file budget (lint/model/work_budget.h) is reported with PL903 where reading stopped,
    the lines before it are still linted, every other file is linted as usual, and the exit code is a
    finding's, never an internal error's."""

    def test_file_over_budget_is_unread_and_the_others_are_linted(self):
        lines = ["#!/bin/bash", "TP=1", "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size $TP "
                 "--sequence-parallel"]
        lines += [f'if [ "$X{i}" ]; then A="$A --x{i}"; fi' for i in range(3000)]
        lines.append("torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 16")
        self.write("big.sh", "\n".join(lines) + "\n")
        self.write("big.py", "def recipe():\n" + "".join(f"    x{i} = {i}\n" for i in range(5000))
                   + "    cfg.model.tensor_model_parallel_size = 2\n")
        self.write("big.yaml", "".join("---\nmodel:\n" + "".join(f"  k{j}: {j}\n" for j in range(50)) for i in range(200)))
        p, doc, found = self.check_json("big.sh", "big.py", "big.yaml", env={"PARLINT_FILE_BUDGET": "60000,3000000"})
        self.assertEqual(p.returncode, 1, p.stderr)
        notes = {d["path"]: d for d in doc["diagnostics"] if d["code"] == "PL903" and "budget" in d["message"]}
        self.assertEqual(set(notes), {"big.sh", "big.py", "big.yaml"}, doc["diagnostics"])
        self.assertTrue(all(d["severity"] == "info" for d in notes.values()))
        # The first launch was read before the budget ran out (PL201 on its --sequence-parallel); the
        # last one, after it, was not (no PL101 for TP=16).
        self.assertIn(("big.sh", "PL201"), found)
        self.assertNotIn(("big.sh", "PL101"), found)
        self.assertGreater(notes["big.sh"]["range"]["start"]["line"], 3)
        # A Python job read only in part is left out rather than judged on what it did not reach.
        self.assertEqual(notes["big.py"]["range"]["start"]["line"], 1)

    def test_a_referenced_file_parsed_for_another_input_costs_the_same(self):
        # Three launches run the same script, whose parse costs most of a budget: the first input parses
        # it and the run keeps it; a second finds it and is charged what it cost; a third has too little
        # left, parses it itself and runs out there. Each one's findings, PL903 included, are those it gets
        # when linted alone, in any order and with any number of threads.
        self.write("train.py", "import argparse\n" + "".join(f"x{i} = {i}\n" for i in range(3000))
                   + "parser = argparse.ArgumentParser()\n"
                   "parser.add_argument('--pipeline-model-parallel-size', type=int, default=2)\n")

        def launch(n, tp):
            return ("#!/bin/bash\n" + "".join(f'if [ "$X{i}" ]; then A="$A --x{i}"; fi\n' for i in range(n))
                    + f"torchrun --nproc_per_node 8 train.py --tensor-model-parallel-size {tp} $A\n")
        for name, n, tp in (("a.sh", 10, 16), ("b.sh", 20, 16), ("c.sh", 650, 4), ("d.sh", 2000, 16)):
            self.write(name, launch(n, tp))
        env = {"PARLINT_FILE_BUDGET": "60000,8000000"}

        def findings(*names, jobs="1"):
            p = run(["check", "--format", "json", "--jobs", jobs, *names], self.dir, env=env)
            self.assertIn(p.returncode, (0, 1), p.stderr)
            return sorted(json.dumps(d, sort_keys=True) for d in json.loads(p.stdout)["diagnostics"])

        names = ("a.sh", "b.sh", "c.sh", "d.sh")
        alone = sorted(sum((findings(n) for n in names), []))
        spent_on_train = [d for d in alone if '"c.sh"' in d and "spent on the files it refers to" in d]
        self.assertEqual(len(spent_on_train), 1, "c.sh must run out while parsing train.py for the test to tell")
        self.assertEqual(findings(*names), alone)
        self.assertEqual(findings(*reversed(names), jobs="2"), alone)

    def test_an_imported_module_parsed_for_another_input_costs_the_same(self):
        # Recipes import one module whose body costs most of a budget, after module-level lines of their
        # own: the run parses the module for the first and hands its text and tree to the others (and to
        # the module itself, an input too), which must be charged what parsing it cost. The recipes near
        # the limit run out there or not alone, and each input's findings, PL903 included, are those it
        # gets when linted alone, in any order and with any number of threads. (The Python parser charges
        # the statements it reads, which every importer still reads itself, and not yet the bytes
        # tree-sitter parses: with those charged, a cache that handed trees out free fails this test.)
        self.write("recipes/heavy.py", "".join(f"x{i} = {i}\n" for i in range(3000))
                   + "def base_recipe(tp=1):\n    cfg = ConfigContainer()\n"
                   "    cfg.model.tensor_model_parallel_size = tp\n    return cfg\n")
        names = []
        for k, n in enumerate((0, 400, 700, 850, 1000, 1150)):
            names.append(f"recipes/r{k}.py")
            self.write(names[-1], "from .heavy import base_recipe\n" + "".join(f"y{i} = {i}\n" for i in range(n))
                       + f"\ndef r{k}_config():\n    cfg = base_recipe()\n"
                       "    cfg.model.sequence_parallel = True\n    return cfg\n")
        names.append("recipes/heavy.py")
        env = {"PARLINT_FILE_BUDGET": "60000,8000000"}

        def findings(*names, jobs="1"):
            p = run(["check", "--format", "json", "--jobs", jobs, *names], self.dir, env=env)
            self.assertIn(p.returncode, (0, 1), p.stderr)
            return sorted(json.dumps(d, sort_keys=True) for d in json.loads(p.stdout)["diagnostics"])

        alone = sorted(sum((findings(n) for n in names), []))
        over = {json.loads(d)["path"] for d in alone if '"PL903"' in d and "budget" in d}
        self.assertEqual(over, {"recipes/r4.py", "recipes/r5.py"},
                         "r4 and r5 alone must run out while reading heavy.py for the test to tell")
        self.assertTrue(any('"recipes/r3.py"' in d and '"PL201"' in d for d in alone), alone)
        self.assertEqual(findings(*names), alone)
        self.assertEqual(findings(*reversed(names), jobs="2"), alone)

    def test_a_shared_file_costs_its_parse_alone_not_the_first_readers_pending_work(self):
        # a.sh ends in a launch of 3,000 words, whose reading is metered work not yet charged when its
        # train.py is parsed; b.sh spends its budget on its own lines first. The run keeps train.py for
        # b.sh at what parsing it cost: a.sh's pending work charged with it made b.sh, near its limit, run
        # out together where it did not alone. Budgets from the least that fits both, in steps.
        self.write("train.py", "import argparse\n" + "".join(f"x{i} = {i}\n" for i in range(3000))
                   + "parser = argparse.ArgumentParser()\n"
                   "parser.add_argument('--pipeline-model-parallel-size', type=int, default=2)\n")
        launch = "torchrun --nproc_per_node 8 train.py --tensor-model-parallel-size 16"
        self.write("a.sh", "#!/bin/bash\n" + launch + "".join(f" --w{i} {i}" for i in range(1500)) + "\n")
        self.write("b.sh", "#!/bin/bash\n" + "".join(f"V{i}={i}\n" for i in range(2000)) + launch + "\n")

        def findings(units, *names):
            p = run(["check", "--format", "json", "--jobs", "1", *names], self.dir,
                    env={"PARLINT_FILE_BUDGET": f"60000,{units}"})
            self.assertIn(p.returncode, (0, 1), p.stderr)
            return sorted(json.dumps(d, sort_keys=True) for d in json.loads(p.stdout)["diagnostics"])

        def least_that_fits(name):
            lo, hi = 1, 1 << 26
            while lo < hi:
                mid = (lo + hi) // 2
                if any('"PL903"' in d for d in findings(mid, name)):
                    lo = mid + 1
                else:
                    hi = mid
            return lo

        start = max(least_that_fits("a.sh"), least_that_fits("b.sh"))
        for units in range(start, start + 300_000, 20_000):
            self.assertEqual(findings(units, "a.sh", "b.sh"),
                             sorted(findings(units, "a.sh") + findings(units, "b.sh")), f"budget {units}")

    def test_time_budget(self):
        self.write("slow.sh", "#!/bin/bash\n" + "".join(f"A{i}=$((1 + {i}))\n" for i in range(200_000)))
        p, doc, found = self.check_json("slow.sh", env={"PARLINT_FILE_BUDGET": "1"}, timeout=120)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        notes = [d for d in doc["diagnostics"] if d["code"] == "PL903" and "longer than" in d["message"]]
        self.assertEqual(len(notes), 1, doc["diagnostics"])


class Cycles(Case):
    def test_cyclic_source_interpolation_and_config_references(self):
        self.write("a.sh", "source ./b.sh\nTP=2\n")
        self.write("b.sh", "source ./a.sh\nsource ./b.sh\n")
        self.write("interp.yaml", "model:\n  tensor_model_parallel_size: ${model.pipeline_model_parallel_size}\n"
                                  "  pipeline_model_parallel_size: ${model.tensor_model_parallel_size}\n"
                                  "  seq_length: ${.seq_length}\n")
        # A launch whose Hydra defaults refer back to themselves.
        self.write("conf/config.yaml", "defaults:\n  - training: t\n  - config\n")
        self.write("conf/training/t.yaml", "defaults:\n  - /config\n  - t\nmodel: {tensor_model_parallel_size: 2}\n")
        self.write("launch.sh", "python3 main.py --config-path conf --config-name config training.model.x=1\n")
        self.write("recipe.py", "from recipe import f\nimport recipe\ndef f():\n    return f()\n")
        p, doc, found = self.check_json("a.sh", "b.sh", "interp.yaml", "launch.sh", "recipe.py", timeout=60)
        self.assertLess(p.seconds, 20)


class Paths(Case):
    def test_folder_fifo_devices_and_symlink_loop(self):
        os.mkfifo(os.path.join(self.dir, "pipe.yaml"))
        os.symlink(".", os.path.join(self.dir, "loop"))
        os.symlink("missing.yaml", os.path.join(self.dir, "dangling.yaml"))
        self.write("sub/inner.yaml", GOOD)
        p = run(["check", "--format", "json", "pipe.yaml", "/dev/zero", "/dev/urandom", "sub", "loop", "good.yaml"],
                self.dir, timeout=30)
        doc, found = as_json(p)
        self.assertEqual(p.returncode, 2)
        errors = {e["path"]: e["message"] for e in doc["errors"]}
        self.assertEqual(errors["pipe.yaml"], "not a regular file")  # never opened, so no blocking
        self.assertEqual(errors["/dev/zero"], "not a regular file")
        self.assertIn(("sub/inner.yaml", "PL201"), found)

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"), "needs root to drop to another user")
    def test_unreadable_file_and_folder_during_a_walk(self):
        self.write("tree/ok.yaml", GOOD)
        locked = self.write("tree/locked.yaml", GOOD)
        os.chmod(locked, 0)
        os.makedirs(os.path.join(self.dir, "tree/closed"))
        self.write("tree/closed/x.yaml", GOOD)
        os.chmod(os.path.join(self.dir, "tree/closed"), 0)
        os.chmod(self.dir, 0o755)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", PARLINT, "check",
                            "--format", "json", "tree"], cwd=self.dir, capture_output=True, timeout=60)
        doc, found = as_json(p)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(("tree/ok.yaml", "PL201"), found)
        paths = {e["path"] for e in doc["errors"]}
        self.assertIn("tree/locked.yaml", paths)
        self.assertTrue(any(x.startswith("tree/closed") for x in paths), doc["errors"])

    def test_files_disappearing_and_appearing_mid_run(self):
        for i in range(1500):
            self.write(f"churn/f{i:04}.yaml", GOOD)
        stop = threading.Event()

        def churn():
            i = 0
            while not stop.is_set():
                victim = os.path.join(self.dir, "churn", f"f{i % 1500:04}.yaml")
                try:
                    os.unlink(victim)
                    with open(victim + ".new.yaml", "w") as f:
                        f.write(GOOD)
                    os.replace(victim + ".new.yaml", victim)
                except OSError:
                    pass
                i += 7

        t = threading.Thread(target=churn)
        t.start()
        try:
            for _ in range(3):
                p = run(["check", "--format", "json", "churn"], self.dir, timeout=120)
                self.assertIn(p.returncode, (1, 2), p.stderr[-2000:])
                doc, found = as_json(p)
                self.assertGreater(len(found), 1000)
        finally:
            stop.set()
            t.join()

    def test_thousands_of_files_on_the_command_line(self):
        names = []
        for i in range(5000):
            names.append(f"many/c{i:05}.yaml")
            self.write(names[-1], GOOD if i % 2 else "model: {tensor_model_parallel_size: 2}\n")
        p = run(["check", "--format", "json", *names], self.dir, timeout=120)
        doc, found = as_json(p)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(doc["files_checked"], 5000)
        self.assertEqual(len(found), 2500)


class FuzzRegressions(Case):
    """Every input the fuzzers found (tests/fuzz/regressions/<kind>/): each once hung, spun or crashed."""

    def test_each_regression_input_finishes_quickly(self):
        base = os.path.join(ROOT, "tests", "fuzz", "regressions")
        ext = {"yaml": ".yaml", "python": ".py", "shell": ".sh"}
        names = []
        for kind in sorted(os.listdir(base)):
            for name in sorted(os.listdir(os.path.join(base, kind))):
                with open(os.path.join(base, kind, name), "rb") as f:
                    names.append(self.write(f"{kind}-{name}{ext[kind]}", f.read()))
        self.assertGreaterEqual(len(names), 4)
        p, doc, found = self.check_json(*[os.path.basename(n) for n in names], timeout=60)
        self.assertLess(p.seconds, 20)


class OutputSafety(Case):
    SECRET = "hf_" + "QxLmZpRtVwYbNcHdFgJkPsTuAeBiCoDuEy"  # a token shape, not a filler (PL701 skips those)

    def test_secret_never_printed_in_any_format(self):
        self.write("job.sh", f"#!/bin/bash\nexport HF_TOKEN={self.SECRET}\ntorchrun --nproc-per-node 8 train.py\n")
        for fmt in ("text", "gcc", "json", "sarif", "github"):
            p = run(["check", "--format", fmt, "--color", "always", "job.sh"], self.dir)
            self.assertIn(b"PL701", p.stdout, fmt)
            self.assertNotIn(self.SECRET.encode(), p.stdout + p.stderr, fmt)
            self.assertNotIn(self.SECRET[3:20].encode(), p.stdout + p.stderr, fmt)

    def test_ansi_escapes_in_names_and_values(self):
        evil = "x\x1b]0;pwned\x07\x1b[2J.yaml"
        self.write(evil, "model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true  "
                         "# parlint: ignore[\x1b[31mred]\n")
        for fmt in ("text", "gcc", "github"):
            p = run(["check", "--format", fmt, evil], self.dir)
            self.assertNotIn(b"\x1b", p.stdout + p.stderr, fmt)
            self.assertNotIn(b"\x07", p.stdout + p.stderr, fmt)


@unittest.skipUnless(shutil.which("strace") and shutil.which("unshare") and os.geteuid() == 0,
                     "needs strace, unshare and root")
class NothingExecutedNothingWritten(Case):
    """parlint reads; it never runs, imports or sources what it reads, opens no socket, writes no input."""

    def test_no_exec_no_network_inputs_unchanged(self):
        marker = os.path.join(self.dir, "executed")
        self.write("run.sh", f"#!/bin/bash\ntouch {marker}\nsource ./lib.sh\nbash -c \"touch {marker}\"\n"
                             f"eval \"touch {marker}\"\nX=$(touch {marker})\n"
                             "torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 16\n")
        self.write("lib.sh", f"touch {marker}\n")
        self.write("recipe.py", f"import os\nos.system('touch {marker}')\nimport helper\n")
        self.write("helper.py", f"open('{marker}', 'w').write('x')\n")
        self.write("conf.yaml", "model: {tensor_model_parallel_size: ${oc.env:HOME}, x: !!python/object/apply:os.system"
                                f" ['touch {marker}']}}\n")
        self.write(".parlint.yaml", "ignore: [PL401]\n")

        def digest():
            h = {}
            for base, _, files in os.walk(self.dir):
                for f in files:
                    p = os.path.join(base, f)
                    with open(p, "rb") as fh:
                        h[p] = (hashlib.sha256(fh.read()).hexdigest(), os.stat(p).st_mtime_ns)
            return h

        before = digest()
        trace = os.path.join(tempfile.mkdtemp(), "trace")
        # A private network namespace (no interfaces but a down loopback) and a read-only view of the inputs.
        script = (f"mount --bind {self.dir} {self.dir} && mount -o remount,bind,ro {self.dir} && "
                  f"strace -f -qq -o {trace} -e trace=execve,socket,connect {PARLINT} check --format json .")
        p = subprocess.run(["unshare", "-n", "-m", "sh", "-c", script], cwd=self.dir, capture_output=True,
                           timeout=120)
        if p.returncode not in (0, 1) and b"mount" in p.stderr:
            self.skipTest("cannot make a read-only bind mount here: " + p.stderr.decode()[-200:])
        # In a chroot (tests/fresh_machine.sh) the root is no mount point, so no private mount namespace.
        if p.stderr.startswith(b"unshare: "):
            self.skipTest("cannot make a private mount namespace here: " + p.stderr.decode()[:200])
        self.assertIn(p.returncode, (0, 1), p.stderr)
        doc, found = as_json(p)
        self.assertIn(("run.sh", "PL101"), found)
        self.assertFalse(os.path.exists(marker), "something parlint read was executed")
        self.assertEqual(digest(), before)
        with open(trace) as f:
            calls = [l for l in f.read().splitlines() if "execve(" in l or "socket(" in l or "connect(" in l]
        execs = [c for c in calls if "execve(" in c]
        self.assertEqual(len(execs), 1, calls)  # only parlint itself
        self.assertFalse([c for c in calls if "socket(" in c or "connect(" in c], calls)


if __name__ == "__main__":
    unittest.main()
