// HBM configuration: presets fill the organisation and timings, keys override them one by one,
// --describe shows every preset's value, and bad presets are errors with exact messages.
#include <catch2/catch.hpp>

#include <sstream>

#include "models/hbm/hbm_config.h"
#include "sim/config/node.h"
#include "tests/support/config_error.h"

using namespace systole;
using models::HbmConfig;

namespace {

HbmConfig load(const std::string& yaml) {
  return test::load_section<HbmConfig>(yaml, "hbm.yaml", "hbm");
}

std::string error(const std::string& yaml) {
  return test::config_error([&] { load(yaml); });
}

}  // namespace

TEST_CASE("HBM presets fill organisation and timings, keys override one by one",
          "[unit][hbm][config]") {
  const HbmConfig v4 = load("{}");  // the schema defaults: TPU v4, 4 stacks of HBM2
  CHECK(v4.preset == models::HbmPreset::kHbm2);
  CHECK(v4.model == models::HbmModel::kBank);
  CHECK(v4.total_channels() == 32);
  CHECK(v4.atom_bytes() == 32);
  CHECK(v4.rows() == 32768);
  CHECK(v4.t_rcd_rd == 17);
  CHECK(v4.tck_ps() == Approx(833.333));
  // 4 stacks x 8 channels x 128 bit x 2.4 Gb/s (FACTS.md §A.3: JAX lists 1.23e12 B/s).
  CHECK(v4.bandwidth.value() == Approx(1.2288e12));

  const HbmConfig h3 = load("{preset: hbm3, t_cl: 25, stacks: 5, model: bandwidth}");
  CHECK(h3.t_cl == 25);
  CHECK(h3.t_rcd_rd == 31);  // the rest from the preset
  CHECK(h3.channels == 16);
  CHECK(h3.bandwidth.value() == Approx(5 * 819.2e9));  // H100-like: 5 stacks of HBM3

  // The bank model takes a bandwidth as a data rate: cycle timings, a faster clock.
  const HbmConfig fast = load("{bandwidth: 2.4576TB/s}");
  CHECK(fast.data_rate == Approx(4800));
  CHECK(fast.t_cl == 17);
  const HbmConfig bw = load("{model: bandwidth, bandwidth: 1TB/s}");
  CHECK(bw.data_rate == Approx(2400));  // the bandwidth model leaves the device alone
}

TEST_CASE("HBM --describe lists each preset's value", "[unit][hbm][config]") {
  std::ostringstream os;
  HbmConfig::schema().describe(os);
  const std::string d = os.str();
  CHECK(d.find("tCL: read command to first data (hbm2 17, hbm2e 23, hbm3 20, hbm3e 30, "
               "ddr3_2133 12)") != std::string::npos);
  CHECK(d.find("data rate per pin (hbm2 2400, hbm2e 3200, hbm3 6400, hbm3e 9600, ddr3_2133 "
               "2133)") != std::string::npos);
  CHECK(d.find("default preset") != std::string::npos);
}

TEST_CASE("HBM bad presets are errors with exact messages", "[unit][hbm][config]") {
  CHECK(error("{t_rcd_rd: -3}") ==
        "hbm.yaml:1:12: hbm.t_rcd_rd: expected an integer in [0, 10000000], got -3");
  CHECK(error("{t_ras: 10}") ==
        "hbm.yaml:1:9: hbm.t_ras: tRAS (10 tCK) is shorter than tRCD (17 tCK): a row must stay "
        "open at least until its first column command");
  CHECK(error("{preset: hbm3, t_rc: 50}") ==
        "hbm.yaml:1:22: hbm.t_rc: tRC (50 tCK) is shorter than tRAS + tRP (45 + 26 tCK)");
  CHECK(error("{capacity: 48GiB}") ==
        "hbm.yaml:1:12: hbm.capacity: 48 GiB gives 49152 rows per bank (32 channels x 2 "
        "pseudo-channels x 16 banks x 1024 B rows), not a power of two as the address mapping "
        "needs: try 32 GiB (4 stacks x 8 GiB) or 64 GiB (4 stacks x 16 GiB)");
  // Any stack count; the capacity is stacks x a stack's, so 5 stacks keep 8 GiB each at 40 GiB.
  // The error points at the key the user changed (issue 15), not at the section.
  CHECK(error("{stacks: 5}") ==
        "hbm.yaml:1:10: hbm.stacks: capacity 32 GiB gives 26214.4 rows per bank (40 channels x 2 "
        "pseudo-channels x 16 banks x 1024 B rows), not a power of two as the address mapping "
        "needs: try 20 GiB (5 stacks x 4 GiB) or 40 GiB (5 stacks x 8 GiB)");
  CHECK(error("{preset: hbm3, stacks: 5, capacity: 80GB}") ==
        "hbm.yaml:1:37: hbm.capacity: 74.5 GiB gives 30517.6 rows per bank (80 channels x 2 "
        "pseudo-channels x 16 banks x 1024 B rows), not a power of two as the address mapping "
        "needs: try 40 GiB (5 stacks x 8 GiB) or 80 GiB (5 stacks x 16 GiB)");
  CHECK(error("{stacks: 3, capacity: 1MiB}") ==
        "hbm.yaml:1:23: hbm.capacity: 1 MiB gives 1.33333 rows per bank (24 channels x 2 "
        "pseudo-channels x 16 banks x 1024 B rows), not a power of two as the address mapping "
        "needs: try 1.5 MiB (3 stacks x 512 KiB)");
  CHECK(error("{channels: 6, bank_groups: 3}") ==
        "hbm.yaml:1:28: hbm.bank_groups: 3 is not a power of two: the address mapping slices "
        "address bits, so it needs one");
  for (const char* ok :
       {"{stacks: 5, capacity: 40GiB}", "{stacks: 7, capacity: 56GiB}",
        "{preset: hbm3, stacks: 5, capacity: 80GiB}", "{stacks: 1, channels: 3, capacity: 3GiB}"})
    CHECK(error(ok) == "<no error>");
  CHECK(error("{preset: hbm4}") ==
        "hbm.yaml:1:10: hbm.preset: expected one of hbm2, hbm2e, hbm3, hbm3e, ddr3_2133, got "
        "'hbm4' (did you mean 'hbm2' or 'hbm3'?)");
  CHECK(error("{data_rate: 3200, bandwidth: 2TB/s}") ==
        "hbm.yaml:1:30: hbm.bandwidth: give the bank model either bandwidth or data_rate, not "
        "both (bandwidth sets the data rate)");
  CHECK(error("{address_mapping: ro_ba_co_bg_pc_xx}") ==
        "hbm.yaml:1:19: hbm.address_mapping: unknown field 'xx' in 'ro_ba_co_bg_pc_xx': expected "
        "each of ro, ba, bg, co, pc, ch once, separated by _ (MSB first)");
  CHECK(error("{write_drain_low: 0.9}") ==
        "hbm.yaml:1:19: hbm.write_drain_low: the drain stops at 0.9 of the write queue, which "
        "must be below where it starts (write_drain_high 0.8)");
  // The bandwidth model slices nothing: any capacity and stack count will do.
  CHECK(error("{model: bandwidth, stacks: 5, capacity: 80GB}") == "<no error>");
}
