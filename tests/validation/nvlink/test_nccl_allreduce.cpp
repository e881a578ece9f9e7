// NCCL all-reduce bus bandwidth on 8x A100 and 8x H100 against Azure's nccl-tests measurements
// (tests/validation/nvlink/README.md: sources, and the targets stated before simulating).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "models/nvlink/nccl_collective.h"
#include "tests/support/paths.h"

using namespace systole;
using namespace systole::models;

namespace {

struct Point {
  std::uint64_t bytes;
  double busbw_gbs;
};

// Azure/AI-benchmarking-guide Azure_Results/ND_A100_v4_results.md, "NCCL Bandwidth" (1M-8G).
const std::vector<Point> kA100 = {
    {1ull << 20, 36.22},    {2ull << 20, 53.54},    {4ull << 20, 71.43},   {8ull << 20, 89.99},
    {16ull << 20, 109.22},  {32ull << 20, 132.77},  {64ull << 20, 166.63}, {128ull << 20, 174.18},
    {256ull << 20, 213.87}, {512ull << 20, 221.58}, {1ull << 30, 228.10},  {2ull << 30, 230.22},
    {4ull << 30, 230.48},   {8ull << 30, 231.58}};
// Azure/AI-benchmarking-guide "Azure Results/ND_H100_v5_results.md", same table.
const std::vector<Point> kH100 = {
    {1ull << 20, 43.70},    {2ull << 20, 81.93},    {4ull << 20, 128.73},  {8ull << 20, 172.13},
    {16ull << 20, 234.45},  {32ull << 20, 295.53},  {64ull << 20, 361.78}, {128ull << 20, 400.61},
    {256ull << 20, 423.38}, {512ull << 20, 438.46}, {1ull << 30, 466.35},  {2ull << 30, 472.36},
    {4ull << 30, 475.54},   {8ull << 30, 478.87}};

// Held out (README.md, "Held out: 8x H200"): Azure/AI-benchmarking-guide
// Azure_Results/ND_H200_v5_results.md (commit 7f20e5f), same table; NCCL 2.20.5.
const std::vector<Point> kH200 = {
    {1ull << 20, 52.96},    {2ull << 20, 88.78},    {4ull << 20, 138.44},  {8ull << 20, 181.94},
    {16ull << 20, 240.41},  {32ull << 20, 300.91},  {64ull << 20, 368.11}, {128ull << 20, 412.45},
    {256ull << 20, 432.24}, {512ull << 20, 442.72}, {1ull << 30, 467.58},  {2ull << 30, 472.57},
    {4ull << 30, 477.41},   {8ull << 30, 479.98}};

NvlinkConfig preset(const char* name) {
  return load_nvlink_file(test::source_dir() + "/configs/presets/" + name);
}

NcclResult simulate(const NvlinkConfig& c, std::uint64_t bytes,
                    std::optional<NcclAlgorithm> algo = std::nullopt) {
  const NvSwitchRoutes routes(static_cast<int>(c.gpus));
  const auto net = make_nvlink_network(c, routes);
  NcclSpec s;
  s.op = CollectiveOp::kAllReduce;
  s.bytes = bytes;
  s.algorithm = algo;
  return run_nccl(*net, routes, c, s);
}

/// Prints the table and returns the mean absolute error (fraction) from 16 MB up.
double table(const char* device, const NvlinkConfig& c, const std::vector<Point>& data) {
  double sum = 0;
  int n = 0;
  std::printf("\n%s all-reduce busbw (GB/s): size, NCCL choice, simulated, measured, error\n",
              device);
  for (const Point& p : data) {
    const NcclResult r = simulate(c, p.bytes);
    const double sim = r.result.busbw / 1e9;
    const double err = (sim - p.busbw_gbs) / p.busbw_gbs;
    std::printf("%12llu %5s/%-6s %8.1f %8.1f %+7.1f%%\n", static_cast<unsigned long long>(p.bytes),
                nccl_algorithm_name(r.choice.algorithm), nccl_protocol_name(r.choice.protocol), sim,
                p.busbw_gbs, err * 100);
    if (p.bytes >= (16ull << 20)) {
      sum += std::abs(err);
      ++n;
    }
  }
  const double mae = sum / n;
  std::printf("%s mean absolute error from 16 MB up: %.1f%% (target <= 10%%)\n", device, mae * 100);
  return mae;
}

}  // namespace

// MISSED: 13.6%. Sizes from 256 MB are within 5%; 16-134 MB are 18-57% above the measurement.
// The measured times from 32 MB to 8 GB fit 199 us + S 2(p-1)/p / 230.7 GB/s within 2.4% (134 MB:
// 10.8%): a fixed ~200 us per all-reduce where NCCL's cost model has 56 us and the simulation
// 25-90 us, one constant from 28 slices per channel (32 MB) to 616 (8 GB), so not a per-slice,
// per-step or copy-rate effect; channels (24), chunks and protocol are NCCL 2.18.5's. Its
// mechanism was not found (tests/validation/nvlink/README.md: what was ruled out).
TEST_CASE("NCCL all-reduce busbw on 8x A100: MAE <= 10% from 16 MB up",
          "[validation][nvlink][!mayfail]") {
  CHECK(table("8x A100 (HGX, NVLink3)", preset("hgx_a100_8.yaml"), kA100) <= 0.10);
}

// Met since NCCL 2.18.5's NVLS chunk per size (src/enqueue.cc: 128 KiB from 1 GiB, 64 KiB from
// 64 MiB, 32 KiB from 8 MiB) is modelled; with 128 KiB everywhere 16-134 MB were 15-25% low
// (mean 10.5%). Sizes from 1 GB are 4-5% low: the link efficiency is A100's.
TEST_CASE("NCCL all-reduce busbw on 8x H100: MAE <= 10% from 16 MB up", "[validation][nvlink]") {
  CHECK(table("8x H100 (HGX, NVLink4, NVLS)", preset("hgx_h100_8.yaml"), kH100) <= 0.10);
}

// Held out: the 8x H200 node's measurements were not used for any constant (README.md).
TEST_CASE("NCCL all-reduce busbw on 8x H200 (held out): MAE <= 10% from 16 MB up",
          "[validation][nvlink]") {
  CHECK(table("8x H200 (HGX, NVLink4, NVLS; held out)", preset("hgx_h200_8.yaml"), kH200) <= 0.10);
}

TEST_CASE("NVLS on 8x H100: +20% to +40% over the ring at 8 GB, not +75%", "[validation][nvlink]") {
  const NvlinkConfig c = preset("hgx_h100_8.yaml");
  const NcclResult nvls = simulate(c, 8ull << 30);
  const NcclResult ring = simulate(c, 8ull << 30, NcclAlgorithm::kRing);
  REQUIRE(nvls.choice.algorithm == NcclAlgorithm::kNvls);
  const double gain = nvls.result.busbw / ring.result.busbw - 1;
  std::printf(
      "\nH100 8 GB all-reduce: ring %.1f GB/s, NVLS %.1f GB/s: %+.1f%% (measured: ~370 "
      "and ~480, +30%%)\n",
      ring.result.busbw / 1e9, nvls.result.busbw / 1e9, gain * 100);
  CHECK(gain >= 0.20);
  CHECK(gain <= 0.40);
}
