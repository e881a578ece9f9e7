#!/usr/bin/env bash
# Measures the GPU this runs on, for tests/validation/gpu (see README.md there): PyTorch timings
# (measure.py), memory-hierarchy microbenchmarks (membench.cu) and the clocks nvidia-smi reports
# every 200 ms while they run. Usage: measure.sh OUTDIR
set -u
out=${1:?usage: measure.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvidia-smi -q > "$out/smi_q.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 200 > "$out/smi_clocks.csv" 2>&1 &
smi=$!
(nvcc -O3 -arch=sm_90a -o /tmp/membench "$here/membench.cu" && /tmp/membench > "$out/membench.csv") \
  2> "$out/membench.err" &
build=$!
wait $build  # the microbenchmarks run alone: nothing else on the GPU while they time
PYTHONUNBUFFERED=1 python3 "$here/measure.py" "$out" ${2:-} 2>&1 | tee "$out/measure.log"
kill $smi 2>/dev/null
exit 0
