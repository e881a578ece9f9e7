// End to end through simrun: the bank-level HBM's per-channel table lands in results.h5, a
// bad HBM preset is one clear line and exit status 2, with nothing written, the HBM's
// acceptance queue holds the DMA engines back when it is shallow, and any valid organisation
// runs (no internal error).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <random>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

std::string preset() { return test::source_dir() + "/configs/presets/tpuv4_chip.yaml"; }

const stats::Table* unit_table(const stats::PointResult& p, const std::string& name) {
  for (const auto& t : p.units)
    if (t.name() == name) return &t;
  return nullptr;
}

}  // namespace

TEST_CASE("simrun writes the hbm_channel table of the bank-level HBM", "[e2e][hbm]") {
  TempDir dir;
  dir.write("decode.yaml", "base: " + preset() +
                               "\nworkload:\n  layers:\n    - {name: d, m: 8, n: 2048, k: 4096}\n");
  const auto r = test::simrun("decode.yaml -q -o out.h5", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto points = stats::read_points(dir.file("out.h5"));
  REQUIRE(points.size() == 1);
  const auto& p = points[0];
  const stats::Table* ch = unit_table(p, "hbm_channel");
  REQUIRE(ch);
  REQUIRE(ch->rows().size() == 32);  // 4 stacks x 8 channels
  CHECK(ch->get_string(0, "name") == "stack0.ch0");
  CHECK(ch->get_string(31, "name") == "stack3.ch7");
  double bytes = 0;
  for (size_t i = 0; i < 32; ++i) {
    bytes += ch->get_number(i, "bytes_read") + ch->get_number(i, "bytes_written");
    CHECK(ch->get_number(i, "row_hit_rate") >= 0.0);
    CHECK(ch->get_number(i, "row_hit_rate") <= 1.0);
    CHECK(ch->get_number(i, "bank_utilization") > 0.0);
    CHECK(ch->get_number(i, "refresh_time") > 0.0);
    CHECK(ch->get_number(i, "read_queue_occupancy") > 0.0);
  }
  // Every byte the layer moved crossed one channel (bursts of 32 B, so at least as many).
  CHECK(bytes >= static_cast<double>(p.layers.get_int(0, "hbm_bytes")));
  CHECK(p.layers.get_number(0, "hbm_bandwidth") > 0.5e12);
  for (const auto& col : ch->columns()) CHECK(!col.description.empty());
}

TEST_CASE("bad HBM presets exit 2 with one line", "[e2e][hbm][errors]") {
  const std::string wl = "workload:\n  layers:\n    - {m: 8, n: 8, k: 8}\n";
  const std::string base = "base: " + preset() + "\n";
  const std::pair<std::string, std::string> cases[] = {
      {base + "system:\n  chip:\n    hbm: {t_ras: 10}\n" + wl,
       "bad.yaml:4:18: system.chip.hbm.t_ras: tRAS (10 tCK) is shorter than tRCD (17 tCK): a "
       "row must stay open at least until its first column command"},
      {base + "system:\n  chip:\n    hbm: {t_rp: -1}\n" + wl,
       "bad.yaml:4:17: system.chip.hbm.t_rp: expected an integer in [0, 10000000], got -1"},
      {base + "system:\n  chip:\n    hbm: {capacity: 24GiB}\n" + wl,
       "bad.yaml:4:21: system.chip.hbm.capacity: 24 GiB gives 24576 rows per bank (32 channels "
       "x 2 pseudo-channels x 16 banks x 1024 B rows), not a power of two as the address mapping "
       "needs: try 16 GiB (4 stacks x 4 GiB) or 32 GiB (4 stacks x 8 GiB)"},
      {base + "system:\n  chip:\n    hbm: {preset: hbm5}\n" + wl,
       "bad.yaml:4:19: system.chip.hbm.preset: expected one of hbm2, hbm2e, hbm3, hbm3e, "
       "ddr3_2133, got 'hbm5' (did you mean 'hbm2' or 'hbm3'?)"},
  };
  for (const auto& [yaml, expected] : cases) {
    TempDir dir;
    dir.write("bad.yaml", yaml);
    const auto r = test::simrun("bad.yaml -o out.h5", dir);
    INFO(yaml << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "simrun: error: " + expected + "\n");
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(dir.file("out.h5")));
  }
}

