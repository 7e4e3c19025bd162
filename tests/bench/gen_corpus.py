"""Writes a benchmark corpus of N files shaped like real launch material (reference/syntax-in-the-wild.md):
SLURM sbatch scripts (#SBATCH headers, ${X:-default} variables, Megatron-LM flag arrays with comments,
`\\` continuations, commands built in strings and run with bash -c, heredocs, srun + torchrun), YAML
configs (NeMo 1 trainer/model trees, Megatron-Bridge dumps, OmegaConf ${...} interpolation, anchors) and
Python recipes (Megatron-Bridge / NeMo 2 recipe functions with attribute assignments). Scripts carry the
set-up code real ones do (exports, checks, loops, functions, case, command substitutions), not padding
comments, which would flatter every tool that skips comments. Sizes 2-20 KB,
deterministic for a seed. A third of the files carry a parallelism mistake.

    python3 tests/bench/gen_corpus.py OUT_DIR [--files 2000] [--seed 1]
"""
import argparse
import os
import random

MODELS = [  # layers, hidden, ffn, heads, groups
    (32, 4096, 14336, 32, 8), (80, 8192, 28672, 64, 8), (40, 5120, 13824, 40, 40), (24, 2048, 8192, 16, 16),
    (126, 16384, 53248, 128, 8), (48, 6144, 24576, 48, 8),
]
FLAGS_EXTRA = [
    "--lr 3.0e-4", "--min-lr 3.0e-5", "--lr-decay-style cosine", "--weight-decay 0.1", "--clip-grad 1.0",
    "--adam-beta1 0.9", "--adam-beta2 0.95", "--init-method-std 0.008", "--attention-dropout 0.0",
    "--hidden-dropout 0.0", "--bf16", "--use-flash-attn", "--overlap-grad-reduce", "--overlap-param-gather",
    "--log-interval 10", "--save-interval 1000", "--eval-interval 1000", "--eval-iters 10",
    "--tokenizer-type HuggingFaceTokenizer", "--split 99,1,0", "--distributed-timeout-minutes 60",
]


def layout(r, mistake):
    tp = r.choice([1, 2, 4, 8])
    pp = r.choice([1, 2, 4, 8])
    cp = r.choice([1, 1, 1, 2])
    nodes = r.choice([1, 2, 4, 8, 16, 32])
    if mistake == "tp":
        tp = 16
    if mistake == "world":
        nodes = 3
    return tp, pp, cp, nodes


def shell_block(r, k):
    """One piece of the set-up code real launch scripts carry around the training command."""
    words = ("checkpoint resume data blend tokenizer warmup profile nccl scratch container mounts seed").split()
    name = f"{r.choice(words)}_{k}"
    pick = r.randrange(11)
    if pick == 0:
        return [f"export NCCL_{r.choice(['IB_TIMEOUT', 'SOCKET_IFNAME', 'DEBUG', 'NVLS_ENABLE'])}_{k}="
                f"{r.choice(['22', 'ib0', 'WARN', '0'])}"]
    if pick == 1:
        return [f'if [[ -z "${{{name.upper()}:-}}" ]]; then',
                f'  echo "{name.upper()} is not set; using the default" >&2',
                f'  {name.upper()}="/lustre/fsw/{name}"', "fi"]
    if pick == 2:
        return [f'mkdir -p "${{CKPT_DIR}}/{name}" "${{LOG_DIR:-logs}}/{name}"']
    if pick == 3:
        return [f"for shard in $(seq 0 {r.randint(3, 64)}); do",
                f'  DATA_{k}+=("{r.random():.3f}" "/lustre/data/{name}/shard_${{shard}}_text_document")', "done"]
    if pick == 4:
        return [f"setup_{name}() {{", '  local dir="$1"', '  [[ -d "$dir" ]] || mkdir -p "$dir"',
                '  echo "[$(date +%F_%T)] prepared $dir"', "}", f'setup_{name} "${{CKPT_DIR}}/{name}"']
    if pick == 5:
        return [f'HEAD_{k}=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)']
    if pick == 6:
        return [f'case "${{CLUSTER:-eos}}" in', f"  eos) PARTITION_{k}=batch ;;",
                f"  draco*) PARTITION_{k}=batch_block1 ;;", f"  *) PARTITION_{k}=debug ;;", "esac"]
    if pick == 7:
        return [f'echo "job ${{SLURM_JOB_ID:-local}} step {k}: TP=$TP PP=$PP CP=$CP" | tee -a "logs/{name}.txt"']
    if pick == 8:
        return [f"GPUS_{k}=$(( SLURM_NNODES * 8 ))"]
    if pick == 9:
        return [f'CONTAINER_MOUNTS_{k}="/lustre/fsw:/lustre/fsw,${{HOME}}/{name}:/workspace/{name}"']
    return ["# " + " ".join(r.choice(words) for _ in range(r.randint(6, 14)))]


