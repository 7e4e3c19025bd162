#!/usr/bin/env python3
"""Writes rules/data/bridge_recipes.yaml: the layout every Megatron-Bridge recipe function sets.

Megatron-Bridge users launch library recipes by name (`run_recipe.py --recipe NAME`, the perf launcher) or
call them from their own code; none of those files is in the user's project. This script reads the
recipes statically, the way parlint reads a local recipe: it runs `parlint plan --format json` over
`src/megatron/bridge/recipes/` and `src/megatron/bridge/perf_recipes/` of a Megatron-Bridge checkout or
bare mirror (nothing is imported or executed) and keeps, for every `*_config()` function, the values the
recipe writes (not the framework defaults parlint fills in), the GPU count and hardware its name encodes,
the package that exports it (`recipes`, the library, or `perf_recipes`, the benchmarks: several names are
defined in both, and the launchers choose between them), the legacy names it is also exported under
(`from .h100.deepseek_v3 import ..._config as deepseek_v3_pretrain_config_32nodes`, `alias = function`;
read with Python's own `ast` parser, which runs nothing), and the file:line@commit it was read from.

    scripts/gen_bridge_recipes.py --bridge /path/to/Megatron-Bridge --parlint build/parlint \\
        > rules/data/bridge_recipes.yaml
"""
import argparse
import ast
import pathlib
import re
import tempfile

from recipe_tables import LAYOUT_FIELDS, checkout, flow_row, plan_jobs, scalar

FOLDERS = ("src/megatron/bridge/recipes", "src/megatron/bridge/perf_recipes")
# plan's value names -> the table's field names, in the order the rows are written
FIELDS = LAYOUT_FIELDS + [
    ("num_layers_in_first_pipeline_stage", "first_stage"),
    ("num_layers_in_last_pipeline_stage", "last_stage"),
    ("account_for_embedding_in_pipeline_split", "account_for_embedding"),
    ("account_for_loss_in_pipeline_split", "account_for_loss"),
    ("use_distributed_optimizer", "distributed_optimizer"),
]
# The model's dimensions a recipe writes itself (HybridModelProvider(num_layers=52, ...) for Nemotron-H),
# by their canonical names; the rules read them as they read the built-in model table's.
MODEL_FIELDS = ["num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "num_query_groups",
                "kv_channels", "num_moe_experts", "moe_router_topk", "moe_ffn_hidden_size", "vocab_size",
                "mtp_num_layers"]
MODEL_TABLE = " (built-in model table)"
# Values parlint fills in rather than reads from the recipe.
NOT_WRITTEN = {"framework-default", "cluster-profile", "derived", "recipe-name"}
# ..._pretrain_256gpu_b300_bf16_config: the GPU count and hardware the name states.
NAME_TARGET = re.compile(r"_(\d+)gpus?_(h100|h200|b200|b300|gb200|gb300|vr200|r100)(?:_|$)")


def package_of(rel: str) -> str:
    return "perf_recipes" if rel.startswith(FOLDERS[1] + "/") else "recipes"


def model_keys(models_yaml: pathlib.Path):
    """The built-in model table's display names -> keys (`qwen3-30b-a3b: {name: Qwen3 30B-A3B, ...}`)."""
    keys = {}
    for line in models_yaml.read_text().splitlines():
        m = re.match(r"\s+([a-z0-9][a-z0-9.\-]*):\s+\{name: ([^,]+),", line)
        if m:
            keys[m.group(2).strip()] = m.group(1)
    return keys


