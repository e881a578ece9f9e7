#!/usr/bin/env bash
# One lease's measurements of a held-out draw: heldout.sh (two passes, clocks every 200 ms),
# heldout_kernels.py (the kernels and their launch configurations), then clock_probe.sh on the
# draw's bf16 GEMMs and attention cases and the 8192^3 reference (the SM clock each sustains,
# for the power model). Usage: draw_lease.sh SHAPES_CSV OUTDIR (SHAPES_CSV a name in this folder).
set -u
shapes=${1:?usage: draw_lease.sh SHAPES_CSV OUTDIR}
out=${2:?usage: draw_lease.sh SHAPES_CSV OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export HELDOUT_SHAPES=$shapes PYTHONUNBUFFERED=1
bash "$here/heldout.sh" "$out" 2
python3 "$here/heldout_kernels.py" "$out" 2>&1 | tail -3
CLOCK_CASES=$(python3 - "$here/$shapes" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] in ("gemm", "attention")]
print(",".join("%s:%s" % (r["kind"], r["shape"]) for r in rows) + ",gemm:8192x8192x8192")
PY
)
export CLOCK_CASES
bash "$here/clock_probe.sh" "$out"
