#!/usr/bin/env python3
"""docs/found-in-the-wild.md: the real mistakes parlint finds in public repositories, generated from the
hand-checked triage (tests/corpus/triage.tsv) and a run of parlint on the files it names.

usage: scripts/found_in_the_wild.py --parlint build/parlint --corpus CORPUS_DIR [--bridge DIR]
                                    [--set NAME=DIR[:FOLDER,...]] ... [--mirrors DIR] [--check]

  The inputs are corpus_triage.py's (every set the triage has agreed findings in must be given).
  --mirrors  the bare mirrors `fetch` makes (DIR/OWNER+NAME/...): each entry then says whether the
             repository's newest snapshot still holds the line
  --pointers a TSV of set, repo, commit (default tests/corpus/tuned.tsv and untuned.tsv)
  --check    write nothing; exit 1 when the page is not what this run would write (its upstream lines
             aside, which need --mirrors)

One entry per finding the triage agreed with (errors and warnings): the repository and commit, file:line
with a link, the job's layout in one line, the one line of the file that holds the value, parlint's finding
as it prints it now, the hand-checked reason, and what upstream has done since. Grouped by the framework
whose semantics parlint applied. It refuses to write an entry parlint no longer reports: the page is also a
regression test (tests/test_found_in_the_wild.py runs this with --check where the repositories are).
Nothing else of the files is copied.
"""
import argparse
import csv
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from corpus_triage import DEFAULT_TRIAGE, lint  # noqa: E402

PAGE = os.path.join(ROOT, "docs", "found-in-the-wild.md")
CORPUS_SETS = (os.path.join(ROOT, "tests", "corpus", "tuned.tsv"), os.path.join(ROOT, "tests", "corpus", "untuned.tsv"))
FRAMEWORKS = {"megatron-lm": "Megatron-LM", "megatron-bridge": "Megatron-Bridge", "nemo1": "NeMo 1",
              "nemo2": "NeMo 2", "megatron-deepspeed": "Megatron-DeepSpeed", "verl": "verl",
              "megatron-core": "Megatron-Core"}
# Shell mistakes found before any framework reads the job (a syntax error, a broken continuation).
NO_JOB = "Shell, before any framework"
ENTRY = re.compile(r"^<!-- wild: (?P<set>[^|]+)\|(?P<path>[^|]+)\|(?P<line>\d+)\|(?P<code>PL\d+) -->$", re.M)


def tsv(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))


def agreed_rows(triage):
    return [r for r in tsv(triage) if r["verdict"] == "agree" and r["severity"] in ("error", "warning")]


def pointers(corpus, sets_files):
    """set -> (repo, commit), and for the corpus each file's own (repo, commit, path in its repository)."""
    sets = {r["set"]: (r["repo"], r["commit"]) for f in sets_files for r in tsv(f)}
    files = {}
    for r in csv.DictReader(open(os.path.join(corpus, "MANIFEST.tsv"), encoding="utf-8"), delimiter="\t"):
        files[os.path.join(r["repo"].replace("/", "__", 1), r["path"])] = (r["repo"], r["commit"], r["path"])
    return sets, files


def targets_of(args):
    """(set, folder, targets) for every set given."""
    out = []
    manifest = csv.DictReader(open(os.path.join(args.corpus, "MANIFEST.tsv"), encoding="utf-8"), delimiter="\t")
    paths = [os.path.join(r["repo"].replace("/", "__", 1), r["path"]) for r in manifest]
    out.append(("corpus", args.corpus, [p for p in paths if os.path.exists(os.path.join(args.corpus, p))]))
    if args.bridge:
        out.append(("bridge", args.bridge, [f for f in ("src/megatron/bridge/recipes",
                                                         "src/megatron/bridge/perf_recipes")
                                             if os.path.isdir(os.path.join(args.bridge, f))]))
    for spec in args.set:
        name, _, place = spec.partition("=")
        folder, _, inside = place.partition(":")
        out.append((name, folder, [f for f in inside.split(",") if f] or ["."]))
    return out


def plan_jobs(parlint, cwd, paths):
    p = subprocess.run([parlint, "plan", "--format", "json", *paths], cwd=cwd, capture_output=True, text=True,
                       timeout=1800)
    try:
        return json.loads(p.stdout)["jobs"]
    except ValueError:
        sys.exit(f"no plan JSON from parlint in {cwd} (exit {p.returncode}): {p.stderr[-400:]}")


def value(job, key):
    v = job["values"].get(key)
    return v.get("value") if isinstance(v, dict) else None


