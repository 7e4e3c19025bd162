#!/usr/bin/env python3
"""Compare parlint's errors and warnings on real repositories with the committed, hand-checked triage.

usage: scripts/corpus_triage.py --parlint build/parlint --corpus CORPUS_DIR [--bridge BRIDGE_CHECKOUT]
                                [--set NAME=DIR[:FOLDER,...]] [--triage tests/corpus/triage.tsv] [--draft OUT.tsv]

  CORPUS_DIR       the public corpus built by ../shared/corpus/build (holds MANIFEST.tsv)
  BRIDGE_CHECKOUT  a Megatron-Bridge work tree (or `git archive` of it): its
                   src/megatron/bridge/recipes and perf_recipes are linted too (the set `bridge`)
  --set            another set of files: DIR (a `git archive` of a repository at the commit the triage's
                   header names) and the folders in it to lint (all of DIR when none), e.g.
                   --set slime=/tmp/slime:scripts,examples
  --draft          writes every current error and warning as a triage row (verdict `?`) for review

tests/corpus/triage.tsv holds one decision per finding: set, path, line, code, severity, verdict
(`agree`: a Megatron engineer would agree; `false`: a false alarm still to fix), and a one-line reason.
It holds facts about the findings only, never the files' contents.

Exit 1 when a current error or warning is not in the triage (a new finding: triage it) or when a
finding triaged `false` is still reported; findings the triage agreed with that are gone are listed
(fixed upstream, or lost: look). The last line is the summary.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TRIAGE = os.path.join(os.path.dirname(HERE), "tests", "corpus", "triage.tsv")
FIELDS = ["set", "path", "line", "code", "severity", "verdict", "reason"]


def lint(parlint, cwd, paths):
    p = subprocess.run([parlint, "check", "--format", "json", "--fail-on", "never", *paths], cwd=cwd,
                       capture_output=True, text=True, timeout=900)
    try:
        return json.loads(p.stdout)["diagnostics"]
    except ValueError:
        sys.exit(f"no JSON from parlint in {cwd} (exit {p.returncode}): {p.stderr[-400:]}")


def findings(args):
    out = []
    manifest = list(csv.DictReader(open(os.path.join(args.corpus, "MANIFEST.tsv")), delimiter="\t"))
    paths = [os.path.join(r["repo"].replace("/", "__", 1), r["path"]) for r in manifest]
    paths = [p for p in paths if os.path.exists(os.path.join(args.corpus, p))]
    for d in lint(args.parlint, args.corpus, paths):
        out.append(("corpus", d))
    if args.bridge:
        folders = [f for f in ("src/megatron/bridge/recipes", "src/megatron/bridge/perf_recipes")
                   if os.path.isdir(os.path.join(args.bridge, f))]
        for d in lint(args.parlint, args.bridge, folders):
            out.append(("bridge", d))
    for spec in args.set:
        name, _, place = spec.partition("=")
        folder, _, inside = place.partition(":")
        targets = [f for f in inside.split(",") if f] or ["."]
        for d in lint(args.parlint, folder, targets):
            out.append((name, d))
    rows = {}
    for s, d in out:
        if d["severity"] not in ("error", "warning"):
            continue
        key = (s, d["path"], str(d["range"]["start"]["line"]), d["code"], d["severity"])
        rows[key] = d["message"]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--bridge")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--triage", default=DEFAULT_TRIAGE)
    ap.add_argument("--draft")
    args = ap.parse_args()
    args.parlint = os.path.abspath(args.parlint)
    current = findings(args)
    triage = {}
    with open(args.triage, encoding="utf-8") as f:
        for row in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"):
            triage[(row["set"], row["path"], row["line"], row["code"], row["severity"])] = row
    sets = {"corpus"} | ({"bridge"} if args.bridge else set()) | {spec.partition("=")[0] for spec in args.set}
    untriaged = sorted(k for k in current if k not in triage)
    still_false = sorted(k for k in current if k in triage and triage[k]["verdict"] == "false")
    gone = sorted(k for k, r in triage.items() if k[0] in sets and k not in current and r["verdict"] == "agree")
    fixed = sum(1 for k, r in triage.items() if k[0] in sets and k not in current and r["verdict"] == "false")
    for k in untriaged:
        print(f"not triaged: {k[0]}:{k[1]}:{k[2]} {k[4]}[{k[3]}] {current[k][:160]}")
    for k in still_false:
        print(f"false alarm still reported: {k[0]}:{k[1]}:{k[2]} {k[4]}[{k[3]}] ({triage[k]['reason']})")
    for k in gone:
        print(f"gone, a finding the triage agreed with (fixed upstream, or lost: look): {k[0]}:{k[1]}:{k[2]} "
              f"{k[4]}[{k[3]}]")
    if args.draft:
        with open(args.draft, "w", encoding="utf-8") as f:
            f.write("\t".join(FIELDS) + "\n")
            for k in sorted(current):
                old = triage.get(k)
                f.write("\t".join([*k, old["verdict"] if old else "?",
                                   old["reason"] if old else current[k][:200].replace("\t", " ")]) + "\n")
    agree = sum(1 for k in current if k in triage and triage[k]["verdict"] == "agree")
    print(f"triage: {len(current)} errors and warnings, {agree} agreed, {len(still_false)} false alarms, "
          f"{len(untriaged)} not triaged, {len(gone)} agreed ones gone, {fixed} triaged false alarms no longer reported")
    return 1 if untriaged or still_false else 0


if __name__ == "__main__":
    sys.exit(main())
