#!/usr/bin/env bash
# Warp stall reasons of PyTorch's FA-2 forward kernel, causal against non-causal (b17 h16 s512
# d128, draw 1's short causal row), from Nsight Compute's stall-reason metrics (per issued
# instruction), to test whether the causal kernel's per-CTA excess is instruction fetch ("No
# Instruction" stalls; tests/validation/gpu/README.md, "FA-2's short causal rows"). Usage:
# fa2_stalls.sh OUTDIR. Exits 0 with a note when no ncu is found or it may not read counters.
set -u
out=${1:?usage: fa2_stalls.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute*/ncu /usr/local/NVIDIA-Nsight-Compute*/ncu 2>/dev/null | head -1)
if [ -z "$ncu" ]; then
  python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' > "$out/no_ncu.txt" 2>&1
  find / -name 'ncu' -type f 2>/dev/null | head >> "$out/no_ncu.txt"
  echo "no ncu found" | tee -a "$out/no_ncu.txt"
  exit 0
fi
"$ncu" --version > "$out/ncu_version.txt" 2>&1
for c in 1 0; do
  "$ncu" --target-processes all -k regex:flash_fwd --launch-skip 3 --launch-count 1 \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,sm__cycles_elapsed.max,gpu__time_duration.sum,smsp__warps_launched.sum,sm__ctas_launched.sum" \
    --csv python3 "$here/fa2_one.py" "$c" > "$out/fa2_stalls_c$c.csv" 2> "$out/fa2_stalls_c$c.err"
  echo "causal=$c rc=$?"
done
exit 0
