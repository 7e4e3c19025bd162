"""Whole-process comparisons in one run (medians over repeated runs, ratios, peak memory), as `make bench`
prints them:
  - parlint check on one typical sbatch script (start-up included)
  - parlint check on the generated corpus with --jobs 1 and --jobs 2
  - the parse-only floor (tree-sitter and yaml-cpp alone) on the same files
  - shellcheck on the same shell files, yamllint on the same YAML files (the tools these hooks already run)

    python3 tests/bench/compare.py --parlint build/parlint --floor build/parlint_parse_floor --corpus DIR
"""
import argparse
import os
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


def measure_interleaved(cmds, runs):
    """Median wall seconds of each command, the commands run in turn `runs` times: on a shared VM the
    speed drifts by tens of percent within minutes, and alternating keeps the drift out of the ratios."""
    times = [[] for _ in cmds]
    for _ in range(runs):
        for k, cmd in enumerate(cmds):
            start = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[k].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    parlint = os.path.abspath(a.parlint)
    shell = files_with(a.corpus, {".sbatch", ".sh"})
    yaml = files_with(a.corpus, {".yaml"})
    everything = files_with(a.corpus, {".sbatch", ".sh", ".yaml", ".py"})
    total = size_of(everything)
    print(f"corpus: {len(everything)} files, {total / 1e6:.1f} MB "
          f"({len(shell)} sbatch, {len(yaml)} YAML, {len(everything) - len(shell) - len(yaml)} Python); "
          f"{os.cpu_count()} cores")

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
        print(f"\none typical sbatch script ({os.path.getsize(one) / 1024:.1f} KB), whole process, median of 41:")
        print(f"  parlint check        {t1 * 1000:7.1f} ms   peak {m1:5.1f} MiB   (parlint --version: {tv * 1000:.1f} ms)")
        if shutil.which("shellcheck"):
            ts, ms = measure(["shellcheck", "-s", "bash", one], 11)
            print(f"  shellcheck           {ts * 1000:7.1f} ms   peak {ms:5.1f} MiB   parlint is {ts / t1:.1f}x faster")

    print(f"\n{len(everything)}-file corpus, whole process, median of {a.runs} (the three run in turn):")
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
    print("\npeak memory, parlint --jobs 2 (each thread holds one file at a time):")
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

    print("\nthe same files with the tools these hooks already run (one process over all files):")
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


if __name__ == "__main__":
    main()