// Back-pressure in the chip (issue 10): the DMA engines run ahead, handing the HBM transfer
// after transfer; with hbm.transfer_queue 1 each engine's next tile waits until its previous
// one has arrived, so the engines are held (held_cycles) and the layer takes longer; at the
// schema's 16 the queue does not bind on this layer. The bytes moved do not depend on it.
TEST_CASE("simrun: the HBM's acceptance queue holds the DMA engines back at depth 1",
          "[e2e][hbm][backpressure]") {
  TempDir dir;
  dir.write("decode.yaml", "base: " + preset() +
                               "\nworkload:\n  layers:\n    - {name: d, m: 8, n: 2048, k: 4096}\n"
                               "sweep:\n  system.chip.hbm.transfer_queue: [1, 2, 16]\n");
  const auto r = test::simrun("decode.yaml -q -o out.h5 --jobs 1", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto points = stats::read_points(dir.file("out.h5"));
  REQUIRE(points.size() == 3);
  std::map<std::string, const stats::PointResult*> by_depth;
  for (const auto& p : points) {
    REQUIRE(p.assignments.size() == 1);
    by_depth[p.assignments[0].second] = &p;
  }
  const auto held = [](const stats::PointResult& p) {
    const stats::Table* dma = unit_table(p, "dma");
    REQUIRE(dma);
    std::int64_t t = 0;
    for (std::size_t i = 0; i < dma->rows().size(); ++i) t += dma->get_int(i, "held_cycles");
    return t;
  };
  const auto cycles = [](const stats::PointResult* p) { return p->layers.get_int(0, "cycles"); };
  const auto bytes = [](const stats::PointResult* p) { return p->layers.get_int(0, "hbm_bytes"); };
  const auto *d1 = by_depth.at("1"), *d2 = by_depth.at("2"), *d16 = by_depth.at("16");
  CHECK(held(*d1) > 0);
  CHECK(held(*d16) == 0);
  CHECK(held(*d1) > held(*d2));
  CHECK(cycles(d1) > cycles(d2));
  CHECK(cycles(d2) >= cycles(d16));
  CHECK(bytes(d1) == bytes(d16));
  CHECK(bytes(d2) == bytes(d16));
}

// Any organisation the schema accepts runs: random pseudo-channels, bank groups, banks, columns,
// burst lengths, clocks, channels, interleave, hash, page policy, command buses, latency and DMA
// request size under a GEMM on both TPU presets. Before 2026-11-27 a 64 B burst (DDR3's) stopped
// every run with "HBM transfer completed between wake-ups" (test_hbm_bound.cpp has the cause).
TEST_CASE("simrun runs any valid memory organisation", "[e2e][hbm]") {
  std::mt19937_64 rng(20261127);
  const auto pick = [&rng](std::initializer_list<std::int64_t> v) {
    return *(v.begin() + static_cast<std::ptrdiff_t>(rng() % v.size()));
  };
  for (int i = 0; i < 24; ++i) {
    const std::int64_t pcs = pick({1, 2, 4}), width = 8 * pcs * pick({4, 8, 16});
    const std::int64_t beats = pick({1, 2, 4}), bl = beats * pick({1, 2, 4});
    const std::int64_t bg = pick({1, 2, 4}), banks = pick({2, 4, 8}), cols = pick({16, 32, 128});
    const std::int64_t stacks = pick({1, 2, 5}), channels = pick({1, 3, 8});
    const std::int64_t atom = width / pcs / 8 * bl, row = cols * atom;
    std::int64_t il = std::min<std::int64_t>(row, pick({64, 256, 4096}));
    il = std::max(il, atom);
    const std::int64_t capacity = stacks * channels * pcs * bg * banks * row * 16384;
    const char* presets[] = {"hbm2", "hbm3", "ddr3_2133"};
    const char* chips[] = {"tpuv4_chip.yaml", "tpuv1_like.yaml"};
    const char* hashes[] = {"xor", "mix", "none"};
    const std::string yaml =
        "base: " + test::source_dir() + "/configs/presets/" + chips[rng() % 2] +
        "\nsystem:\n  chip:\n    dma: {request: " + std::to_string(pick({64, 512, 2048})) +
        "B}\n    hbm: {model: bank, preset: " + presets[rng() % 3] +
        ", stacks: " + std::to_string(stacks) + ", channels: " + std::to_string(channels) +
        ", pseudo_channels: " + std::to_string(pcs) + ", channel_width: " + std::to_string(width) +
        ", bank_groups: " + std::to_string(bg) + ", banks_per_group: " + std::to_string(banks) +
        ", columns: " + std::to_string(cols) + ", burst_length: " + std::to_string(bl) +
        ", beats_per_clock: " + std::to_string(beats) + ", interleave: " + std::to_string(il) +
        "B, capacity: " + std::to_string(capacity) +
        "B, latency: " + std::to_string(pick({0, 50, 500})) +
        "ns, page_policy: " + (rng() % 2 ? "open" : "closed") +
        ", address_hash: " + hashes[rng() % 3] +
        ", command_buses: " + std::to_string(pick({1, 2})) +
        "}\nworkload: {layers: [{name: g, m: " + std::to_string(pick({64, 200, 1000})) +
        ", n: " + std::to_string(pick({128, 1118})) +
        ", k: " + std::to_string(pick({100, 512, 2000})) + ", dtype: int8}]}\n";
    TempDir dir;
    dir.write("org.yaml", yaml);
    const auto r = test::simrun("org.yaml -q -o out.h5", dir);
    INFO("case " << i << "\n" << yaml << "stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto points = stats::read_points(dir.file("out.h5"));
    REQUIRE(points.size() == 1);
    CHECK(points[0].ok());
    CHECK(points[0].layers.get_int(0, "cycles") > 0);
  }
}
