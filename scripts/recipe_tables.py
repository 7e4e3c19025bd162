"""What the recipe-table generators (gen_nemo_recipes.py, gen_bridge_recipes.py) share: the framework's
source at its commit, parlint's plan of the recipe files, and the YAML rows they write."""
import json
import pathlib
import subprocess
import sys


# The layout and batch fields every recipe table records: plan's value names -> the table's field names,
# in the order the rows are written (each generator appends its own).
LAYOUT_FIELDS = [
    ("tensor_model_parallel_size", "tp"),
    ("pipeline_model_parallel_size", "pp"),
    ("virtual_pipeline_model_parallel_size", "vpp"),
    ("context_parallel_size", "cp"),
    ("expert_model_parallel_size", "ep"),
    ("expert_tensor_parallel_size", "etp"),
    ("sequence_parallel", "sp"),
    ("seq_length", "seq"),
    ("global_batch_size", "gbs"),
    ("micro_batch_size", "mbs"),
]


def checkout(repo: pathlib.Path, folders, work: pathlib.Path):
    """(folder holding `folders`, commit) for a work tree, or for a bare mirror archived into `work`."""
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    git = ["git", "--git-dir", str(git_dir)]
    commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    if all((repo / f).is_dir() for f in folders):
        return repo, commit
    archive = subprocess.run(git + ["archive", "HEAD", *folders], capture_output=True, check=True).stdout
    subprocess.run(["tar", "x", "-C", str(work)], input=archive, check=True)
    return work, commit


def plan_jobs(parlint: str, files, cwd=None):
    """The jobs of `parlint plan --format json` over the files (read statically: nothing is imported)."""
    run = subprocess.run([parlint, "plan", "--format", "json", *map(str, files)], capture_output=True, text=True,
                         cwd=cwd)
    if run.returncode not in (0, 1):
        sys.exit(f"parlint plan failed ({run.returncode}): {run.stderr[:400]}")
    return json.loads(run.stdout)["jobs"]


def scalar(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def flow_row(fields):
    """One row of a table as a YAML flow mapping on one line."""
    return "  - {" + ", ".join(fields) + "}"
