#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined; the `sanitize`
# preset in CMakePresets.json, build dir ./build-sanitize) and runs one of them, or each in turn.
#
#   tools/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#     TARGET: experiment | workload | scalesim_cfg | scalesim_topology | results | all
#   e.g. tools/fuzz.sh workload 60        tools/fuzz.sh all 20        tools/fuzz.sh results 0 -runs=1000000
#
# Seeds come from tests/fuzz/corpus/TARGET (left unchanged); what the fuzzer adds goes to
# build-sanitize/fuzz/corpus-TARGET, crashing inputs to build-sanitize/fuzz/artifacts/. Exits
# non-zero on a crash, leak, timeout (10 s per input) or an input needing more than 2 GB.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets=(experiment workload scalesim_cfg scalesim_topology results)
target="${1:?usage: tools/fuzz.sh TARGET SECONDS [libFuzzer flags...] (TARGET: ${targets[*]} | all)}"
seconds="${2:?usage: tools/fuzz.sh TARGET SECONDS [libFuzzer flags...]}"
shift 2
build="${SYSTOLE_SANITIZE_DIR:-$here/build-sanitize}"
if [ "$target" = all ]; then
  run=("${targets[@]}")
else
  [[ " ${targets[*]} " == *" $target "* ]] || { echo "fuzz.sh: unknown target '$target' (${targets[*]})" >&2; exit 2; }
  run=("$target")
fi

command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang (apt-get install clang)" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$here" --preset sanitize -B "$build" "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${run[@]/#/fuzz_}"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export HDF5_USE_FILE_LOCKING=FALSE
mkdir -p "$build/fuzz/artifacts"
for t in "${run[@]}"; do
  corpus="$build/fuzz/corpus-$t"
  mkdir -p "$corpus"
  echo "fuzz.sh: $t for ${seconds} s"
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz/artifacts/$t-" "$@" \
    "$corpus" "$here/tests/fuzz/corpus/$t"
done
