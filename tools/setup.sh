#!/usr/bin/env bash
# Installs the Debian 12 packages Systole needs (only those missing), then
# configures and builds the project in ./build.  Idempotent: safe to re-run.
#
#   tools/setup.sh            install + configure + build (Release); simrun is build/bin/simrun
#   tools/setup.sh --test     the same, then run the whole test suite (ctest)
#   tools/setup.sh --deps     install packages only
#   tools/setup.sh --sanitize every component's unit and SystemC tests (all but the e2e,
#                             validation and python ones) built with clang under ASan + UBSan
#                             (the `sanitize` preset, ./build-sanitize), then each fuzz target
#                             for SYSTOLE_FUZZ_SECONDS (default 20) s (tools/fuzz.sh)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(g++ cmake ninja-build pkg-config libsystemc-dev libboost-program-options-dev
          libhdf5-dev hdf5-tools libfmt-dev catch2 libyaml-cpp-dev openmpi-bin libopenmpi-dev
          python3-h5py python3-pandas python3-matplotlib)  # the last three: tools/systole
# --sanitize: clang with its sanitizer and libFuzzer runtimes (a recommends, not a dependency).
[ "${1:-}" = "--sanitize" ] && packages+=(clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing missing packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "--deps" ] && exit 0

build="${SYSTOLE_BUILD_DIR:-$here/build}"
jobs="$(nproc 2>/dev/null || echo 2)"

if [ "${1:-}" = "--sanitize" ]; then
  sbuild="${SYSTOLE_SANITIZE_DIR:-$here/build-sanitize}"
  [ -f "$sbuild/CMakeCache.txt" ] || cmake -S "$here" --preset sanitize -B "$sbuild" >/dev/null
  cmake --build "$sbuild" -j "$jobs" --target component_tests simrun
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS="suppressions=$here/tests/fuzz/lsan.supp" \
    ctest --test-dir "$sbuild" -LE '^(e2e|validation|python)$' -E '_NOT_BUILT-' \
      --output-on-failure -j "$jobs"
  SYSTOLE_SANITIZE_DIR="$sbuild" "$here/tools/fuzz.sh" all "${SYSTOLE_FUZZ_SECONDS:-20}"
  exit 0
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if [ "${1:-}" = "--test" ]; then
  cmake --build "$build" -j "$jobs"
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
else
  cmake --build "$build" -j "$jobs" --target simrun systole-trace
fi