def pad_code(r, lines, target_bytes):
    k = 0
    while sum(len(l) + 1 for l in lines) < target_bytes:
        k += 1
        lines += shell_block(r, k)


def sbatch(r, i, mistake):
    layers, hidden, ffn, heads, groups = r.choice(MODELS)
    tp, pp, cp, nodes = layout(r, mistake)
    seq = r.choice([2048, 4096, 8192])
    style = r.choice(["array", "string", "heredoc"])
    out = ["#!/bin/bash", f"#SBATCH --job-name=pretrain-{i}", f"#SBATCH --nodes={nodes}",
           "#SBATCH --ntasks-per-node=1", "#SBATCH --gpus-per-node=8", "#SBATCH --cpus-per-task=96",
           "#SBATCH --exclusive", "#SBATCH --time=04:00:00", f"#SBATCH --output=logs/%x_%j.out", "",
           "set -euo pipefail", "export CUDA_DEVICE_MAX_CONNECTIONS=1", "export NCCL_IB_SL=1",
           f"TP=${{TP:-{tp}}}", f"PP=${{PP:-{pp}}}", f"CP=${{CP:-{cp}}}", f"SEQ_LEN=${{SEQ_LEN:-{seq}}}",
           "MBS=1", f"GBS={r.choice([256, 512, 1024])}", 'CKPT_DIR=${CKPT_DIR:-/lustre/ckpt/$SLURM_JOB_NAME}', ""]
    body = []
    pad_code(r, body, r.randint(1500, 12000))
    out += body
    model = [f"--num-layers {layers}", f"--hidden-size {hidden}", f"--ffn-hidden-size {ffn}",
             f"--num-attention-heads {heads}", "--group-query-attention", f"--num-query-groups {groups}",
             "--seq-length $SEQ_LEN", "--max-position-embeddings $SEQ_LEN",
             "--micro-batch-size $MBS", "--global-batch-size $GBS", "--use-distributed-optimizer"]
    par = ["--tensor-model-parallel-size $TP", "--pipeline-model-parallel-size $PP",
           "--context-parallel-size $CP"] + (["--sequence-parallel"] if tp > 1 else [])
    extra = r.sample(FLAGS_EXTRA, r.randint(5, len(FLAGS_EXTRA)))
    if style == "array":
        out.append("MODEL_ARGS=(")
        out += [f"  {f}  # model" for f in model]
        out.append(")")
        out.append("PARALLEL_ARGS=(")
        out += [f"  {f}" for f in par]
        out.append(")")
        out.append("EXTRA_ARGS=(" + " ".join(extra) + ")")
        out.append("srun --ntasks-per-node=1 torchrun --nnodes $SLURM_NNODES --nproc-per-node 8 \\")
        out.append("  --rdzv-backend c10d --rdzv-endpoint $(hostname):29500 \\")
        out.append('  pretrain_gpt.py "${MODEL_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${EXTRA_ARGS[@]}" \\')
        out.append('  --save "$CKPT_DIR" --load "$CKPT_DIR"')
    elif style == "string":
        out.append('CMD="torchrun --nnodes $SLURM_NNODES --nproc-per-node 8 pretrain_gpt.py \\')
        for f in model + par + extra:
            out.append(f"  {f} \\")
        out.append('  --save $CKPT_DIR"')
        out.append('srun --ntasks-per-node=1 bash -c "$CMD"')
    else:
        out.append("srun --ntasks-per-node=1 bash <<EOF")
        out.append("torchrun --nnodes \\$SLURM_NNODES --nproc-per-node 8 pretrain_gpt.py \\")
        for f in model + par + extra:
            out.append(f"  {f} \\")
        out.append("  --save $CKPT_DIR")
        out.append("EOF")
    return "\n".join(out) + "\n"


