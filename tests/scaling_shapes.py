"""Inputs of size n for every shape in which alternatives can multiply (issue 33): test_scaling.py lints
each at n and 2n and asserts that time and memory grow at most linearly; scripts/fuzz.sh seeds the fuzz
targets with small instances. Each generator returns {file name: text}; the first file is the one linted,
the others are files it refers to (sourced scripts, imported modules, configs)."""

LAUNCH = "torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py"
HEADER = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\n"


def sequential_ifs(n):
    # The shape of issue 33: one option string appended to in n separate if blocks.
    body = "".join(f'if [ "$X{i}" ]; then\n  A="$A --x{i}"\nfi\n' for i in range(n))
    return {"run.sh": HEADER + 'A="--tensor-model-parallel-size 4 --num-layers 8"\n' + body + f"{LAUNCH} $A\n"}


def sequential_ifs_array(n):
    body = "".join(f'if [ "$X{i}" ]; then\n  A+=(--x{i} {i})\nelse\n  A+=(--y{i})\nfi\n' for i in range(n))
    return {"run.sh": HEADER + "A=(--tensor-model-parallel-size 4)\n" + body + f'{LAUNCH} "${{A[@]}}"\n'}


def nested_ifs(n):
    # Nesting is bounded by the tree depth parlint walks (400 levels), so the shape repeats blocks of
    # 20 nested ifs n/20 times.
    def block(k):
        opened = "".join(f'{"  " * d}if [ "$Y{k}_{d}" ]; then\n{"  " * d}  A="$A --n{k}_{d}"\n' for d in range(20))
        closed = "".join(f'{"  " * d}fi\n' for d in reversed(range(20)))
        return opened + closed
    return {"run.sh": HEADER + 'A="--tensor-model-parallel-size 4"\n' + "".join(block(k) for k in range(max(1, n // 20)))
            + f"{LAUNCH} $A\n"}


def case_arms(n):
    arms = "".join(f'  m{i}) A="$A --c{i}"; TP={1 + i % 8} ;;\n' for i in range(n))
    return {"run.sh": HEADER + 'A="--num-layers 8"\ncase "$MODE" in\n' + arms + "esac\n"
            + f"{LAUNCH} $A --tensor-model-parallel-size $TP\n"}


def loops_building_arrays(n):
    body = "".join(f"for v in a b c; do\n  ARR+=(--l{i} $v)\n  S=\"$S --s{i}\"\ndone\n" for i in range(n))
    return {"run.sh": HEADER + "ARR=(--tensor-model-parallel-size 2)\n" + body + f'{LAUNCH} "${{ARR[@]}}" $S\n'}


def doubling_value(n):
    # Text that doubles at every line, as bash would build it: bounded by the value size, not followed.
    body = "".join(f'A="$A $A"\nB{i}=$A\n' for i in range(n))
    return {"run.sh": HEADER + 'A="--x"\n' + body + f"{LAUNCH} --tensor-model-parallel-size 2 $A\n"}


def branch_launch_strings(n):
    # A launch string chosen in each of n if/else blocks and run after each: two launches per block, and a
    # value that carries its branches into the next block is not followed further.
    block = ('if [ "$M{i}" = a ]; then\n  APP="pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers {l}"\n'
             'else\n  APP="pretrain_gpt.py --tensor-model-parallel-size 4 --num-layers {l}"\nfi\n'
             'torchrun --nproc_per_node 8 --nnodes 2 $APP\n')
    return {"run.sh": HEADER + "".join(block.format(i=i, l=8 + i % 8) for i in range(n))}


def branch_launch_reused(n):
    # One launch string chosen among 8 case arms (the most parlint keeps), run by n commands: 8 launches
    # per command.
    arms = "".join(f'  {f"m{i}" if i < 7 else "*"}) CMD="python pretrain_gpt.py --tensor-model-parallel-size {1 + i % 4}" ;;\n'
                   for i in range(8))
    return {"run.sh": HEADER + 'case "$MODE" in\n' + arms + "esac\n" + 'eval "$CMD --num-layers 8"\n' * n}


def many_launches(n):
    body = "".join(f"{LAUNCH} --tensor-model-parallel-size $TP --num-layers {8 + i}\n" for i in range(n))
    return {"run.sh": HEADER + "TP=4\n" + body}


def sourced_files(n):
    # A script that sources the same helper n times, and the helper itself branching.
    helper = "".join(f'if [ "$H{i}" ]; then OPTS="$OPTS --h{i}"; fi\n' for i in range(20))
    main = HEADER + "".join(f"source ./common.sh\nOPTS=\"$OPTS --m{i}\"\n" for i in range(n)) + f"{LAUNCH} $OPTS\n"
    return {"run.sh": main, "common.sh": helper}


def bash_c_strings(n):
    body = "".join(f'CMD="$CMD --b{i}"\nif [ "$Z{i}" ]; then CMD="$CMD --z{i}"; fi\n' for i in range(n))
    return {"run.sh": HEADER + f'CMD="{LAUNCH} --tensor-model-parallel-size 2"\n' + body
            + 'srun bash -c "$CMD --num-layers 8"\n'}


def python_if_elif(n):
    arms = "".join(f"    {'if' if i == 0 else 'elif'} size == {i}:\n        cfg.model.tensor_model_parallel_size = {1 + i % 8}\n"
                   f"        opts = opts + ['--e{i}']\n" for i in range(n))
    return {"recipe.py": "def recipe(size):\n    opts = []\n    cfg = pretrain_config()\n" + arms
            + "    cfg.model.sequence_parallel = True\n    return cfg\n"}


def python_sequential_ifs(n):
    body = "".join(f"    if flag{i}:\n        opts = opts + ['--p{i}']\n        cfg.model.num_layers = {i}\n" for i in range(n))
    return {"recipe.py": "def recipe(**flags):\n    opts = []\n    cfg = pretrain_config()\n" + body
            + "    cfg.model.tensor_model_parallel_size = 2\n    return cfg\n"}


def python_call_chain(n):
    # Recipes built on recipes, each calling the one before twice.
    fns = ["def r0():\n    cfg = pretrain_config()\n    cfg.model.tensor_model_parallel_size = 2\n    return cfg\n"]
    for i in range(1, n):
        fns.append(f"def r{i}(x=1):\n    a = r{i - 1}()\n    b = r{i - 1}()\n    a.model.num_layers = {i}\n    return a\n")
    return {"recipes.py": "\n".join(fns)}


def yaml_anchor_chain(n):
    # Each mapping merges the one before: what a config that layers overrides on a base looks like.
    lines = ["base0: &b0 {tensor_model_parallel_size: 2, k0: 0}"]
    lines += [f"base{i}: &b{i}\n  <<: *b{i - 1}\n  k{i}: {i}" for i in range(1, n)]
    lines.append(f"model:\n  <<: *b{n - 1}\n  sequence_parallel: true")
    return {"conf.yaml": "\n".join(lines) + "\n"}


def yaml_many_keys(n):
    keys = "".join(f"  key_{i}: {i}\n" for i in range(n))
    return {"conf.yaml": "model:\n  tensor_model_parallel_size: 2\n" + keys + "trainer:\n  devices: 8\n"}


def yaml_flag_sections(n):
    # Megatron-LM functional-test configs: several sections of flags, each a run.
    sections = "".join(f"MODEL_ARGS_{i}:\n  --tensor-model-parallel-size: 2\n  --num-layers: {8 + i}\n" for i in range(n))
    return {"conf.yaml": sections}


def hydra_overrides(n):
    overrides = " \\\n  ".join(f"model.extra_{i}={i}" for i in range(n))
    return {"run.sh": HEADER + "torchrun --nproc_per_node 8 --nnodes 2 scripts/training/run_recipe.py "
            "--recipe llama3_8b_pretrain_config \\\n  model.tensor_model_parallel_size=2 \\\n  " + overrides + "\n"}


def megatron_flags(n):
    flags = " \\\n  ".join(f"--flag-{i} {i}" for i in range(n))
    return {"run.sh": HEADER + f"{LAUNCH} --tensor-model-parallel-size 2 \\\n  " + flags + "\n"}


def source_fan_out(n, depth=8):
    # Environment files that source each other: each of eight levels sources the next n times (bash reads
    # n^8 files). A file sourced again with the same variables in scope is read once.
    files = {"run.sh": HEADER + "source ./env0.sh\n" + f"{LAUNCH} --tensor-model-parallel-size $TP --num-layers 7 "
             "--pipeline-model-parallel-size 2\n"}
    for d in range(depth):
        body = f"#!/bin/bash\nexport NCCL_LEVEL_{d}=1\nDATA_{d}=/data/{d}\n"
        body += f"source ./env{d + 1}.sh\n" * n if d + 1 < depth else "TP=16\n"
        files[f"env{d}.sh"] = body
    return files


def source_chain(n):
    # A chain of sourced files, each setting variables and sourcing the next (parlint follows 8 levels).
    files = {"run.sh": HEADER + "source ./c0.sh\n" + f"{LAUNCH} --tensor-model-parallel-size $TP\n"}
    for i in range(n):
        body = "".join(f"V{i}_{j}=value{j}\n" for j in range(20)) + (f"source ./c{i + 1}.sh\n" if i + 1 < n else "TP=4\n")
        files[f"c{i}.sh"] = body
    return files


def many_functions(n):
    # Helper functions, each called once, each adding options.
    fns = "".join(f"add_{i}() {{\n  local v={i}\n  OPTS=\"$OPTS --f{i} $v\"\n}}\n" for i in range(n))
    calls = "".join(f"add_{i}\n" for i in range(n))
    return {"run.sh": HEADER + 'OPTS="--tensor-model-parallel-size 2"\n' + fns + calls + f"{LAUNCH} $OPTS\n"}


def python_dict_table(n):
    # A table of layouts by model name, looked up by a recipe.
    rows = "".join(f'    "m{i}": dict(tp={1 << (i % 4)}, pp={1 + i % 3}, layers={24 + i % 8}),\n' for i in range(n))
    return {"recipes.py": "LAYOUTS = {\n" + rows + "}\n\n\ndef recipe(name='m1'):\n    row = LAYOUTS[name]\n"
            "    cfg = pretrain_config()\n    cfg.model.tensor_model_parallel_size = row['tp']\n"
            "    cfg.model.pipeline_model_parallel_size = row['pp']\n    cfg.model.num_layers = row['layers']\n"
            "    return cfg\n"}


def huge_yaml(n):
    # A long config: nested sections with lists, as generated sweeps write them.
    sections = "".join(f"section_{i}:\n  name: s{i}\n  values: [{i}, {i + 1}, {i + 2}]\n  nested:\n"
                       f"    a: {i}\n    b: text {i}\n" for i in range(n))
    return {"conf.yaml": "model:\n  tensor_model_parallel_size: 2\n  num_layers: 7\n  pipeline_model_parallel_size: 2\n"
            + sections + "trainer:\n  devices: 8\n  num_nodes: 1\n"}


SHAPES = {
    "sequential_ifs": (sequential_ifs, 1500),
    "sequential_ifs_array": (sequential_ifs_array, 1000),
    "nested_ifs": (nested_ifs, 600),
    "case_arms": (case_arms, 1500),
    "loops_building_arrays": (loops_building_arrays, 1500),
    "doubling_value": (doubling_value, 100),
    "branch_launch_strings": (branch_launch_strings, 400),
    "branch_launch_reused": (branch_launch_reused, 200),
    "many_launches": (many_launches, 400),
    "sourced_files": (sourced_files, 200),
    "bash_c_strings": (bash_c_strings, 1500),
    "python_if_elif": (python_if_elif, 1500),
    "python_sequential_ifs": (python_sequential_ifs, 3000),
    "python_call_chain": (python_call_chain, 800),
    "yaml_anchor_chain": (yaml_anchor_chain, 300),
    "yaml_many_keys": (yaml_many_keys, 20000),
    "yaml_flag_sections": (yaml_flag_sections, 1000),
    "hydra_overrides": (hydra_overrides, 8000),
    "megatron_flags": (megatron_flags, 8000),
    "source_fan_out": (source_fan_out, 8),
    "source_chain": (source_chain, 200),
    "many_functions": (many_functions, 1000),
    "python_dict_table": (python_dict_table, 2000),
    "huge_yaml": (huge_yaml, 4000),
}


if __name__ == "__main__":
    # scaling_shapes.py --seeds DIR N: the linted file of every shape at size N, as DIR/<kind>/<shape>,
    # for the fuzz targets' seed corpora (scripts/fuzz.sh).
    import os
    import sys

    if len(sys.argv) != 4 or sys.argv[1] != "--seeds":
        sys.exit("usage: scaling_shapes.py --seeds DIR N")
    kinds = {".sh": "shell", ".py": "python", ".yaml": "yaml"}
    for shape, (generate, _) in SHAPES.items():
        name, text = next(iter(generate(int(sys.argv[3])).items()))
        folder = os.path.join(sys.argv[2], kinds[os.path.splitext(name)[1]])
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "seed-shape-" + shape), "w") as f:
            f.write(text)
