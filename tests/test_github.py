"""GitHub Actions: `--format github` decoded with the runner's own rules (actions/runner ActionCommand.cs),
the job summary, the automatic format, and the composite action's two script steps run locally with the
GITHUB_* variables a runner sets."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))


def unescape_data(s):
    # The runner's order: CR, LF, then % last.
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(s):
    return (s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",")
            .replace("%25", "%"))


def decode(line):
    """One workflow command as the runner reads it: (command, properties, data), or None."""
    line = line.lstrip()
    if not line.startswith("::"):
        return None
    end = line.find("::", 2)
    if end < 0:
        return None
    info, data = line[2:end], line[end + 2:]
    name, _, props_text = info.partition(" ")
    props = {}
    for item in [p for p in props_text.split(",") if p]:
        key, eq, value = item.partition("=")
        if eq:
            props[key] = unescape_property(value)
    return name, props, unescape_data(data)


def run(args, cwd, env=None):
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    e.pop("GITHUB_STEP_SUMMARY", None)
    e.update(env or {})
    return subprocess.run([PARLINT, "check", *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env=e)


class Escaping(unittest.TestCase):
    # A file name and a rule-name typo carrying every character the runner treats specially.
    NASTY_DIR = "odd, dir: 100%"
    NASTY_FILE = "job::error file=x::pwned%0A,a:b\r\nnext.yaml"
    BAD_NAME = "tp::warning file=evil::pwned%0Ax:y%25"

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.mkdir(os.path.join(self.tmp, self.NASTY_DIR))
        self.rel = os.path.join(self.NASTY_DIR, self.NASTY_FILE)
        with open(os.path.join(self.tmp, self.rel), "w", newline="") as f:
            f.write("model:\n  tensor_model_parallel_size: 1\n"
                    f"  sequence_parallel: true  # parlint: ignore[{self.BAD_NAME}]\n")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_names_and_messages_survive_and_cannot_inject(self):
        p = run(["--format", "github", "--", self.rel], self.tmp)
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stdout.splitlines()
        commands = [decode(line) for line in lines]
        # One command per line, nothing else: CR and LF cannot start a second command.
        self.assertTrue(all(commands), lines)
        self.assertEqual(len(lines), 2, lines)  # PL201 and PL902
        by_title = {c[1]["title"].split()[0]: c for c in commands}
        self.assertEqual(set(by_title), {"PL201", "PL902"})
        for name, props, data in commands:
            self.assertIn(name, ("error", "warning", "notice"))
            self.assertEqual(props["file"], self.rel)  # ',', ':', '%', '::', CR and LF intact
            self.assertEqual(set(props) - {"file", "line", "col", "endLine", "endColumn", "title"}, set())
        name, props, data = by_title["PL902"]
        self.assertIn(self.BAD_NAME, data)
        self.assertEqual(props["line"], "3")
        self.assertEqual(by_title["PL201"][0], "error")  # errors first
        self.assertEqual(commands[0][1]["title"].split()[0], "PL201")

    def test_control_characters_are_made_visible(self):
        with open(os.path.join(self.tmp, "ansi.yaml"), "w") as f:
            f.write("model:\n  tensor_model_parallel_size: 1\n"
                    "  sequence_parallel: true  # parlint: ignore[bad\x1b[31mred]\n")
        p = run(["--format", "github", "ansi.yaml"], self.tmp)
        self.assertNotIn("\x1b", p.stdout)
        self.assertIn("\\x1b[31mred", p.stdout)

    def test_columns_only_on_one_line(self):
        p = run(["--format", "github", "--fail-on", "never", "fixtures"], ROOT)
        for name, props, _ in map(decode, p.stdout.splitlines()):
            if "col" in props or "endColumn" in props:
                self.assertEqual(props["line"], props["endLine"])
            if "endColumn" in props:
                self.assertGreaterEqual(int(props["endColumn"]), int(props["col"]))

    def test_message_with_help_and_related_location_is_multiline(self):
        p = run(["--format", "github", "fixtures/examples/nemo1_gpt3_20b_tp16.yaml"], ROOT)
        name, props, data = decode(p.stdout.splitlines()[0])
        self.assertEqual((name, props["title"]), ("error", "PL101 tp-crosses-nvlink-domain"))
        self.assertIn("\nhelp: ", data)
        self.assertIn("\nnote: fixtures/examples/nemo1_gpt3_20b_tp16.yaml:", data)


class ActionsEnvironment(unittest.TestCase):
    def test_automatic_format_and_job_summary(self):
        with tempfile.TemporaryDirectory() as tmp:
            summary = os.path.join(tmp, "summary.md")
            with open(summary, "w") as f:
                f.write("earlier step\n")
            p = run(["fixtures/examples"], ROOT, {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary})
            commands = [decode(l) for l in p.stdout.splitlines()]
            self.assertTrue(commands and all(commands))
            with open(summary) as f:
                md = f.read()
        self.assertTrue(md.startswith("earlier step\n### parlint: "), md[:200])  # appended, not replaced
        # The text report's names for the severities (issue 45: the summary said "note" for info).
        self.assertRegex(md, r"### parlint: \d+ error\(s\), \d+ warning\(s\), \d+ info in \d+ file\(s\)")
        self.assertIn("\n| info | ", md)
        self.assertNotIn("note", md.split("\n", 2)[1])
        rows = [l for l in md.splitlines() if l.startswith("| ") and not l.startswith("| |")]
        self.assertEqual(len(rows), len(commands))
        # An explicit format wins over the environment.
        p = run(["--format", "gcc", "fixtures/examples"], ROOT, {"GITHUB_ACTIONS": "true"})
        self.assertFalse(p.stdout.startswith("::"))

    def test_more_than_ten_of_a_kind_are_announced(self):
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(12):
                with open(os.path.join(tmp, f"c{i:02}.yaml"), "w") as f:
                    f.write("model:\n  tensor_model_parallel_size: 1\n  sequence_parallel: true\n")
            p = run(["--format", "github", "."], tmp, {"GITHUB_STEP_SUMMARY": os.path.join(tmp, "s.md")})
        commands = [decode(l) for l in p.stdout.splitlines()]
        self.assertEqual(sum(1 for c in commands if c[0] == "error"), 12)
        self.assertEqual(commands[-1][0], "notice")
        self.assertIn("12 errors: GitHub shows the first 10", commands[-1][2])
        self.assertIn("job summary", commands[-1][2])


class CompositeAction(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.env = dict(os.environ, GITHUB_ACTIONS="true", GITHUB_ACTION_PATH=ROOT, GITHUB_WORKSPACE=ROOT,
                        GITHUB_STEP_SUMMARY=os.path.join(self.tmp, "summary.md"),
                        GITHUB_OUTPUT=os.path.join(self.tmp, "output"), GITHUB_ENV=os.path.join(self.tmp, "env"),
                        RUNNER_TEMP=self.tmp)
        for name in ("output", "env", "summary.md"):
            open(os.path.join(self.tmp, name), "w").close()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def read(self, name):
        with open(os.path.join(self.tmp, name)) as f:
            return dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)

    def test_action_yml_passes_inputs_through_the_environment(self):
        with open(os.path.join(ROOT, "action.yml")) as f:
            action = yaml.safe_load(f)
        self.assertEqual(action["runs"]["using"], "composite")
        self.assertEqual(set(action["inputs"]), {"paths", "args", "fail-on", "sarif-file", "version"})
        for step in action["runs"]["steps"]:
            self.assertNotIn("${{", step["run"], "inputs spliced into shell code allow script injection")
            script = step["run"].strip("'\"").replace("$GITHUB_ACTION_PATH/", "")
            path = os.path.join(ROOT, script.strip('"'))
            self.assertTrue(os.access(path, os.X_OK), path)

    def test_setup_reuses_parlint_on_path(self):
        env = dict(self.env, PATH=os.path.dirname(PARLINT) + os.pathsep + self.env["PATH"])
        p = subprocess.run([os.path.join(ROOT, "integrations/github/action-setup.sh")], env=env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("parlint ", p.stdout)
        self.assertEqual(self.read("env")["PARLINT_BIN"], PARLINT)
        p = subprocess.run([os.path.join(ROOT, "integrations/github/action-setup.sh")],
                           env=dict(env, PARLINT_VERSION_INPUT="9.9"), capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stdout.startswith("::error "))

    def run_action(self, **inputs):
        env = dict(self.env, PARLINT_BIN=PARLINT, **inputs)
        return subprocess.run([os.path.join(ROOT, "integrations/github/action-run.sh")], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)

    def test_annotations_summary_sarif_and_outputs(self):
        sarif_path = os.path.join(self.tmp, "out", "parlint.sarif")
        p = self.run_action(PARLINT_PATHS="fixtures/examples\nfixtures/rules/PL201", PARLINT_ARGS="--ignore PL205",
                            PARLINT_FAIL_ON="error", PARLINT_SARIF=sarif_path)
        self.assertEqual(p.returncode, 1, p.stderr)
        commands = [decode(l) for l in p.stdout.splitlines()]
        self.assertTrue(commands and all(commands), p.stdout)
        self.assertFalse(any("PL205" in c[1].get("title", "") for c in commands))
        outputs = self.read("output")
        self.assertEqual(outputs["exit-code"], "1")
        self.assertEqual(outputs["sarif-file"], sarif_path)
        with open(sarif_path) as f:
            doc = json.load(f)
        # Past 10 of a kind a file-less notice says GitHub shows only the first ten; the log lists them all.
        annotated = {(c[1]["file"], c[1]["line"], c[1]["title"].split()[0]) for c in commands if "file" in c[1]}
        in_sarif = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                     str(r["locations"][0]["physicalLocation"]["region"]["startLine"]), r["ruleId"])
                    for r in doc["runs"][0]["results"] if "suppressions" not in r}
        self.assertEqual(annotated, in_sarif)
        with open(os.path.join(self.tmp, "summary.md")) as f:
            self.assertEqual(f.read().count("### parlint:"), 1)  # the SARIF pass writes no second summary

    def test_fail_on_never_and_hostile_inputs(self):
        marker = os.path.join(self.tmp, "pwned")
        p = self.run_action(PARLINT_PATHS=f"fixtures/examples $(touch {marker}) ;touch {marker}",
                            PARLINT_ARGS=f"--fail-on never `touch {marker}`", PARLINT_FAIL_ON="never")
        self.assertFalse(os.path.exists(marker), "an input was run as shell code")
        # The odd words are taken as paths that do not exist: reported, exit 2, nothing executed.
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(self.read("output")["exit-code"], "2")
        p = self.run_action(PARLINT_PATHS="fixtures/examples", PARLINT_FAIL_ON="never")
        self.assertEqual(p.returncode, 0)


if __name__ == "__main__":
    unittest.main()
