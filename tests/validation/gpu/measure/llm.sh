#!/usr/bin/env bash
# Measures LLM blocks (llm.py: GPT-3 175B and Llama-2-70B decode and prefill, layer by layer and
# as one graph, and a GEMV sweep) with nvidia-smi sampling the SM clock and
# board power every 100 ms. Usage: llm.sh OUTDIR
set -u
out=${1:?usage: llm.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$out/llm_env.txt" 2>&1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())" >> "$out/llm_env.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 100 > "$out/llm_clocks.csv" 2>&1 &
smi=$!
PYTHONUNBUFFERED=1 timeout 300 python3 "$here/llm.py" "$out" 2>&1 | tee "$out/llm.log"
kill $smi 2>/dev/null
exit 0