def rows(root: pathlib.Path, commit: str, parlint: str, models):
    files = [p for f in FOLDERS for p in sorted((root / f).rglob("*.py"))]
    for job in plan_jobs(parlint, files, cwd=root):
        name = job["description"].removesuffix("()")
        if not job["description"].endswith("()") or not name.endswith("_config"):
            continue
        if job.get("framework") != "megatron-bridge" or "_config_" in name:
            continue
        rel = pathlib.Path(job["path"]).resolve().relative_to(root.resolve()).as_posix()
        row = {"function": name, "package": package_of(rel)}
        for plan_name, field in FIELDS:
            v = job["values"].get(plan_name)
            if not v or v.get("origin") in NOT_WRITTEN or isinstance(v.get("value"), (dict, list, str)):
                continue
            if v.get("value") is None:
                continue
            row[field] = v["value"]
        # The model it loads (AutoBridge.from_hf_pretrained(HF_ID)), named by the built-in table's facts.
        for v in job["values"].values():
            source = v.get("source") or ""
            if v.get("origin") == "recipe-default" and source.endswith(MODEL_TABLE):
                if source[: -len(MODEL_TABLE)] in models:
                    row["model"] = models[source[: -len(MODEL_TABLE)]]
                    break
        written = {}
        for key in MODEL_FIELDS:
            v = job["values"].get(key)
            if v and v.get("origin") not in NOT_WRITTEN | {"recipe-default"} and isinstance(v.get("value"), int) \
                    and not isinstance(v.get("value"), bool):
                written[key] = v["value"]
        if written:
            row["written"] = written
        target = NAME_TARGET.search(name)
        if target:
            row["gpus"], row["hardware"] = int(target.group(1)), target.group(2)
        row["site"] = f"{rel}:{job['range']['start']['line']}@{commit[:12]}"
        yield row


def aliases(root: pathlib.Path, functions):
    """{(package, function): [legacy names]}: the names a package exports a recipe function under too,
    by `from module import function as name` or a module-level `name = function`, followed through
    chains (an __init__.py re-exporting a legacy module's alias)."""
    renames = {}  # (package, new name) -> old name
    for folder in FOLDERS:
        package = package_of(folder + "/")
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.parse(path.read_text(), filename=str(path)).body:
                if isinstance(node, ast.ImportFrom):
                    pairs = [(a.asname, a.name) for a in node.names if a.asname and a.asname != a.name]
                elif (isinstance(node, ast.Assign) and len(node.targets) == 1
                      and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Name)):
                    pairs = [(node.targets[0].id, node.value.id)]
                else:
                    continue
                for new, old in pairs:
                    if new.endswith("_config") or "_config_" in new:
                        renames[(package, new)] = old
    found = {}
    for (package, new), old in renames.items():
        seen = {new}
        while (package, old) in renames and old not in seen:  # an alias of an alias
            seen.add(old)
            old = renames[(package, old)]
        if (package, old) in functions and not new.startswith("_") and new != old:
            found.setdefault((package, old), set()).add(new)
    return {k: sorted(v) for k, v in found.items()}


def pair_table(fn: ast.FunctionDef):
    """The (PP, VP) keys of a layout builder's table (`layout_map = {(4, 1): [...], ...}`), when the
    function refuses every other pair ("Invalid PP and VP size"); None for a builder that computes its
    layout (K-EXAONE 2.0's) or a function that is none."""
    refuses = any(isinstance(c, ast.Constant) and isinstance(c.value, str) and "Invalid PP and VP" in c.value
                  for c in ast.walk(fn))
    if not refuses:
        return None
    for node in ast.walk(fn):
        if isinstance(node, ast.Dict) and node.keys and all(
                isinstance(k, ast.Tuple) and len(k.elts) == 2
                and all(isinstance(e, ast.Constant) and isinstance(e.value, int) for e in k.elts)
                for k in node.keys):
            return sorted((k.elts[0].value, k.elts[1].value) for k in node.keys)
    return None


