"""Whole-process comparisons in one run (medians over repeated runs, ratios, peak memory), as `make bench`
prints them, first on the generated corpus (--corpus), then on real files (--real-corpus):
  - parlint check on one typical sbatch script (start-up included)
  - parlint check on the generated corpus with --jobs 1 and --jobs 2
  - the parse-only floor (tree-sitter and yaml-cpp alone) on the same files
  - shellcheck on the same shell files, yamllint on the same YAML files (the tools these hooks already run)
  - the same comparisons on the real-world corpus (launch scripts and configs of public repositories, built
    by ../shared/corpus/build), read where it is: those files belong to their authors and are never copied
    into the repository. Generated files flatter parlint (regular, code-dense, no odd constructs), so
    both are printed.

    python3 tests/bench/compare.py --parlint build/parlint --floor build/parlint_parse_floor \
        [--corpus DIR] [--real-corpus DIR]
"""
import argparse
import csv
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def peak_rss_mib(cmd, cwd=None):
    """Peak RSS of `cmd` as GNU time reports it. Not from wait4 in this process: a child's ru_maxrss keeps
    the high-water mark of the Python process it was forked from, which would hide anything smaller."""
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name, *cmd], cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return int(out.read().split()[-1]) / 1024


def measure(cmd, runs, cwd=None):
    """Median wall seconds over `runs` runs of `cmd`, and its peak RSS in MiB."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        code = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        times.append(time.perf_counter() - start)
        if code < 0 or code > 1 and os.path.basename(cmd[0]) not in ("shellcheck", "yamllint"):
            sys.exit(f"{' '.join(cmd[:3])} ... failed with {code}")
    return statistics.median(times), peak_rss_mib(cmd, cwd)


def measure_interleaved(cmds, runs, cwd=None):
    """Median wall seconds of each command, the commands run in turn `runs` times: on a shared VM the
    speed drifts by tens of percent within minutes, and alternating keeps the drift out of the ratios."""
    return measure_rounds(cmds, runs, cwd)[0]


def measure_rounds(cmds, runs, cwd=None):
    """Median wall seconds and median CPU seconds (user + sys, the child's own) of each command, the commands
    run in turn `runs` times. CPU time leaves out the time a process waits for a core that other work holds,
    so on a busy machine it is the steadier of the two."""
    walls, cpus = [[] for _ in cmds], [[] for _ in cmds]
    for _ in range(runs):
        for k, cmd in enumerate(cmds):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            walls[k].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[k].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return [statistics.median(t) for t in walls], [statistics.median(t) for t in cpus]


def instructions(cmd):
    """Instructions executed by `cmd` (callgrind): unlike wall time, the same on a busy machine."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
    return None


def files_with(corpus, exts):
    out = []
    for base, _, names in os.walk(corpus):
        out += [os.path.join(base, n) for n in names if os.path.splitext(n)[1] in exts]
    return sorted(out)


def size_of(paths):
    return sum(os.path.getsize(p) for p in paths)


def generated(a, parlint):
    """The generated corpus (tests/bench/gen_corpus.py)."""
    shell = files_with(a.corpus, {".sbatch", ".sh"})
    yaml = files_with(a.corpus, {".yaml"})
    everything = files_with(a.corpus, {".sbatch", ".sh", ".yaml", ".py"})
    total = size_of(everything)
    print(f"\nGENERATED corpus ({a.corpus}, tests/bench/gen_corpus.py): {len(everything)} files, "
          f"{total / 1e6:.1f} MB ({len(shell)} sbatch, {len(yaml)} YAML, {len(everything) - len(shell) - len(yaml)} "
          f"Python)")

    # One typical script: the median-sized sbatch file, linted from its own folder.
    typical = sorted(shell, key=os.path.getsize)[len(shell) // 2]
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "train.sbatch")
        shutil.copy(typical, one)
        cwd = os.getcwd()
        os.chdir(tmp)
        t1, tv = measure_interleaved([[parlint, "check", "train.sbatch"], [parlint, "--version"]], 41)
        os.chdir(cwd)
        m1 = peak_rss_mib([parlint, "check", "train.sbatch"], cwd=tmp)
        print(f"\ngenerated: one typical sbatch script ({os.path.getsize(one) / 1024:.1f} KB), whole process, "
              f"median of 41:")
        print(f"  parlint check        {t1 * 1000:7.1f} ms   peak {m1:5.1f} MiB   (parlint --version: {tv * 1000:.1f} ms)")
        if shutil.which("shellcheck"):
            ts, ms = measure(["shellcheck", "-s", "bash", one], 11)
            print(f"  shellcheck           {ts * 1000:7.1f} ms   peak {ms:5.1f} MiB   parlint is {ts / t1:.1f}x faster")

    print(f"\ngenerated: {len(everything)}-file corpus, whole process, median of {a.runs} (the three run in turn):")
    floor_cmd = [a.floor, a.corpus]
    j1_cmd = [parlint, "check", "--jobs", "1", "-q", a.corpus]
    j2_cmd = [parlint, "check", "--jobs", "2", "-q", a.corpus]
    floor, j1, j2 = measure_interleaved([floor_cmd, j1_cmd, j2_cmd], a.runs)
    mfloor, m1, m2 = peak_rss_mib(floor_cmd), peak_rss_mib(j1_cmd), peak_rss_mib(j2_cmd)
    mb = total / 1e6
    print(f"  parse-only floor     {floor:7.2f} s  {mb / floor:6.1f} MB/s  peak {mfloor:5.1f} MiB")
    print(f"  parlint --jobs 1     {j1:7.2f} s  {mb / j1:6.1f} MB/s  peak {m1:5.1f} MiB  "
          f"{floor / j1:.2f}x the floor's throughput")
    print(f"  parlint --jobs 2     {j2:7.2f} s  {mb / j2:6.1f} MB/s  peak {m2:5.1f} MiB  {j1 / j2:.2f}x --jobs 1")

    if shutil.which("valgrind"):
        tenth = everything[: len(everything) // 10]
        fi = instructions([a.floor, *tenth])
        pi = instructions([parlint, "check", "--jobs", "1", "-q", *tenth])
        if fi and pi:
            print(f"  instructions ({len(tenth)} files, callgrind): floor {fi / 1e6:,.0f}M, parlint {pi / 1e6:,.0f}M, "
                  f"{fi / pi:.2f}x the floor's throughput")

    # Peak memory grows with the largest file, not with the number of files: each thread holds one file's
    # syntax tree and facts at a time, and only the findings accumulate.
    print("\ngenerated: peak memory, parlint --jobs 2 (each thread holds one file at a time):")
    tenth = everything[: len(everything) // 10]
    print(f"  {len(tenth):5d} files           peak {peak_rss_mib([parlint, 'check', '-q', *tenth]):5.1f} MiB")
    print(f"  {len(everything):5d} files           peak {peak_rss_mib([parlint, 'check', '-q', a.corpus]):5.1f} MiB")
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "huge.sbatch")
        with open(big, "w") as f:
            f.write(subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "gen_script.py"),
                                    "40000"], capture_output=True, text=True, check=True).stdout)
        mb_big = os.path.getsize(big) / 1e6
        print(f"  one {mb_big:.1f} MB script    peak {peak_rss_mib([parlint, 'check', '-q', big]):5.1f} MiB")
        print(f"  it + {len(everything)} files    peak "
              f"{peak_rss_mib([parlint, 'check', '-q', big, a.corpus]):5.1f} MiB")

    print("\ngenerated: the same files with the tools these hooks already run (one process over all files; "
          "shellcheck and yamllint once, parlint the median of --runs):")
    if shutil.which("shellcheck"):
        ts, ms = measure(["shellcheck", "-s", "bash", *shell], 1)
        tp, mp = measure([parlint, "check", "--jobs", "1", "-q", *shell], a.runs)
        kb = size_of(shell) / 1024
        print(f"  shellcheck           {ts:7.2f} s  {kb / ts:8.0f} KB/s  peak {ms:5.1f} MiB")
        print(f"  parlint --jobs 1     {tp:7.2f} s  {kb / tp:8.0f} KB/s  peak {mp:5.1f} MiB  {ts / tp:.0f}x shellcheck")
    if shutil.which("yamllint"):
        ty, my = measure(["yamllint", "-d", "relaxed", *yaml], 1)
        tp, mp = measure([parlint, "check", "--jobs", "1", "-q", *yaml], a.runs)
        kb = size_of(yaml) / 1024
        print(f"  yamllint             {ty:7.2f} s  {kb / ty:8.0f} KB/s  peak {my:5.1f} MiB")
        print(f"  parlint --jobs 1     {tp:7.2f} s  {kb / tp:8.0f} KB/s  peak {mp:5.1f} MiB  {ty / tp:.0f}x yamllint")


