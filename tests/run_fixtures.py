#!/usr/bin/env python3
"""Fixture snapshot runner.

Every input under fixtures/ is linted with `--format gcc` and compared with the snapshot next to it
(`<input>.expected`). Fixtures under fixtures/rules/<CODE>/ run with that rule alone selected (so a new
rule never changes another rule's snapshots), except the suppression rules PL901/PL902, which speak about
the findings of every rule; those named fail_* must report CODE and pass_* must not; every rule needs at
least two of each. The Example and Fix blocks of every rule's
documentation are linted as well (Example must report the rule, Fix must not).

Fixes: every input is also run through `--fix --unsafe-fixes` on stdin. When that changes the text, the
fixed text is the snapshot `<input>.fixed` (and must not exist otherwise); fixing the fixed text again
changes nothing; the fixed text parses in its own language (bash -n, Python's ast, a YAML loader). A rule
whose documentation promises a fix has at least one `.fixed` snapshot; a rule that promises none has none.

An input's first lines may hold `# parlint-args: ...` with extra command-line options.
Run with --update to rewrite the snapshots on purpose.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from own_language import parse_error  # noqa: E402


def fixture_inputs():
    for base, dirs, files in os.walk(os.path.join(ROOT, "fixtures")):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".expected", ".fixed")) or name == "README.md":
                continue
            yield os.path.relpath(os.path.join(base, name), ROOT)


def extra_args(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        for line in f.readlines()[:3]:
            m = re.match(r"#\s*parlint-args:(.*)", line)
            if m:
                return shlex.split(m.group(1))
    return []


def rule_selection(path):
    """`--select CODE` for a fixture of one rule (fixtures/rules/<CODE>/...)."""
    parts = path.split(os.sep)
    if len(parts) == 4 and parts[1] == "rules" and parts[2] not in ("PL901", "PL902"):
        return ["--select", parts[2]]
    return []


def run(parlint, args, stdin=None):
    return subprocess.run([parlint, "check", "--format", "gcc", "--fail-on", "never", "--color", "never", *args],
                          cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60)


def fix(parlint, args, path, text):
    """The text after --fix --unsafe-fixes (stdin in, fixed text out), and the run's stderr."""
    proc = subprocess.run([parlint, "check", "--fix", "--unsafe-fixes", "--fail-on", "never", "--color", "never",
                           *args, "-", "--stdin-filename", path], cwd=ROOT, input=text, capture_output=True,
                          text=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def check_fix(opts, path, args, failures, fixed_rules):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="surrogateescape") as f:
        original = f.read()
    rc, fixed, err = fix(opts.parlint, args, path, original)
    if rc not in (0, 1):
        failures.append(f"{path}: --fix exit code {rc}: {err.strip()}")
        return
    snapshot = os.path.join(ROOT, path + ".fixed")
    if fixed != original:
        parts = path.split(os.sep)
        if len(parts) == 4 and parts[1] == "rules":
            fixed_rules.add(parts[2])
        if opts.update:
            with open(snapshot, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(fixed)
        elif not os.path.exists(snapshot):
            failures.append(f"{path}: --fix changes it but there is no snapshot {path}.fixed (run with --update)")
        else:
            with open(snapshot, encoding="utf-8", errors="surrogateescape") as f:
                want = f.read()
            if want != fixed:
                failures.append(f"{path}: fixed text differs from {path}.fixed\n--- expected\n{want}--- actual\n{fixed}")
        rc2, again, _ = fix(opts.parlint, args, path, fixed)
        if again != fixed:
            failures.append(f"{path}: --fix on the fixed text changes it again:\n{again}")
        why = parse_error(path, fixed)
        if why:
            failures.append(f"{path}: the fixed text does not parse: {why}")
    elif os.path.exists(snapshot):
        if opts.update:
            os.remove(snapshot)
        else:
            failures.append(f"{path}: --fix changes nothing but {path}.fixed exists")


def doc_blocks(docs, heading):
    """The (language, text) code blocks under a heading of a rule's documentation."""
    section = re.search(r"^## " + heading + r"\n(.*?)(?=^## |\Z)", docs, re.S | re.M)
    if not section:
        return []
    return re.findall(r"```(yaml|bash)\n(.*?)```", section.group(1), re.S)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--update", action="store_true", help="rewrite the .expected snapshots")
    opts = ap.parse_args()
    failures = []
    counts = {}
    fixed_rules = set()

    for path in fixture_inputs():
        proc = run(opts.parlint, [*extra_args(path), *rule_selection(path), path])
        if proc.returncode not in (0, 1):
            failures.append(f"{path}: exit code {proc.returncode}: {proc.stderr.strip()}")
            continue
        expected_path = os.path.join(ROOT, path + ".expected")
        if opts.update:
            with open(expected_path, "w", encoding="utf-8") as f:
                f.write(proc.stdout)
        elif not os.path.exists(expected_path):
            failures.append(f"{path}: no snapshot {path}.expected (run with --update)")
        else:
            with open(expected_path, encoding="utf-8") as f:
                want = f.read()
            if want != proc.stdout:
                failures.append(f"{path}: output differs from the snapshot\n--- expected\n{want}--- actual\n{proc.stdout}")
        check_fix(opts, path, [*extra_args(path), *rule_selection(path)], failures, fixed_rules)
        parts = path.split(os.sep)
        if len(parts) == 4 and parts[1] == "rules":
            code, name = parts[2], parts[3]
            kind = "fail" if name.startswith("fail_") else "pass" if name.startswith("pass_") else None
            if kind is None:
                failures.append(f"{path}: rule fixtures are named fail_* or pass_*")
                continue
            counts.setdefault(code, {"fail": 0, "pass": 0})[kind] += 1
            reported = f"[{code}]" in proc.stdout
            if kind == "fail" and not reported:
                failures.append(f"{path}: expected {code}, got:\n{proc.stdout}")
            if kind == "pass" and reported:
                failures.append(f"{path}: must not report {code}, got:\n{proc.stdout}")

    rules = json.loads(subprocess.run([opts.parlint, "rules", "--format", "json"], capture_output=True, text=True,
                                      check=True).stdout)
    for rule in rules:
        code = rule["code"]
        c = counts.get(code, {"fail": 0, "pass": 0})
        if c["fail"] < 2 or c["pass"] < 2:
            failures.append(f"{code}: needs at least 2 fail_ and 2 pass_ fixtures (has {c['fail']} and {c['pass']})")
        if rule["fix"] != "none" and code not in fixed_rules:
            failures.append(f"{code}: its documentation promises a {rule['fix']} fix but no fixture has a .fixed snapshot")
        if rule["fix"] == "none" and code in fixed_rules:
            failures.append(f"{code}: a fixture is fixed but the rule declares no fix (RuleInfo::fix)")
        if rule["fix"] != "none" and "--fix" not in rule["docs"]:
            failures.append(f"{code}: its documentation does not say what `parlint check --fix` does")
        examples, fixes = doc_blocks(rule["docs"], "Example"), doc_blocks(rule["docs"], "Fix")
        if not examples or not fixes:
            failures.append(f"{code}: documentation needs a yaml or bash Example and Fix block")
        suffix = {"yaml": ".yaml", "bash": ".sh"}
        for lang, block in examples:
            out = run(opts.parlint, ["-", "--stdin-filename", "example" + suffix[lang]], stdin=block).stdout
            if f"[{code}]" not in out:
                failures.append(f"{code}: documentation Example does not report {code}:\n{block}")
        for lang, block in fixes:
            out = run(opts.parlint, ["-", "--stdin-filename", "fix" + suffix[lang]], stdin=block).stdout
            if f"[{code}]" in out:
                failures.append(f"{code}: documentation Fix still reports {code}:\n{out}")

    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    print(f"{sum(1 for _ in fixture_inputs())} fixtures, {len(rules)} rules, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
