#!/usr/bin/env bash
# Layering rule (DESIGN.md §2): only SystemC modules include <systemc>. Files allowed to are the
# *_module.* shells, models/common/{scoreboard,unit_module,memory_if}.*, tests/sc and the
# benchmarks that drive modules the way tests/sc does (tools/bench/*_sc_bench.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(grep -rlE '#include <(systemc|tlm)' sim models workloads tools \
      | grep -vE '_module\.(h|cpp)$|models/common/(scoreboard|unit_module|memory_if)\.(h|cpp)$' \
      | grep -vE '^tools/bench/[a-z_]+_sc_bench\.cpp$' || true)
if [ -n "$bad" ]; then
  echo "these files include SystemC but sit below the module layer:"; echo "$bad"; exit 1
fi
echo "layering OK"
