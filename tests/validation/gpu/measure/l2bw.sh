#!/usr/bin/env bash
# Runs l2bw.cu (L2 bandwidth by load path, active SM count and TMA multicast) on the GPU this
# runs on, with the clocks nvidia-smi reports every 200 ms. Usage: l2bw.sh OUTDIR [round2|...|round8]
# (round2: TMA issue variants; round3: the LD path's ceiling; round4: by %smid; round5: by chunk pattern; round6: per SM; round7: TMA, spinning wait; round8: 2D tensor TMA; README.md "L2 bandwidth by path")
set -u
out=${1:?usage: l2bw.sh OUTDIR [round2]}
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