def yaml_config(r, i, mistake):
    layers, hidden, ffn, heads, groups = r.choice(MODELS)
    tp, pp, cp, nodes = layout(r, mistake)
    seq = r.choice([2048, 4096, 8192])
    out = ["name: megatron_gpt", "trainer:", f"  num_nodes: {nodes}", "  devices: 8", "  accelerator: gpu",
           "  precision: bf16-mixed", "  max_steps: 300000", "  log_every_n_steps: 10", "  val_check_interval: 2000",
           "exp_manager:", "  explicit_log_dir: /results", "  resume_if_exists: true", "  checkpoint_callback_params:",
           "    monitor: val_loss", "    save_top_k: 10", "model:", "  micro_batch_size: 1",
           f"  global_batch_size: {r.choice([256, 512, 1024])}", f"  tensor_model_parallel_size: {tp}",
           f"  pipeline_model_parallel_size: {pp}", f"  context_parallel_size: {cp}",
           f"  sequence_parallel: {'true' if tp > 1 else 'false'}", f"  encoder_seq_length: {seq}",
           "  max_position_embeddings: ${.encoder_seq_length}", f"  num_layers: {layers}",
           f"  hidden_size: {hidden}", f"  ffn_hidden_size: {ffn}", f"  num_attention_heads: {heads}",
           f"  num_query_groups: {groups}", "  init_method_std: 0.008", "  normalization: rmsnorm",
           "  activation: fast-swiglu", "  optim:", "    name: distributed_fused_adam", "    lr: 3e-4",
           "    weight_decay: 0.1", "    sched:", "      name: CosineAnnealing", "      warmup_steps: 2000",
           "  data:", "    data_prefix:"]
    while sum(len(l) + 1 for l in out) < r.randint(2000, 16000):
        n = len(out)
        out.append(f"    - {r.random():.3f}")
        out.append(f"    - /lustre/datasets/pile/shard_{n:05d}_text_document")
    out += ["    seq_length: ${model.encoder_seq_length}", "    num_workers: 2"]
    return "\n".join(out) + "\n"


def python_recipe(r, i, mistake):
    layers, hidden, ffn, heads, groups = r.choice(MODELS)
    tp, pp, cp, nodes = layout(r, mistake)
    out = ["from megatron.bridge.recipes.llama import llama3_8b_pretrain_config", "",
           "", f"def pretrain_config_{i}(nodes: int = {nodes}):",
           "    cfg = llama3_8b_pretrain_config()",
           f"    cfg.model.tensor_model_parallel_size = {tp}",
           f"    cfg.model.pipeline_model_parallel_size = {pp}",
           f"    cfg.model.context_parallel_size = {cp}",
           f"    cfg.model.sequence_parallel = {tp > 1}",
           f"    cfg.model.num_layers = {layers}",
           f"    cfg.model.hidden_size = {hidden}",
           f"    cfg.model.num_attention_heads = {heads}",
           f"    cfg.train.global_batch_size = {r.choice([256, 512, 1024])}",
           "    cfg.train.micro_batch_size = 1",
           "    cfg.optimizer.lr = 3e-4", "    return cfg", ""]
    k = 0
    while sum(len(l) + 1 for l in out) < r.randint(2000, 12000):
        k += 1
        out += [f"def helper_{k}(path: str, weight: float = {r.random():.2f}) -> dict:",
                f'    """Data blend entry {k}."""',
                f'    return {{"path": path, "weight": weight, "split": "99,1,0", "index": {k}}}', ""]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.files):
        kind = ("sbatch", "yaml", "py")[i % 3]
        mistake = r.choice([None, None, "tp", "world"])
        text = {"sbatch": sbatch, "yaml": yaml_config, "py": python_recipe}[kind](r, i, mistake)
        sub = os.path.join(a.out, f"group{i // 200:02d}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"job{i:05d}.{kind}"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
