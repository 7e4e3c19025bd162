# Site environment shared by the training scripts of this folder: sourced, never run.
export NCCL_DEBUG=WARN
export NCCL_IB_TIMEOUT=22
export NCCL_SOCKET_IFNAME=ib0
export CUDA_DEVICE_MAX_CONNECTIONS=1
export OMP_NUM_THREADS=8
export GPUS_PER_NODE=8
export DATA_ROOT=/lustre/datasets/pile-gpt2
export CKPT_ROOT=/lustre/checkpoints