def layout(job):
    """TP=8 PP=16 CP=1 on 8 GPUs: the sizes parlint resolved for the job (unknown ones left out)."""
    names = [("TP", "tensor_model_parallel_size"), ("PP", "pipeline_model_parallel_size"),
             ("VPP", "virtual_pipeline_model_parallel_size"), ("CP", "context_parallel_size"),
             ("EP", "expert_model_parallel_size"), ("ETP", "expert_tensor_parallel_size")]
    moe = (value(job, "num_moe_experts") or 0) > 0 or (value(job, "expert_model_parallel_size") or 1) > 1
    parts = []
    for label, key in names:
        v = value(job, key)
        if not isinstance(v, int) or isinstance(v, bool) or (label in ("EP", "ETP") and not moe):
            continue
        if label == "VPP" and v <= 1:
            continue
        parts.append(f"{label}={v}")
    for label, key in (("layers", "num_layers"), ("experts", "num_moe_experts"), ("GBS", "global_batch_size"),
                       ("MBS", "micro_batch_size"), ("seq", "seq_length")):
        v = value(job, key)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            parts.append(f"{label} {v}")
    d = job["derived"]
    if isinstance(d.get("world_size"), int):
        where = f"{d['world_size']} GPUs"
        if isinstance(d.get("nodes"), int) and isinstance(d.get("gpus_per_node"), int):
            where += f" ({d['nodes']} × {d['gpus_per_node']})"
        parts.append("on " + where)
    return " ".join(parts) if parts else "(sizes not resolved)"


