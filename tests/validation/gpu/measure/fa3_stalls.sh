#!/usr/bin/env bash
# What cuDNN's sm90 flash kernel (PyTorch SDPA's cudnn backend, the device's FA-3 class) does per
# clock, for tests/validation/gpu/README.md "FlashAttention at every measured and published
# sequence length": the device runs its main loop at 94% of the tensor peak per clock, the
# kernel at ~72% (non-causal) and ~58% (causal) at b2 h16 s8192 d128. For that shape, causal and
# not, and PyTorch's FA-2 beside it, Nsight Compute gives: the launch (grid, block, registers,
# shared memory: is the kernel persistent, how many CTAs per SM), the tensor pipe's active share
# and the instruction counts per pipe (MUFU = xu, FP32 = fma, ALU), the warp stall reasons per
# issued instruction, and the per-opcode instruction counts (InstructionStats). ncu locks the
# clocks to base by default: every figure wanted here is per cycle. Three ncu passes per kernel,
# so that a metric name this ncu lacks spoils only its own pass. Usage: fa3_stalls.sh OUTDIR
# (about 2 minutes). Exits 0 with a note when no ncu is found.
set -u
out=${1:?usage: fa3_stalls.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute*/ncu /usr/local/NVIDIA-Nsight-Compute*/ncu 2>/dev/null | head -1)
if [ -z "$ncu" ]; then
  echo "no ncu found" | tee "$out/no_ncu.txt"
  exit 0
fi
"$ncu" --version > "$out/ncu_version.txt" 2>&1
nvidia-smi -q -d CLOCK,POWER > "$out/smi.txt" 2>&1
launch="launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem"
base="sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,smsp__inst_executed.sum,sm__ctas_launched.sum,smsp__warps_launched.sum"
pipes="sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_uniform.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active"
stalls="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for kern in cudnn flash; do
  for c in 0 1; do
    tag="${kern}_c${c}"
    args=(python3 "$here/sdpa_one.py" "$kern" "$c" 2 16 8192 128)
    k=$([ "$kern" = cudnn ] && echo "regex:flash_fprop" || echo "regex:flash_fwd")
    common=(--target-processes all -k "$k" --launch-skip 3 --launch-count 1 --csv)
    "$ncu" "${common[@]}" --metrics "$launch,$base,$stalls" "${args[@]}" > "$out/${tag}_stalls.csv" 2> "$out/${tag}_stalls.err"
    echo "$tag stalls rc=$?"
    "$ncu" "${common[@]}" --metrics "$base,$pipes" "${args[@]}" > "$out/${tag}_pipes.csv" 2> "$out/${tag}_pipes.err"
    echo "$tag pipes rc=$?"
    "$ncu" "${common[@]}" --section InstructionStats --print-details all "${args[@]}" > "$out/${tag}_opcodes.csv" 2> "$out/${tag}_opcodes.err"
    echo "$tag opcodes rc=$?"
  done
done
exit 0
