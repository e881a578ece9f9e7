#!/usr/bin/env bash
# Measures zoo networks layer by layer (networks.py: per-layer CUDA graphs; networks_flow.py:
# whole forward passes with real data flow) with nvidia-smi sampling the SM clock and
# board power every 100 ms. Usage: networks.sh OUTDIR
set -u
out=${1:?usage: networks.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$out/networks_env.txt" 2>&1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())" >> "$out/networks_env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 100 > "$out/networks_clocks.csv" 2>&1 &
smi=$!
PYTHONUNBUFFERED=1 timeout 300 python3 "$here/networks.py" "$out" 2>&1 | tee "$out/networks.log"
PYTHONUNBUFFERED=1 timeout 300 python3 "$here/networks_flow.py" "$out" 2>&1 | tee "$out/networks_flow.log"
kill $smi 2>/dev/null
exit 0
