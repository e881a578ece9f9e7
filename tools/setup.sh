#!/usr/bin/env bash
# Installs the Debian 12 packages Systole needs (only those missing), then
# configures and builds the project in ./build.  Idempotent: safe to re-run.
#
#   tools/setup.sh            install + configure + build (Release); simrun is build/bin/simrun
#   tools/setup.sh --test     the same, then run the whole test suite (ctest)
#   tools/setup.sh --deps     install packages only
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(g++ cmake ninja-build pkg-config libsystemc-dev libboost-program-options-dev
          libhdf5-dev hdf5-tools libfmt-dev catch2 libyaml-cpp-dev openmpi-bin libopenmpi-dev
          python3-h5py python3-pandas python3-matplotlib)  # the last three: tools/systole

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
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if [ "${1:-}" = "--test" ]; then
  cmake --build "$build" -j "$jobs"
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
else
  cmake --build "$build" -j "$jobs" --target simrun systole-trace
fi