def layout_builders(root: pathlib.Path, names):
    """{(package, function): (builder, [(PP, VP), ...])}: the layout builder a function registers for the
    recipe runner (`cfg.model._pipeline_model_parallel_layout_builder = _get_deepseek_v3_pipeline_layout`,
    scripts/training/recipe_runner.py:373-427), itself or through the functions it calls (a perf recipe
    starting from `deepseek_v3_pretrain_config()`, a legacy name): calls resolve in the caller's package
    first, then in the other, through the legacy names."""
    tables, registers, calls = {}, {}, {}
    for folder in FOLDERS:
        package = package_of(folder + "/")
        for path in sorted((root / folder).rglob("*.py")):
            for fn in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if not isinstance(fn, ast.FunctionDef):
                    continue
                pairs = pair_table(fn)
                if pairs is not None:
                    tables.setdefault(fn.name, pairs)
                key = (package, fn.name)
                for node in ast.walk(fn):
                    if (isinstance(node, ast.Assign) and len(node.targets) == 1
                            and isinstance(node.targets[0], ast.Attribute)
                            and node.targets[0].attr == "_pipeline_model_parallel_layout_builder"
                            and isinstance(node.value, ast.Name)):
                        registers.setdefault(key, node.value.id)
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                        calls.setdefault(key, []).append(node.func.id)
    legacy = {(package, alias): (package, function) for (package, function), aliases_ in names.items()
              for alias in aliases_}
    found = {k: b for k, b in registers.items() if b in tables}

    def callee(package, name):
        for p in (package, "recipes" if package == "perf_recipes" else "perf_recipes"):
            for k in ((p, name), legacy.get((p, name))):
                if k in found:
                    return found[k]
        return None

    for _ in range(8):  # a recipe built on one that registers a builder has it too
        more = {}
        for k, cs in calls.items():
            if k in found:
                continue
            for c in cs:
                if (b := callee(k[0], c)) is not None:
                    more[k] = b
                    break
        if not more:
            break
        found.update(more)
    return {k: (b, tables[b]) for k, b in found.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bridge", required=True, type=pathlib.Path, help="Megatron-Bridge work tree or bare mirror")
    ap.add_argument("--parlint", default="build/parlint")
    a = ap.parse_args()
    parlint = str(pathlib.Path(a.parlint).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        root, commit = checkout(a.bridge, FOLDERS, pathlib.Path(tmp))
        found = {}
        models = model_keys(pathlib.Path(__file__).resolve().parent.parent / "rules" / "data" / "models.yaml")
        for r in rows(root, commit, parlint, models):
            found.setdefault((r["package"], r["function"]), r)  # defined twice in a package: the first
        names = aliases(root, found)
        builders = layout_builders(root, names)
    # A private helper (_nemotron_3_super_pretrain_64gpu_h100_bf16_config) is a recipe only under the
    # public name a package gives it.
    found = {k: r for k, r in found.items() if not k[1].startswith("_") or k in names}
    print("# Megatron-Bridge library and perf recipes: the layout each recipe function sets.")
    print(f"# Generated by scripts/gen_bridge_recipes.py from NVIDIA-NeMo/Megatron-Bridge@{commit}")
    print(f"# ({', '.join(FOLDERS)}), read statically by parlint's own Python parser; do not edit:")
    print("# run `make update-bridge-recipes`.")
    print("bridge_recipes:")
    for key in sorted(found, key=lambda k: (k[1].lstrip("_"), k[0])):
        r = found[key]
        fields = [f"function: {r['function']}", f"package: {r['package']}"]
        if "model" in r:
            fields.append(f"model: {r['model']}")
        fields += [f"{f}: {scalar(r[f])}" for _, f in FIELDS if f in r]
        if "gpus" in r:
            fields += [f"gpus: {r['gpus']}", f"hardware: {r['hardware']}"]
        if key in names:
            fields.append(f"aliases: [{', '.join(names[key])}]")
        if key in builders:
            builder, pairs = builders[key]
            fields.append(f"layout_builder: {builder}")
            fields.append("layout_pairs: [" + ", ".join(f"{pp}x{vp}" for pp, vp in pairs) + "]")
        if "written" in r:
            fields.append("written: {" + ", ".join(f"{k}: {v}" for k, v in r["written"].items()) + "}")
        fields.append(f"site: \"{r['site']}\"")
        print(flow_row(fields))


if __name__ == "__main__":
    main()
