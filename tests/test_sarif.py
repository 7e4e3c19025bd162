"""`--format sarif`: the official validator (Microsoft's SARIF multitool) reports no error or warning, the
fields GitHub code scanning requires are present, fingerprints survive unrelated edits, suppressed findings
are listed as suppressed, and every rule links to its documentation."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
MULTITOOL = os.environ.get(
    "SARIF_MULTITOOL",
    os.path.join(ROOT, "build", "test-tools", "node_modules", "@microsoft", "sarif-multitool-linux",
                 "Sarif.Multitool"))


def sarif(args, cwd=ROOT):
    p = subprocess.run([PARLINT, "check", "--format", "sarif", "--fail-on", "never", *args], cwd=cwd,
                       capture_output=True, text=True, timeout=120)
    return p, json.loads(p.stdout)


def validate(path):
    """The validator's findings as (level, rule id, text). It exits 0 whatever it finds, so read its log."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "validation.sarif")
        env = dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1")
        p = subprocess.run([MULTITOOL, "validate", "--output", log, path], capture_output=True, text=True,
                           timeout=300, env=env)
        if p.returncode != 0 or not os.path.exists(log):
            raise AssertionError(f"validator failed ({p.returncode}): {p.stdout}{p.stderr}")
        with open(log) as f:
            out = json.load(f)
    found = []
    for run in out["runs"]:
        for r in run.get("results", []):
            text = r["message"].get("text") or " ".join(r["message"].get("arguments", []))
            found.append((r.get("level", "warning"), r["ruleId"], text))
    return found


class OfficialValidator(unittest.TestCase):
    def test_whole_fixture_tree_is_valid_sarif(self):
        p, doc = sarif(["--statistics", "fixtures"])  # the counts go into the run's properties
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(len(doc["runs"][0]["results"]), 100)
        self.assertGreater(len(doc["runs"][0]["properties"]["statistics"]["rules"]), 30)
        # Fixes are part of what the validator checks: dozens of results carry one, each a replacement.
        fixes = [f for r in doc["runs"][0]["results"] for f in r.get("fixes", [])]
        self.assertGreater(len(fixes), 20)
        for f in fixes:
            self.assertRegex(f["description"]["text"], r"^(safe|unsafe) fix: ")
            self.assertTrue(all(c["replacements"] and "deletedRegion" in c["replacements"][0]
                                for c in f["artifactChanges"]))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "parlint.sarif")
            with open(path, "w") as f:
                json.dump(doc, f)
            self.assertEqual(validate(path), [])
            # The validator goes quiet on files it cannot read at all; prove it read ours by breaking one
            # property and expecting exactly that complaint.
            doc["runs"][0]["results"][0]["notASarifProperty"] = 1
            with open(path, "w") as f:
                json.dump(doc, f)
            complaints = validate(path)
            self.assertTrue(any(level == "error" and "notASarifProperty" in text for level, _, text in complaints),
                            complaints)

    def test_unreadable_input_is_a_tool_notification(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "missing.yaml")
            p = subprocess.run([PARLINT, "check", "--format", "sarif", bad], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 2)
            doc = json.loads(p.stdout)
            inv = doc["runs"][0]["invocations"][0]
            self.assertFalse(inv["executionSuccessful"])
            self.assertEqual(len(inv["toolExecutionNotifications"]), 1)
            path = os.path.join(tmp, "out.sarif")
            with open(path, "w") as f:
                f.write(p.stdout)
            self.assertEqual(validate(path), [])


