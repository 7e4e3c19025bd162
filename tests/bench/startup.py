"""Start-up cost of one `parlint check` on one file, next to the process floor (issue 44):

    python3 tests/bench/startup.py --parlint build/parlint [--runs 31] [--against OTHER_PARLINT]

Times /bin/true, `parlint --version` and `parlint check train_gpt.sbatch` (tests/bench/startup/: a 2 KB
SLURM script that sources the site environment beside it, copied to a temporary folder and linted from
there, as a user lints the script they just edited). Each command is started with posix_spawn and reaped
with waitpid, in turn with the others, `runs` times; the figure is the median wall time. Alternating keeps
a shared machine's drift out of the ratios, and posix_spawn keeps Python's fork of its own memory out of
the figures (subprocess.run adds about a millisecond to each). --against times another build in the same
alternation (before and after a change: the machine's drift between two runs is larger than most changes).
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ("train_gpt.sbatch", "cluster_env.sh")


def run_once(argv, devnull):
    """Wall seconds of one run of `argv` in the current folder, its output sent to `devnull`."""
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: findings at the --fail-on level
        sys.exit(f"{' '.join(argv)} exited with {code}")
    return elapsed


def measure_interleaved(cmds, runs):
    """Median wall seconds of each command, the commands run in turn `runs` times (the first run of each,
    which fills the page cache, not counted)."""
    times = [[] for _ in cmds]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for cmd in cmds:
            run_once(cmd, devnull)
        for _ in range(runs):
            for k, cmd in enumerate(cmds):
                times[k].append(run_once(cmd, devnull))
    finally:
        os.close(devnull)
    return [statistics.median(t) for t in times]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parlint", required=True)
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--against", help="another parlint binary, timed in the same alternation")
    a = ap.parse_args()
    builds = [os.path.abspath(a.parlint)] + ([os.path.abspath(a.against)] if a.against else [])
    with tempfile.TemporaryDirectory() as tmp:
        for name in FILES:
            shutil.copy(os.path.join(HERE, "startup", name), tmp)
        size = os.path.getsize(os.path.join(tmp, FILES[0]))
        cmds = [["/bin/true"]]
        for parlint in builds:
            cmds += [[parlint, "--version"], [parlint, "check", FILES[0]]]
        here = os.getcwd()
        os.chdir(tmp)
        try:
            floor, *times = measure_interleaved(cmds, a.runs)
        finally:
            os.chdir(here)
    print(f"median of {a.runs} interleaved runs (posix_spawn + waitpid), {os.cpu_count()} cores:")
    print(f"  /bin/true                     {floor * 1000:6.2f} ms")
    for k, parlint in enumerate(builds):
        version, check = times[2 * k], times[2 * k + 1]
        if len(builds) > 1:
            print(f"{parlint}:")
        print(f"  parlint --version             {version * 1000:6.2f} ms  {version / floor:4.1f}x /bin/true")
        print(f"  parlint check ({size / 1024:.1f} KB sbatch) {check * 1000:6.2f} ms  {check / floor:4.1f}x /bin/true")


if __name__ == "__main__":
    main()
