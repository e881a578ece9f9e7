#!/usr/bin/env bash
# Measures the held-out shapes (heldout.py) with nvidia-smi's clocks logged every 200 ms.
# Usage: [HELDOUT_SHAPES=heldout2_shapes.csv] heldout.sh OUTDIR [PASSES]
set -u
out=${1:?usage: heldout.sh OUTDIR [PASSES]}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/env.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' >> "$out/env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 200 > "$out/clocks.csv" 2>&1 &
smi=$!
PYTHONUNBUFFERED=1 python3 "$here/heldout.py" "$out" "${2:-2}" 2>&1 | tee "$out/heldout.log"
kill $smi 2>/dev/null
exit 0
