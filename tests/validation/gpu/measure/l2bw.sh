#!/usr/bin/env bash
# Runs l2bw.cu (L2 bandwidth by load path, active SM count and TMA multicast) on the GPU this
# runs on, with the clocks nvidia-smi reports every 200 ms. Usage: l2bw.sh OUTDIR [roundN]
# Rounds (tests/validation/gpu/README.md, "L2 bandwidth by path and by active SMs"): none, the
# first; round2 TMA issue variants; round3 the LD path's ceiling; round4 SMs chosen by %smid;
# round5 chunk patterns; round6 each SM's rate; round7 TMA with a spinning wait; round8 2D tensor
# TMA; round9 one batch of 2D copies (prepared 2026-11-28, not yet run on a GPU).
set -u
out=${1:?usage: l2bw.sh OUTDIR [roundN]}
round=${2:-}
name=l2bw${round:+_$round}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; nvcc --version | tail -1; } \
  > "$out/${name}_env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 200 > "$out/${name}_clocks.csv" 2>&1 &
smi=$!
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/l2bw "$here/l2bw.cu" 2> "$out/${name}.err" &&
  timeout 240 /tmp/l2bw $round 2>> "$out/${name}.err" | tee "$out/${name}.csv"
echo "rc=$?" >> "$out/${name}.err"
kill $smi 2>/dev/null
exit 0
