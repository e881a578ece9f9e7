// The mapper's HBM efficiency by piece length: measured on the memory's own timing model, so it
// shows DRAM row locality (short pieces open a row per piece) and none under the bandwidth model.
#include <catch2/catch.hpp>

#include "tests/support/tiny_chip.h"
#include "workloads/mapping/hbm_efficiency.h"

using namespace systole;
using test::chip_with;

TEST_CASE("HBM efficiency: the bank-level model shows row locality", "[unit][mapping][hbm]") {
  const workloads::HbmEfficiency e(chip_with("chip: {hbm: {model: bank}}"));
  const double contiguous = e.of(1 << 20, true);
  INFO("contiguous " << contiguous << ", 512 B " << e.of(512, false) << ", 1 KiB "
                     << e.of(1024, false) << ", 4 KiB " << e.of(4096, false) << ", 16 KiB "
                     << e.of(16384, false));
  // A stream reaches 85-95% of peak on real HBM (FACTS.md §C.2), the bank model likewise
  // (tests/unit/hbm/test_hbm_system.cpp); short pieces lose to row activations.
  CHECK(contiguous > 0.8);
  CHECK(contiguous <= 1.0);
  CHECK(e.of(1024, false) < contiguous);
  CHECK(e.of(512, false) <= e.of(16384, false));
  // Between probes the value lies between its neighbours'.
  const double lo = e.of(2048, false), hi = e.of(4096, false);
  CHECK(e.of(3000, false) >= std::min(lo, hi));
  CHECK(e.of(3000, false) <= std::max(lo, hi));
}

TEST_CASE("HBM efficiency: the bandwidth model has no locality", "[unit][mapping][hbm]") {
  const workloads::HbmEfficiency e(chip_with("chip: {hbm: {model: bandwidth}}"));
  CHECK(e.of(512, false) == 1.0);
  CHECK(e.of(1 << 20, true) == 1.0);
}
