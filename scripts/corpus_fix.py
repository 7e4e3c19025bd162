#!/usr/bin/env python3
"""--fix on a copy of the real-world corpus: every changed file must still parse in its own language.

Copies CORPUS to a temporary folder, runs `parlint check --fix` there (with --unsafe-fixes when asked),
then checks each file the fixes changed with its own parser (bash -n, Python's ast, PyYAML), runs --fix
again (it must change nothing), and lists the fixes per rule and applicability. The corpus itself is
never written. Not part of make test: the corpus is built from mirrors by ../shared/corpus/build.

    scripts/corpus_fix.py --parlint build/parlint --corpus /work/corpus [--unsafe-fixes] [--diff FILE]
"""
import argparse
import collections
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import own_language  # noqa: E402


def parse_error(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return own_language.parse_error(path, f.read())


def changed_files(a, b):
    out = []
    for base, _, files in os.walk(b):
        for name in files:
            p = os.path.join(base, name)
            rel = os.path.relpath(p, b)
            q = os.path.join(a, rel)
            if os.path.exists(q) and not filecmp.cmp(p, q, shallow=False):
                out.append(rel)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--unsafe-fixes", action="store_true")
    ap.add_argument("--diff", help="write the fixes as a unified diff to this file")
    opts = ap.parse_args()
    parlint = os.path.abspath(opts.parlint)
    extra = ["--unsafe-fixes"] if opts.unsafe_fixes else []
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "corpus")
        shutil.copytree(opts.corpus, copy, symlinks=True)
        if opts.diff:
            d = subprocess.run([parlint, "check", "--diff", *extra, "."], cwd=copy, capture_output=True, text=True)
            with open(opts.diff, "w") as f:
                f.write(d.stdout)
        r = subprocess.run([parlint, "check", "--fix", "--show-fixes", "--fail-on", "never", *extra, "."], cwd=copy,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stderr, file=sys.stderr)
        fixed = re.findall(r"^  (\S+?):\d+:\d+: (PL\d+) \((safe|unsafe)\): ", r.stdout, re.M)
        files = changed_files(opts.corpus, copy)
        bad = [(f, why) for f in files if (why := parse_error(os.path.join(copy, f)))]
        again = subprocess.run([parlint, "check", "--diff", *extra, "."], cwd=copy, capture_output=True, text=True)
        for f, why in bad:
            print(f"DOES NOT PARSE: {f}: {why}")
        if again.stdout:
            print("a second --fix would change:\n" + again.stdout)
        per_rule = collections.Counter((code, kind) for _, code, kind in fixed)
        print("fixes: " + ", ".join(f"{code} {kind} {n}" for (code, kind), n in sorted(per_rule.items())))
        print(f"corpus --fix{' --unsafe-fixes' if extra else ''}: {len(fixed)} findings fixed in {len(files)} files, "
              f"{len(bad)} files do not parse, second run {'changes nothing' if not again.stdout else 'CHANGES FILES'}")
        return 1 if bad or again.stdout or r.returncode not in (0, 1) else 0


if __name__ == "__main__":
    sys.exit(main())
