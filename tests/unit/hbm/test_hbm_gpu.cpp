// GPU memories on the bank-level model (configs/presets/memory/*.yaml, the `hbm:` sections the
// GPU presets will include with `base:`): their organisation gives the published peak, and a
// large sequential read and a copy (read + write) reach bandwidths inside bounds stated below
// before they were measured. The measured fractions sit beside the STREAM measurements of the
// real GPUs in models/hbm/README.md; nothing is tuned to them.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/hbm/hbm_timing.h"
#include "sim/config/node.h"
#include "tests/support/paths.h"

using namespace systole;
using namespace systole::models;

namespace {

struct Gpu {
  const char* file;
  double peak;  ///< B/s, published
  std::int64_t stacks, channels;
  std::uint64_t capacity;
};

// Peaks: A100-SXM4-40GB 1555 GB/s (NVIDIA A100 whitepaper §4.6.1: 5120 bit at 1215 MHz DDR =
// 1555.2 GB/s); A100-SXM4-80GB 2039 GB/s (NVIDIA A100 datasheet); H100 SXM5 3.35 TB/s (NVIDIA
// H100 datasheet). Five stacks each (A100 whitepaper §4.6.1, H100 whitepaper §4).
const Gpu kGpus[] = {
    {"a100_40gb_hbm2.yaml", 1555.2e9, 5, 40, 40ull << 30},
    {"a100_80gb_hbm2e.yaml", 2039e9, 5, 40, 80ull << 30},
    {"h100_sxm5_80gb_hbm3.yaml", 3.35e12, 5, 80, 80ull << 30},
};

/// The file as a GPU preset would include it: `hbm: {base: memory/<file>}`.
HbmConfig load(const char* file) {
  const std::string dir = test::source_dir() + "/configs/presets/memory/";
  const config::Node n = config::resolve_bases(
      config::parse_yaml("base: " + dir + file + "\n", std::string(file) + " (included)"));
  return HbmConfig::schema().load(n, "system.chip.hbm");
}

/// Achieved bandwidth over the peak: `bytes` read from 0, and with `copy` the same bytes written
/// at half the capacity at once, each stream from its own port of 128-byte requests (a GPU L2
/// line) with 16384 in flight (2 MiB, several times latency x bandwidth).
double efficiency(const HbmConfig& cfg, std::uint64_t bytes, bool copy) {
  HbmTiming h(cfg);
  const auto rd = h.add_port(16384, 128);
  h.submit(rd, DmaDescriptor::linear(0, bytes), false);
  if (copy) {
    const auto wr = h.add_port(16384, 128);
    h.submit(wr, DmaDescriptor::linear(cfg.capacity.value() / 2, bytes), true);
  }
  const double moved = static_cast<double>(copy ? 2 * bytes : bytes);
  return moved / (static_cast<double>(h.run_until_idle()) * h.peak_bytes_per_cycle());
}

}  // namespace

TEST_CASE("GPU HBM configurations give the published organisation and peak", "[unit][hbm][gpu]") {
  for (const Gpu& g : kGpus) {
    INFO(g.file);
    const HbmConfig c = load(g.file);
    CHECK(c.model == HbmModel::kBank);
    CHECK(c.stacks == g.stacks);
    CHECK(c.total_channels() == g.channels);
    CHECK(c.capacity.value() == g.capacity);
    CHECK(c.organisation_peak() == Approx(g.peak).epsilon(1e-9));
    CHECK(c.bandwidth.value() == Approx(g.peak).epsilon(1e-9));
    CHECK(HbmAddressMap(c).capacity() == g.capacity);
  }
  // H100: the hbm3 preset's timings in ns, re-derived at its clock (ceil; tREFI rounded down).
  const HbmConfig h = load("h100_sxm5_80gb_hbm3.yaml");
  const HbmConfig p = HbmConfig::from_preset(HbmPreset::kHbm3);
  const auto at = [&](std::int64_t cycles) {
    return static_cast<std::int64_t>(
        std::ceil(static_cast<double>(cycles) * p.tck_ps() / h.tck_ps() - 1e-9));
  };
  for (const auto m :
       {&HbmConfig::t_cl, &HbmConfig::t_cwl, &HbmConfig::t_rcd_rd, &HbmConfig::t_rcd_wr,
        &HbmConfig::t_rp, &HbmConfig::t_ras, &HbmConfig::t_rc, &HbmConfig::t_wr, &HbmConfig::t_rtp,
        &HbmConfig::t_ccd_l, &HbmConfig::t_rrd_s, &HbmConfig::t_rrd_l, &HbmConfig::t_faw,
        &HbmConfig::t_wtr_s, &HbmConfig::t_wtr_l, &HbmConfig::t_rfc}) {
    INFO("preset " << p.*m << " cycles");
    CHECK(h.*m == at(p.*m));
  }
  CHECK(h.t_ccd_s == p.t_ccd_s);  // one burst
  CHECK(h.t_refi ==
        static_cast<std::int64_t>(static_cast<double>(p.t_refi) * p.tck_ps() / h.tck_ps()));
  CHECK(h.t_btr == p.t_btr);
}

TEST_CASE("GPU HBM configurations stream a read and a copy at a realistic bandwidth",
          "[unit][hbm][gpu]") {
  // Bounds, stated before measuring. Refresh alone takes tRFC of every tREFI from each
  // pseudo-channel, so no stream beats 1 - tRFC / tREFI of peak (A100-40 93.3%, A100-80 91.0%,
  // H100 91.0%). A sequential read keeps rows open and both pseudo-channels busy: at least 80%.
  // A copy pays the bus turnarounds between write drains and reads and row misses between the
  // two regions: at least 70% (read + write bytes over the peak).
  for (const Gpu& g : kGpus) {
    const HbmConfig c = load(g.file);
    const double ceiling = 1.0 - static_cast<double>(c.t_rfc) / static_cast<double>(c.t_refi);
    const double read = efficiency(c, 128ull << 20, false);
    const double copy = efficiency(c, 64ull << 20, true);
    WARN(g.file << ": sequential read " << read << ", copy " << copy << " of "
                << c.bandwidth.value() / 1e9 << " GB/s (refresh ceiling " << ceiling << ")");
    INFO(g.file);
    CHECK(read >= 0.80);
    CHECK(read <= ceiling);
    CHECK(copy >= 0.70);
    CHECK(copy <= ceiling);
  }
}
