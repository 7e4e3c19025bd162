#!/usr/bin/env python3
"""Writes rules/data/bridge_recipes.yaml: the layout every Megatron-Bridge recipe function sets.

Megatron-Bridge users launch library recipes by name (`run_recipe.py --recipe NAME`, the perf launcher) or
call them from their own code; none of those files is in the user's project. This script reads the
recipes statically, the way parlint reads a local recipe: it runs `parlint plan --format json` over
`src/megatron/bridge/recipes/` and `src/megatron/bridge/perf_recipes/` of a Megatron-Bridge checkout or
bare mirror (nothing is imported or executed) and keeps, for every `*_config()` function, the values the
recipe writes (not the framework defaults parlint fills in), the GPU count and hardware its name encodes,
and the file:line@commit it was read from.

    scripts/gen_bridge_recipes.py --bridge /path/to/Megatron-Bridge --parlint build/parlint \\
        > rules/data/bridge_recipes.yaml
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

FOLDERS = ("src/megatron/bridge/recipes", "src/megatron/bridge/perf_recipes")
# plan's value names -> the table's field names, in the order the rows are written
FIELDS = [
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
    ("num_layers_in_first_pipeline_stage", "first_stage"),
    ("num_layers_in_last_pipeline_stage", "last_stage"),
    ("account_for_embedding_in_pipeline_split", "account_for_embedding"),
    ("account_for_loss_in_pipeline_split", "account_for_loss"),
    ("use_distributed_optimizer", "distributed_optimizer"),
]
# Values parlint fills in rather than reads from the recipe.
NOT_WRITTEN = {"framework-default", "cluster-profile", "derived", "recipe-name"}
# ..._pretrain_256gpu_b300_bf16_config: the GPU count and hardware the name states.
NAME_TARGET = re.compile(r"_(\d+)gpus?_(h100|h200|b200|b300|gb200|gb300|vr200|r100)(?:_|$)")


def checkout(bridge: pathlib.Path, work: pathlib.Path):
    """(folder holding src/megatron/bridge, commit) for a work tree or a bare mirror."""
    git_dir = bridge / ".git" if (bridge / ".git").exists() else bridge
    git = ["git", "--git-dir", str(git_dir)]
    commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    if all((bridge / f).is_dir() for f in FOLDERS):
        return bridge, commit
    archive = subprocess.run(git + ["archive", "HEAD", *FOLDERS], capture_output=True, check=True).stdout
    subprocess.run(["tar", "x", "-C", str(work)], input=archive, check=True)
    return work, commit


def rows(root: pathlib.Path, commit: str, parlint: str):
    # Library recipes first: a name defined in both (qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config) is
    # the library's for `run_recipe.py --recipe NAME`, which imports megatron.bridge.recipes.
    files = [p for f in FOLDERS for p in sorted((root / f).rglob("*.py"))]
    run = subprocess.run([parlint, "plan", "--format", "json", *map(str, files)], capture_output=True, text=True,
                         cwd=root)
    if run.returncode not in (0, 1):
        sys.exit(f"parlint plan failed ({run.returncode}): {run.stderr[:400]}")
    for job in json.loads(run.stdout)["jobs"]:
        name = job["description"].removesuffix("()")
        if not job["description"].endswith("()") or not name.endswith("_config"):
            continue
        if job.get("framework") != "megatron-bridge" or "_config_" in name:
            continue
        rel = pathlib.Path(job["path"]).resolve().relative_to(root.resolve()).as_posix()
        row = {"function": name}
        for plan_name, field in FIELDS:
            v = job["values"].get(plan_name)
            if not v or v.get("origin") in NOT_WRITTEN or isinstance(v.get("value"), (dict, list, str)):
                continue
            if v.get("value") is None:
                continue
            row[field] = v["value"]
        target = NAME_TARGET.search(name)
        if target:
            row["gpus"], row["hardware"] = int(target.group(1)), target.group(2)
        row["site"] = f"{rel}:{job['range']['start']['line']}@{commit[:12]}"
        yield row


def scalar(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bridge", required=True, type=pathlib.Path, help="Megatron-Bridge work tree or bare mirror")
    ap.add_argument("--parlint", default="build/parlint")
    a = ap.parse_args()
    parlint = str(pathlib.Path(a.parlint).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        root, commit = checkout(a.bridge, pathlib.Path(tmp))
        found = {}
        for r in rows(root, commit, parlint):
            found.setdefault(r["function"], r)  # defined twice: the library recipe's (see rows())
    print("# Megatron-Bridge library and perf recipes: the layout each recipe function sets.")
    print(f"# Generated by scripts/gen_bridge_recipes.py from NVIDIA-NeMo/Megatron-Bridge@{commit}")
    print(f"# ({', '.join(FOLDERS)}), read statically by parlint's own Python parser; do not edit:")
    print("# run `make update-bridge-recipes`.")
    print("bridge_recipes:")
    for name in sorted(found):
        r = found[name]
        fields = [f"function: {r['function']}"]
        fields += [f"{f}: {scalar(r[f])}" for _, f in FIELDS if f in r]
        if "gpus" in r:
            fields += [f"gpus: {r['gpus']}", f"hardware: {r['hardware']}"]
        fields.append(f"site: \"{r['site']}\"")
        print("  - {" + ", ".join(fields) + "}")


if __name__ == "__main__":
    main()