DEFAULT_REAL = os.path.expanduser("~/.cache/parlint-corpus-public")
SHELL_EXTS = {".sh", ".sbatch", ".slurm", ".slrm", ".sub"}
YAML_EXTS = {".yaml", ".yml"}


def real_files(corpus):
    """(shell, yaml, python) paths relative to `corpus`: by the kind column of its MANIFEST.tsv (what
    ../shared/corpus/build writes beside the files), or by extension when there is none."""
    manifest = os.path.join(corpus, "MANIFEST.tsv")
    shell, yaml, python = [], [], []
    if os.path.exists(manifest):
        with open(manifest, newline="") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                path = os.path.join(r["repo"].replace("/", "__", 1), r["path"])
                if os.path.isfile(os.path.join(corpus, path)):
                    {"shell": shell, "sbatch": shell, "yaml": yaml, "python": python}.get(r["kind"], []).append(path)
    else:
        for path in files_with(corpus, SHELL_EXTS | YAML_EXTS | {".py"}):
            ext = os.path.splitext(path)[1]
            rel = os.path.relpath(path, corpus)
            (shell if ext in SHELL_EXTS else yaml if ext in YAML_EXTS else python).append(rel)
    return sorted(shell), sorted(yaml), sorted(python)


def real(a, parlint, floor):
    """The real-world corpus, linted where it is (cwd = the corpus, paths relative to it)."""
    corpus = os.path.abspath(os.path.expanduser(a.real_corpus))
    if not os.path.isdir(corpus):
        print(f"\nREAL files: skipped, no corpus at {corpus}; build it with ../shared/corpus/build MIRROR_DIR "
              f"{corpus} (MIRROR_DIR: bare git mirrors as OWNER+NAME/repo, such as /work/.mirror)")
        return
    shell, yaml, python = real_files(corpus)
    everything = shell + yaml + python
    if not everything:
        print(f"\nREAL files: skipped, no shell, YAML or Python files in {corpus}")
        return

    def size(paths):
        return sum(os.path.getsize(os.path.join(corpus, p)) for p in paths)

    print(f"\nREAL files ({corpus}, read where they are): {len(everything)} files, {size(everything) / 1e6:.1f} MB "
          f"({len(shell)} shell or sbatch, {len(yaml)} YAML, {len(python)} Python)")

    # One typical real script: the median-sized shell file, linted from its own folder.
    if shell:
        typical = sorted(shell, key=lambda p: os.path.getsize(os.path.join(corpus, p)))[len(shell) // 2]
        folder, name = os.path.split(os.path.join(corpus, typical))
        cmds = [[parlint, "check", name]]
        if shutil.which("shellcheck"):
            cmds.append(["shellcheck", "-s", "bash", name])
        t = measure_interleaved(cmds, 21, cwd=folder)
        line = (f"  real: one typical shell script ({os.path.getsize(os.path.join(folder, name)) / 1024:.1f} KB), "
                f"whole process, median of 21: parlint check {t[0] * 1000:.1f} ms")
        if len(t) > 1:
            line += f", shellcheck {t[1] * 1000:.1f} ms: parlint {t[1] / t[0]:.0f}x faster"
        print(line)

    # One row per set of files: the floor, parlint with one and two threads and the set's own tool, all
    # run in turn real_runs times in one loop, so that the VM's drift stays out of every ratio.
    sets = [("shell", shell, "shellcheck", ["shellcheck", "-s", "bash"]),
            ("YAML", yaml, "yamllint", ["yamllint", "-d", "relaxed"]),
            ("Python", python, None, None),
            ("all", everything, None, None)]
    sets = [s for s in sets if s[1]]
    cmds, slots = [], []
    for _, paths, tool, tool_cmd in sets:
        row = {"floor": len(cmds)}
        cmds.append([floor, *paths])
        for jobs in (1, 2):
            row[jobs] = len(cmds)
            cmds.append([parlint, "check", "--jobs", str(jobs), "-q", *paths])
        if tool and shutil.which(tool_cmd[0]):
            row["tool"] = len(cmds)
            cmds.append([*tool_cmd, *paths])
        slots.append(row)
    wall, cpu = measure_rounds(cmds, a.real_runs, cwd=corpus)
    print(f"  real: whole process, medians of {a.real_runs} rounds (each command below once a round, in turn): "
          f"wall seconds, CPU seconds (user + sys) in brackets;\n"
          f"  floor/-j1 is parlint's throughput against parsing alone (1.00 = as fast as parsing alone)")
    print(f"  {'':6} {'files':>5} {'MB':>5}  {'floor':13} {'parlint -j1':13} {'-j2':5}  {'floor/-j1':14} "
          f"{'-j1/-j2':7}  the files' own tool, one process")
    for (label, paths, tool, tool_cmd), row in zip(sets, slots):
        f, j1, j2 = row["floor"], row[1], row[2]
        line = (f"  {label:6} {len(paths):5d} {size(paths) / 1e6:5.2f}  {wall[f]:5.2f} ({cpu[f]:5.2f}) "
                f"{wall[j1]:5.2f} ({cpu[j1]:5.2f}) {wall[j2]:5.2f}  "
                f"{wall[f] / wall[j1]:5.2f}x ({cpu[f] / cpu[j1]:4.2f}x) {wall[j1] / wall[j2]:6.2f}x")
        if "tool" in row:
            k = row["tool"]
            line += (f"  {' '.join(tool_cmd)} {wall[k]:.2f} ({cpu[k]:.2f}): parlint -j1 {wall[k] / wall[j1]:.1f}x "
                     f"({cpu[k] / cpu[j1]:.1f}x) faster")
        elif tool:
            line += f"  ({tool} not installed)"
        print(line)
    print("  (shellcheck and yamllint get all of a row's files in one process, as parlint -j1 does; pre-commit "
          "would split them into one batch per core, run side by side)")
    print(f"  real: peak memory, parlint --jobs 2 on all {len(everything)} files: "
          f"{peak_rss_mib([parlint, 'check', '-q', *everything], cwd=corpus):.1f} MiB")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--corpus", help="the generated corpus (tests/bench/gen_corpus.py); left out: real files only")
    ap.add_argument("--real-corpus", default=DEFAULT_REAL,
                    help="the real-world corpus ../shared/corpus/build writes, read where it is "
                         "(default: %(default)s); '' skips it")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--real-runs", type=int, default=5,
                    help="rounds on the real files (each round runs shellcheck and yamllint too)")
    a = ap.parse_args()
    parlint = os.path.abspath(a.parlint)
    floor = os.path.abspath(a.floor)
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f} before the bench"
          f"{' (other work runs: wall times include waiting for a core)' if load >= 0.5 else ''}; "
          f"{subprocess.run([parlint, '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
    if a.corpus:
        generated(a, parlint)
    if a.real_corpus:
        real(a, parlint, floor)


if __name__ == "__main__":
    main()
