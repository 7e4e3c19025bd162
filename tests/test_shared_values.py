"""A value appended to in branches (A="$A --x") is kept as the value before plus what was appended, and
made whole only where something reads it (parsers/shell/shell_variables.h, Var::appended_to). Whether a
value is read in between must never change what parlint reports: each generated script of options built in
nested ifs and cases is linted with `R="$A"` (a read of A that changes nothing the launches use) and with
`R="$Q"` after every assignment, and the plans and findings must be the same."""
import json
import os
import random
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARLINT = os.path.abspath(os.environ.get("PARLINT", os.path.join(ROOT, "build", "parlint")))
SCRIPTS = 200

OPTIONS = ["--pipeline-model-parallel-size 2", "--pipeline-model-parallel-size 4", "--seq-length 4096",
           "--num-layers 48", "--tensor-model-parallel-size 4", "--sequence-parallel",
           "--context-parallel-size 2", "--x=$Z", "--micro-batch-size $MB", "--tensor-model-parallel-size=8"]
FIRST = ['A="--num-layers 32 --tensor-model-parallel-size 2"', 'A="$EXTRA --tensor-model-parallel-size 2"',
         'A="--num-layers=32"', 'A=""']
LAUNCH = "torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py $A"


def script(seed):
    r = random.Random(seed)

    def block(depth):
        out = []
        for _ in range(r.randint(1, 3)):
            k, pad = r.random(), "  " * depth
            if k < 0.35:
                out.append(f'{pad}A="$A {r.choice(OPTIONS)}"')
            elif k < 0.42:
                out.append(f'{pad}A+=" {r.choice(OPTIONS)}"')
            elif k < 0.55:
                out.append(pad + LAUNCH)  # reads the value where it is, a branch's pending one too
            elif k < 0.58:
                out.append(pad + 'A="${A}x"')
            elif k < 0.61:
                out.append(pad + 'B="$A --num-layers 8"; A="$B"')
            elif depth < 5 and k < 0.85:
                out.append(f'{pad}if [ -n "$X{r.randint(0, 9)}" ]; then')
                out += block(depth + 1)
                if r.random() < 0.5:
                    out += [pad + "else"] + block(depth + 1)
                out.append(pad + "fi")
            elif depth < 5:
                out.append(pad + 'case "$M" in')
                for arm in range(r.randint(1, 3)):
                    out += [f"{pad}  m{arm})"] + block(depth + 2) + [pad + "    ;;"]
                out.append(pad + "esac")
        return out

    return ["#!/bin/bash", "#SBATCH --nodes=2", "#SBATCH --gpus-per-node=8", r.choice(FIRST)] + block(0) + \
        [LAUNCH + " --global-batch-size 64"]


# Written out: appends at every level of ifs and cases nested five deep, read by a launch only at the
# deepest level and after each level is merged.
DEEP = ["#!/bin/bash", "#SBATCH --nodes=2", "#SBATCH --gpus-per-node=8", FIRST[0]]
for level, option in enumerate(OPTIONS[:5]):
    pad = "  " * (2 * level)
    DEEP += [f'{pad}if [ -n "$X{level}" ]; then', f'{pad}  A="$A {option}"', f'{pad}  case "$M{level}" in',
             f'{pad}    a) A="$A --seq-length {1024 << level}" ;;', f"{pad}    *) ;;", f"{pad}  esac"]
DEEP.append("  " * 10 + LAUNCH)
for level in reversed(range(5)):
    DEEP += ["  " * (2 * level) + "fi", "  " * (2 * level) + LAUNCH]


def lint(folder, names, command):
    out = subprocess.run([PARLINT, command, "--format", "json", *(["--fail-on", "never"] if command == "check" else []),
                          *names], cwd=folder, capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout)


class ReadsChangeNothing(unittest.TestCase):
    def test_a_read_between_appends_changes_no_plan_and_no_finding(self):
        with tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as read:
            names = []
            for seed in range(SCRIPTS + 1):
                lines = script(seed) if seed < SCRIPTS else DEEP
                name = f"s{seed}.sh"
                names.append(name)
                # After each assignment a line that reads A, or the same line reading another variable
                # (so that both scripts keep the same line numbers).
                for folder, variable in ((plain, "Q"), (read, "A")):
                    with open(os.path.join(folder, name), "w") as f:
                        for line in lines:
                            f.write(line + "\n")
                            if line.strip().startswith(("A=", "A+=", "B=")):
                                f.write(f'R="${variable}"\n')
            for command in ("plan", "check"):
                self.assertEqual(lint(plain, names, command), lint(read, names, command), command)


if __name__ == "__main__":
    unittest.main()