def source_line(folder, path, line):
    try:
        with open(os.path.join(folder, path), encoding="utf-8", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    text = text.strip()
                    return text if len(text) <= 160 else text[:157] + "..."
    except OSError:
        pass
    return ""


def upstream(mirrors, repo, commit, path, text):
    """What the repository's newest snapshot did with the line, or '' without a mirror."""
    base = os.path.join(mirrors, repo.replace("/", "+", 1))
    gits = [os.path.join(base, d) for d in sorted(os.listdir(base))] if os.path.isdir(base) else []
    if not gits:
        return ""
    git = ["git", "--git-dir", gits[0]]
    head = subprocess.run([*git, "log", "-1", "--format=%H %cs"], capture_output=True, text=True).stdout.split()
    if len(head) != 2:
        return ""
    sha, date = head
    if sha.startswith(commit) or commit.startswith(sha):
        return f"not compared: the newest snapshot at hand ({sha[:12]}, {date}) is this commit"
    now = subprocess.run([*git, "show", f"{sha}:{path}"], capture_output=True, text=True, errors="replace")
    if now.returncode != 0:
        return f"the file is gone at {sha[:12]} ({date})"
    if text and any(l.strip() == text.removesuffix("...") or (text.endswith("...") and l.strip().startswith(text[:-3]))
                    for l in now.stdout.splitlines()):
        return f"the line is unchanged at {sha[:12]} ({date})"
    return f"the line has changed by {sha[:12]} ({date}): look there before reporting it"


def markdown_code(text):
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def generate(args):
    rows = agreed_rows(args.triage)
    sets, files = pointers(args.corpus, args.pointers or CORPUS_SETS)
    linted = {}
    jobs = collections.defaultdict(list)
    folders = {}
    for name, folder, targets in targets_of(args):
        folders[name] = folder
        if not targets:
            continue
        for d in lint(args.parlint, folder, targets):
            linted[(name, d["path"], d["range"]["start"]["line"], d["code"])] = d
        for j in plan_jobs(args.parlint, folder, targets):
            jobs[(name, j["path"])].append(j)
    problems = []
    entries = []
    for r in rows:
        key = (r["set"], r["path"], int(r["line"]), r["code"])
        if r["set"] not in folders:
            problems.append(f"set {r['set']} not given: cannot check {r['path']}:{r['line']} {r['code']}")
            continue
        d = linted.get(key)
        if not d or d["severity"] != r["severity"]:
            problems.append(f"no longer reported: {r['set']}:{r['path']}:{r['line']} {r['severity']}[{r['code']}]")
            continue
        # The job the finding belongs to: one of the file's own, else one in another file of the set that
        # reads it (a launch sourcing params.sh, a recipe calling the function that sets the value).
        def holds(j):
            return any(f["code"] == d["code"] and f["message"] == d["message"] for f in j["findings"])
        job = next((j for j in jobs[(r["set"], r["path"])] if holds(j)), None)
        if not job:
            job = next((j for (s, _), js in jobs.items() if s == r["set"] for j in js if holds(j)), None)
        if r["set"] == "corpus":
            repo, commit, path = files[r["path"]]
        else:
            repo, commit = sets[r["set"]]
            path = r["path"]
        text = "" if r["code"] == "PL701" else source_line(folders[r["set"]], r["path"], int(r["line"]))
        entries.append({
            "key": key, "repo": repo, "commit": commit, "path": path, "line": int(r["line"]), "finding": d,
            "framework": FRAMEWORKS.get(job["framework"], job["framework"]) if job else NO_JOB,
            "job": job, "text": text, "reason": r["reason"],
            "upstream": upstream(args.mirrors, repo, commit, path, text) if args.mirrors else None})
    return entries, problems


def render(entries, old_upstream):
    by_framework = collections.defaultdict(list)
    for e in entries:
        by_framework[e["framework"]].append(e)
    order = sorted(by_framework, key=lambda f: (-len(by_framework[f]), f))
    errors = sum(1 for e in entries if e["finding"]["severity"] == "error")
    repos = len({e["repo"] for e in entries})
    out = ["# Found in the wild", "",
           "<!-- Generated by scripts/found_in_the_wild.py from tests/corpus/triage.tsv; do not edit. -->", "",
           f"{len(entries)} mistakes parlint reports in {repos} public repositories, each read by hand and agreed "
           f"with: **{errors} errors** (the framework refuses to start, crashes, or ignores a setting the job "
           f"depends on) and **{len(entries) - errors} warnings** (it runs, but not as written, or wastes "
           "GPUs). They come from the public corpus, the repositories parlint was tuned on and the sample "
           "chosen to judge it and never tuned on ([tests/corpus](../tests/corpus)); every one is still "
           "reported by parlint today, or this page could not be generated.", "",
           "| framework | errors | warnings |", "|---|---:|---:|"]
    for f in order:
        n = sum(1 for e in by_framework[f] if e["finding"]["severity"] == "error")
        out.append(f"| [{f}](#{anchor(f)}) | {n} | {len(by_framework[f]) - n} |")
    rules = collections.Counter((e["finding"]["code"], e["finding"]["name"]) for e in entries)
    out += ["", "By rule: " + ", ".join(f"{c} {n} ({k})" for (c, k), n in sorted(rules.items())) + ".", ""]
    for f in order:
        out += [f"## {f}", ""]
        for e in sorted(by_framework[f], key=lambda e: (e["finding"]["severity"] != "error", e["repo"],
                                                        e["path"], e["line"])):
            d = e["finding"]
            url = f"https://github.com/{e['repo']}/blob/{e['commit']}/{e['path']}#L{e['line']}"
            out.append(f"### {e['repo']}: `{os.path.basename(e['path'])}:{e['line']}` {d['severity']} {d['code']}")
            out.append("")
            out.append(f"- where: [{e['path']}:{e['line']}]({url}) at {e['commit'][:12]}")
            if e["job"]:
                out.append(f"- job: {e['job']['description']}; {layout(e['job'])}")
            if e["text"]:
                out.append(f"- the line: {markdown_code(e['text'])}")
            out.append(f"- parlint: {d['severity']}[{d['code']}] {d['message']}")
            out.append(f"- checked by hand: {e['reason']}")
            up = e["upstream"] if e["upstream"] is not None else old_upstream.get(e["key"], "")
            if up:
                out.append(f"- upstream: {up}")
            out.append(f"<!-- wild: {e['key'][0]}|{e['key'][1]}|{e['key'][2]}|{e['key'][3]} -->")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def anchor(title):
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def old_upstream_lines(text):
    """(set, path, line, code) -> the upstream line an existing page holds."""
    out = {}
    last = None
    for line in text.splitlines():
        if line.startswith("- upstream: "):
            last = line[len("- upstream: "):]
        m = ENTRY.match(line)
        if m:
            if last:
                out[(m["set"], m["path"], int(m["line"]), m["code"])] = last
            last = None
        elif line.startswith("### "):
            last = None
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--bridge")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--triage", default=DEFAULT_TRIAGE)
    ap.add_argument("--mirrors")
    ap.add_argument("--pointers", action="append", help="set, repo and commit of the sets (default: "
                    "tests/corpus/tuned.tsv and untuned.tsv)")
    ap.add_argument("--out", default=PAGE)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    args.parlint = os.path.abspath(args.parlint)
    entries, problems = generate(args)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"found_in_the_wild: {len(problems)} agreed findings cannot be shown; nothing written",
              file=sys.stderr)
        return 1
    old = open(args.out, encoding="utf-8").read() if os.path.exists(args.out) else ""
    page = render(entries, old_upstream_lines(old))
    if args.check:
        if page != old:
            print(f"found_in_the_wild: {args.out} is not what parlint reports now: run this script without "
                  "--check", file=sys.stderr)
            return 1
        print(f"found_in_the_wild: {len(entries)} entries, all still reported")
        return 0
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(page)
    print(f"found_in_the_wild: wrote {len(entries)} entries to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
