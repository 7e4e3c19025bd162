#!/usr/bin/env python3
"""Writes rules/data/nemo_recipes.yaml: the layout each NeMo 2 library recipe sets at its defaults.

NeMo 2 users start from recipes of the installed package (`llm.llama3_70b.pretrain_recipe(num_nodes=1)`),
which no file of their project contains. This script reads those recipes statically, the way parlint reads
a local recipe: it runs `parlint plan --format json` over `nemo/collections/llm/recipes/` of a NeMo
checkout or bare mirror (nothing is imported or executed) and keeps, for every `*_recipe()` function, the
values the recipe itself writes (not the framework defaults parlint fills in), each row citing
file:line@commit.

    scripts/gen_nemo_recipes.py --nemo /path/to/NeMo --parlint build/parlint > rules/data/nemo_recipes.yaml

`varies_with` lists the parameters that can change what the row records: parameters the recorded values
were read under (their defaults chose a branch or gave the value) and parameters tested by a condition of
the function. A call passing one of them gets unknown values instead of the row's (lint/job.cpp). The
node and GPU counts are left to the call's own num_nodes / num_gpus_per_node when it passes them.

Recipes that build on another library recipe (`llama3_70b_16k` calls `llama3_70b.pretrain_recipe()`) are
read through the table parlint was built with, so after a re-pin run it twice (rebuilding between runs):
the committed table is the one a rerun reproduces byte for byte.
"""
import argparse
import ast
import pathlib
import re
import tempfile

from recipe_tables import checkout, flow_row, plan_jobs, scalar

RECIPES = "nemo/collections/llm/recipes"
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
    ("nodes", "nodes"),
    ("gpus_per_node", "gpus_per_node"),
    ("use_distributed_optimizer", "distributed_optimizer"),
]
SIZES = ("num_nodes", "num_gpus_per_node")  # the call's own arguments replace these


def conditioned_parameters(path: pathlib.Path):
    """function name -> (parameter names, parameters tested by an if / conditional expression in its body)"""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = [a.arg for a in fn.args.args + fn.args.kwonlyargs]
        tested = set()
        for node in ast.walk(fn):
            if isinstance(node, (ast.If, ast.IfExp, ast.While)):
                tested |= {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name) and n.id in params}
        out[fn.name] = (params, tested)
    return out


def rows(root: pathlib.Path, commit: str, parlint: str):
    files = sorted((root / RECIPES).glob("*.py"))
    signatures = {f.name: conditioned_parameters(f) for f in files}
    for job in plan_jobs(parlint, files):
        name = job["description"].removesuffix("()")
        path = pathlib.Path(job["path"])
        if not name.endswith("_recipe") or path.parent != root / RECIPES or job.get("framework") != "nemo2":
            continue
        params, tested = signatures[path.name].get(name, ([], set()))
        row = {"module": path.stem, "function": name}
        varies = set(tested)
        for plan_name, field in FIELDS:
            v = job["values"].get(plan_name)
            if not v or v.get("origin") == "framework-default" or v.get("value") is None:
                continue
            if isinstance(v["value"], (dict, list)) or isinstance(v["value"], str):
                continue  # unknown ("unknown: ...") or not a size
            row[field] = v["value"]
            weak = v.get("weak", "")
            m = re.match(r"with the default (\w+)=.* of " + re.escape(name) + r"\(\)$", weak)
            if m and m.group(1) in params:
                varies.add(m.group(1))
        row["varies_with"] = sorted(p for p in varies if p not in SIZES)
        line = job["range"]["start"]["line"]
        row["site"] = f"{RECIPES}/{path.name}:{line}@{commit[:12]}"
        yield row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nemo", required=True, type=pathlib.Path, help="NeMo work tree or bare mirror")
    ap.add_argument("--parlint", default="build/parlint")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, commit = checkout(a.nemo, [RECIPES], pathlib.Path(tmp))
        found = list(rows(root, commit, a.parlint))
    found.sort(key=lambda r: (r["module"], r["function"]))
    print("# NeMo 2 library recipes: the layout each recipe function sets when called with its defaults.")
    print(f"# Generated by scripts/gen_nemo_recipes.py from NVIDIA/NeMo@{commit} ({RECIPES}/*.py),")
    print("# read statically by parlint's own Python parser; do not edit: run `make update-nemo-recipes`.")
    print("nemo_recipes:")
    for r in found:
        fields = [f"module: {r['module']}", f"function: {r['function']}"]
        fields += [f"{f}: {scalar(r[f])}" for _, f in FIELDS if f in r]
        fields.append("varies_with: [" + ", ".join(r["varies_with"]) + "]")
        fields.append(f"site: \"{r['site']}\"")
        print(flow_row(fields))


if __name__ == "__main__":
    main()
