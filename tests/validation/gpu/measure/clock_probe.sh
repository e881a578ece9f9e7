#!/usr/bin/env bash
# clock_probe.py with nvidia-smi's clocks and power every 100 ms. Usage: clock_probe.sh OUTDIR
set -u
out=${1:?usage: clock_probe.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 100 > "$out/clock_probe_clocks.csv" 2>&1 &
smi=$!
PYTHONUNBUFFERED=1 python3 "$here/clock_probe.py" "$out" 2>&1 | tee "$out/clock_probe.log"
kill $smi 2>/dev/null
exit 0
