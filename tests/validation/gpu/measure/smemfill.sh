#!/usr/bin/env bash
# Runs smemfill.cu (does a cp.async or a TMA fill take shared-memory bandwidth from ldmatrix?)
# on the GPU this runs on, then, where Nsight Compute is installed, reads the L1TEX data pipe's
# shared-memory wavefronts of the ldsm+cpasync case (case 5) on one SM. Usage: smemfill.sh OUTDIR
# What the device assumes and why: models/gpu_sm/README.md, rule 4 ("cp.async fills share the
# data pipe"); the numbers this gives go beside it (prepared 2026-11-28, not yet run on a GPU).
set -u
out=${1:?usage: smemfill.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -1; } \
  > "$out/smemfill_env.txt" 2>&1
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/smemfill "$here/smemfill.cu" \
  2> "$out/smemfill.err" &&
  timeout 120 /tmp/smemfill 2>> "$out/smemfill.err" | tee "$out/smemfill.csv"
echo "rc=$?" >> "$out/smemfill.err"
if command -v ncu > /dev/null; then
  timeout 180 ncu --csv --launch-skip 1 --launch-count 1 --metrics \
    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,sm__sass_data_bytes_mem_shared_op_ldsm.sum,sm__sass_data_bytes_mem_shared_op_ldgsts.sum,sm__cycles_elapsed.max \
    /tmp/smemfill 5 1 > "$out/smemfill_ncu.csv" 2>&1
  echo "ncu rc=$?" >> "$out/smemfill.err"
fi
exit 0
