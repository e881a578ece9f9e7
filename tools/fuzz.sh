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
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/tests/fuzz/lsan.supp}"
export HDF5_USE_FILE_LOCKING=FALSE
mkdir -p "$build/fuzz/artifacts"

# Each fuzz process works in a scratch folder it holds with flock (tests/fuzz/scratch_dir.h).
# One that dies (a crash, a timeout, the RSS limit: no atexit handler runs) leaves its folder
# to the next fuzz process; the last one's is removed here, with any other nobody holds.
remove_orphans() {
  local d
  for d in "${TMPDIR:-/tmp}"/systole-fuzz-locked-*; do
    [ -d "$d" ] || continue
    flock -n "$d" rm -rf -- "$d" || true
  done
}
trap remove_orphans EXIT

# The frame that made the memory an ASan report names: an overflowed heap block's allocation, or
# the stack frame holding an overflowed variable. libhdf5 writing past a buffer that Systole sized
# (H5Aread filling one uint64 from an attribute of several values did) is Systole's bug, though
# the write itself lies inside libhdf5.
owner_frame() {
  awk '/allocated by thread|is located in stack of thread/ { on = 1; next }
       on && /^ *$/ { exit }
       on && /^ +#[0-9]+ / && !/__interceptor_|__asan|operator new| in (malloc|calloc|realloc) | in std::|libstdc\+\+/ { print; exit }' <<<"$1"
}

# The frame an ASan/libFuzzer report blames: the first below the sanitizer, libFuzzer, the
# allocator, the string/memory interceptors and libc. "libhdf5" when it lies inside the HDF5
# library (not instrumented, not ours); "none" when the input no longer fails; "unattributed"
# when no frame is left (libFuzzer's RSS limit, checked from a thread of its own); "ours" also
# when libhdf5 overflowed a buffer that Systole's code made (owner_frame).
blamed_module() {
  local report frame
  # -timeout: an input that spins inside libhdf5 (one did: results_heap_spin.h5 in tests/data/fuzz)
  # would otherwise run for libFuzzer's default 1200 s before its stack is printed.
  report="$("$build/fuzz/fuzz_$1" -timeout=60 "$2" 2>&1)" && { echo none; return; }
  frame="$(grep -E '^ +#[0-9]+ ' <<<"$report" |
    grep -vE '__interceptor_|__asan|__sanitizer|__lsan|fuzzer::|libc\.so|sysdeps|csu/|libstdc\+\+|abort|raise| in (main|_start|__libc_start[a-z_]*|malloc|calloc|realloc|free|operator new|mem[a-z]*|str[a-z]*)[ (]' |
    head -1)"
  local owner
  owner="$(owner_frame "$report")"
  if [ -z "$frame" ]; then echo unattributed
  elif grep -q libhdf5 <<<"$frame" && ! grep -q systole:: <<<"$owner"; then echo libhdf5
  else echo ours; fi
}

status=0
for t in "${run[@]}"; do
  corpus="$build/fuzz/corpus-$t"
  mkdir -p "$corpus"
  echo "fuzz.sh: $t for ${seconds} s"
  flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
         -artifact_prefix="$build/fuzz/artifacts/$t-")
  if [ "$t" != results ]; then
    "$build/fuzz/fuzz_$t" "${flags[@]}" "$@" "$corpus" "$here/tests/fuzz/corpus/$t"
    continue
  fi
  # libhdf5 1.10 crashes on some corrupted files (H5HG_read copies a global heap object past
  # its buffer; H5T__conv_vlen allocates a corrupt 4 GiB length): simrun and systole-trace read
  # results through read_points_isolated (a child process) for that reason. Here the
  # in-process reader is fuzzed in libFuzzer's fork mode, which goes on after a crash; each
  # crash is then re-run and fails this script unless the frame it blames lies inside libhdf5.
  "$build/fuzz/fuzz_$t" "${flags[@]}" -fork=1 -ignore_crashes=1 -ignore_timeouts=0 "$@" \
    "$corpus" "$here/tests/fuzz/corpus/$t" || true
  hdf5=0
  for a in "$build/fuzz/artifacts"/results-*; do
    [ -e "$a" ] || continue
    blamed="$(blamed_module "$t" "$a")"
    if [ "$blamed" = libhdf5 ]; then
      hdf5=$((hdf5 + 1))
    elif [ "$blamed" = none ] || [ "$blamed" = unattributed ]; then
      echo "fuzz.sh: $a: $blamed (no longer fails, or an RSS limit with no stack)"
    else
      echo "fuzz.sh: FINDING in Systole's code: $a" >&2
      status=1
    fi
  done
  echo "fuzz.sh: results: $hdf5 input(s) crash inside libhdf5 (recorded, read in a child by simrun)"
done
exit $status