class GitHubCodeScanningFields(unittest.TestCase):
    """What github/docs sarif-support.md marks required, checked field by field."""

    def test_required_fields(self):
        _, doc = sarif(["fixtures/rules", "fixtures/crossfile"])
        self.assertEqual(doc["version"], "2.1.0")
        self.assertTrue(doc["$schema"].startswith("https://"))
        run = doc["runs"][0]
        driver = run["tool"]["driver"]
        self.assertEqual(driver["name"], "parlint")
        self.assertTrue(driver["semanticVersion"])
        ids = [r["id"] for r in driver["rules"]]
        registry = json.loads(subprocess.run([PARLINT, "rules", "--format", "json"], capture_output=True,
                                             text=True, timeout=60).stdout)
        self.assertEqual(len(ids), len(registry))  # every rule of the registry, none twice
        self.assertEqual(len(set(ids)), len(ids))
        for rule in driver["rules"]:
            for field in ("shortDescription", "fullDescription"):
                self.assertTrue(0 < len(rule[field]["text"]) <= 1024, (rule["id"], field))
            self.assertTrue(rule["help"]["text"])
            self.assertTrue(len(rule["name"]) <= 255)
            self.assertIn(rule["defaultConfiguration"]["level"], ("error", "warning", "note"))
        self.assertEqual(run["columnKind"], "unicodeCodePoints")
        self.assertTrue(run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/"))
        for r in run["results"]:
            self.assertIn(r["ruleId"], ids)
            self.assertEqual(ids[r["ruleIndex"]], r["ruleId"])
            self.assertTrue(r["message"]["text"])
            self.assertGreaterEqual(len(r["locations"]), 1)
            loc = r["locations"][0]["physicalLocation"]
            uri = loc["artifactLocation"]["uri"]
            self.assertFalse(uri.startswith("/") or uri.startswith("./"), uri)
            self.assertTrue(os.path.exists(os.path.join(ROOT, uri)), uri)
            self.assertGreaterEqual(loc["region"]["startLine"], 1)
            self.assertRegex(r["partialFingerprints"]["parlint/v1"], r"^[0-9a-f]{16}$")
        self.assertTrue(any("relatedLocations" in r for r in run["results"]))

    def test_help_uri_points_at_a_heading_of_docs_rules_md(self):
        _, doc = sarif(["fixtures/examples"])
        with open(os.path.join(ROOT, "docs", "rules.md")) as f:
            headings = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
                        for h in re.findall(r"^## (.+)$", f.read(), re.M)}
        for rule in doc["runs"][0]["tool"]["driver"]["rules"]:
            base, anchor = rule["helpUri"].split("#")
            self.assertTrue(base.endswith("docs/rules.md"))
            self.assertIn(anchor, headings)


class Fingerprints(unittest.TestCase):
    SCRIPT = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\n"
              "torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 16 \\\n"
              "  --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096\n")

    def fingerprints(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "train.sbatch"), "w") as f:
                f.write(text)
            _, doc = sarif(["train.sbatch"], cwd=tmp)
        return {(r["ruleId"], r["partialFingerprints"]["parlint/v1"]): r["locations"][0]["physicalLocation"]
                ["region"]["startLine"] for r in doc["runs"][0]["results"]}

    def test_stable_when_unrelated_lines_move_and_new_when_the_line_changes(self):
        before = self.fingerprints(self.SCRIPT)
        self.assertTrue(any(code == "PL101" for code, _ in before), before)
        # Comments and a blank line only: a command there would make the #SBATCH lines late (PL108).
        moved_text = self.SCRIPT.replace("#!/bin/bash\n", "#!/bin/bash\n# a comment\n\n# and another\n")
        moved = self.fingerprints(moved_text)
        self.assertEqual(set(before), set(moved))
        self.assertTrue(all(moved[k] == before[k] + 3 for k in before))  # same findings, three lines lower
        changed = self.fingerprints(self.SCRIPT.replace("parallel-size 16", "parallel-size 32"))
        pl101 = {fp for code, fp in changed if code == "PL101"}
        self.assertTrue(pl101)
        self.assertFalse(pl101 & {fp for code, fp in before if code == "PL101"})


class Suppressed(unittest.TestCase):
    def test_suppressed_findings_carry_the_comment_and_reason(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "conf.yaml"), "w") as f:
                f.write("model:\n  tensor_model_parallel_size: 1\n"
                        "  sequence_parallel: true  # parlint: ignore[PL201] -- kept for the TP2 ablation\n")
            _, doc = sarif(["conf.yaml"], cwd=tmp)
            plain = subprocess.run([PARLINT, "check", "--format", "json", "conf.yaml"], cwd=tmp,
                                   capture_output=True, text=True, timeout=60)
        self.assertEqual(json.loads(plain.stdout)["diagnostics"], [])
        results = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "PL201"]
        self.assertEqual(len(results), 1)
        s = results[0]["suppressions"]
        self.assertEqual(s[0]["kind"], "inSource")
        self.assertEqual(s[0]["justification"], "kept for the TP2 ablation")
        self.assertEqual(s[0]["location"]["physicalLocation"]["region"]["startLine"], 3)


if __name__ == "__main__":
    unittest.main()
