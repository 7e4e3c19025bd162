"""Writes a realistic SLURM launch script of about N lines (default 2,000) to stdout: #SBATCH headers,
environment set-up, helper functions, arrays of Megatron-LM flags with comments, a data-blend loop,
and a torchrun launch through srun. Deterministic."""
import sys

def script(lines=2000):
    out = ["#!/bin/bash", "#SBATCH --job-name=gpt-pretrain", "#SBATCH --nodes=16", "#SBATCH --ntasks-per-node=1",
           "#SBATCH --gpus-per-node=8", "#SBATCH --cpus-per-task=96", "#SBATCH --time=04:00:00",
           "#SBATCH --exclusive", "#SBATCH --output=logs/%x_%j.out", "set -euo pipefail", "",
           "export CUDA_DEVICE_MAX_CONNECTIONS=1", "export NCCL_IB_QPS_PER_CONNECTION=4",
           'TP=${TP:-4}', 'PP=${PP:-4}', 'CP=${CP:-1}', 'MBS=1', 'GBS=1024', 'SEQ=4096', ""]
    i = 0
    while len(out) < lines - 40:
        i += 1
        block = [
            f"# --- data shard group {i} ---",
            f"prepare_shard_{i}() {{",
            f'  local src="/lustre/datasets/pile/shard_{i:05d}"',
            f'  if [[ -d "$src" ]]; then',
            f'    echo "using $src" >&2',
            f"  else",
            f'    echo "missing $src" >&2',
            f"  fi",
            f"}}",
            f"DATA_PATH+=({i % 7 + 1}.0 /lustre/datasets/pile/shard_{i:05d}_text_document)  # weight, prefix",
            "",
        ]
        out.extend(block)
    out += [
        "GPT_ARGS=(",
        "  --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672",
        "  --num-attention-heads 64 --group-query-attention --num-query-groups 8",
        "  --seq-length $SEQ --max-position-embeddings $SEQ",
        "  --micro-batch-size $MBS --global-batch-size $GBS",
        "  --lr 1.5e-4 --min-lr 1.5e-5 --lr-decay-style cosine --weight-decay 0.1",
        "  --bf16 --use-distributed-optimizer --overlap-grad-reduce",
        ")",
        "PARALLEL_ARGS=(",
        "  --tensor-model-parallel-size $TP",
        "  --pipeline-model-parallel-size $PP",
        "  --context-parallel-size $CP",
        "  --sequence-parallel",
        ")",
        "srun --ntasks-per-node=1 torchrun --nnodes $SLURM_NNODES --nproc-per-node 8 \\",
        "  --rdzv-backend c10d --rdzv-endpoint $(hostname):29500 \\",
        '  pretrain_gpt.py "${GPT_ARGS[@]}" "${PARALLEL_ARGS[@]}" --data-path "${DATA_PATH[@]}"',
    ]
    return "\n".join(out) + "\n"

if __name__ == "__main__":
    sys.stdout.write(script(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
