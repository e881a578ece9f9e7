#!/usr/bin/env bash
# Sensitivity of TPU v4 results to the preset's unpublished constants: runs
# configs/tpuv4_sensitivity.yaml (each `# ASSUMPTION:` of configs/presets/tpuv4_chip.yaml at
# the low and the high end of its plausible range, one at a time) and prints a Markdown table:
# per assumption, its preset, low and high values and the % change of each workload's total
# cycles against the preset (low / high). The table of README.md "Sensitivity to assumptions"
# is this script's output.
#
#   tools/bench/sensitivity.sh [build dir] [extra simrun arguments, e.g. -p key=value]
#   JOBS=N (default 2) worker processes
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$here/build}"
shift $(($# > 0 ? 1 : 0))
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$build/bin/simrun" "$here/configs/tpuv4_sensitivity.yaml" -o "$tmp/sensitivity.h5" \
  --jobs "${JOBS:-2}" "$@" > "$tmp/out.txt"
python3 - "$tmp/out.txt" <<'PY'
import re, sys
from collections import OrderedDict

# simrun's sweep summary: a header "point <swept paths...> status cycles ...", then one row per
# point (values have no spaces).
lines = open(sys.argv[1]).read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("point ") and " status " in l)
cols = lines[head].split()
paths = cols[1:cols.index("status")]
labels, cycles, failed = {}, {}, []
for l in lines[head + 2:]:
    t = l.split()
    if not t or not t[0].isdigit():
        break
    pid = int(t[0])
    labels[pid] = OrderedDict(zip(paths, t[1:1 + len(paths)]))
    if t[1 + len(paths)] != "ok":
        failed.append(pid)
        continue
    cycles[pid] = int(t[2 + len(paths)].replace(",", ""))
if failed:
    sys.exit(f"sensitivity: points {failed} failed (see simrun's output)")

def workload(a):
    name = a["workload.file"].rsplit("/", 1)[-1].removesuffix(".yaml")
    return f"{name} b{a['workload.params.batch']}"

# Per workload, its first point is the preset (column 0 of the zip); every other point differs
# from it in one assumption (keys that move together, like cmem.latency and write_latency, count
# as one, named by the first).
base, rows, order = {}, OrderedDict(), []
for pid in sorted(labels):
    a = labels[pid]
    w = workload(a)
    if w not in base:
        base[w] = (a, cycles[pid])
        order.append(w)
        continue
    ref, ref_cycles = base[w]
    diff = [k for k in a if not k.startswith("workload.") and a[k] != ref[k]]
    if not diff:
        sys.exit(f"sensitivity: point {pid} changes no assumption")
    k = diff[0]
    row = rows.setdefault(tuple(diff), {"preset": ref[k], "values": [], "change": {}})
    if a[k] not in row["values"]:
        row["values"].append(a[k])
    row["change"].setdefault(w, []).append(100.0 * (cycles[pid] - ref_cycles) / ref_cycles)

print("| assumption | preset | low / high | " + " | ".join(order) + " |")
print("|---|---|---|" + "---|" * len(order))
for k, row in rows.items():
    cells = [" / ".join(f"{c:+.1f}%" for c in row["change"].get(w, [])) for w in order]
    name = " + ".join(x.removeprefix("system.chip.") for x in k)
    print(f"| {name} | {row['preset']} | {' / '.join(row['values'])} | " + " | ".join(cells) + " |")
print()
print("Preset cycles: " + ", ".join(f"{w} {base[w][1]:,}" for w in order) + ".")
PY
