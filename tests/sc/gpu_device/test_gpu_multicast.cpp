// TMA multicast in a 2x1 thread-block cluster on the H100 preset (models/gpu_sm/README.md,
// "TMA multicast"): the two CTAs of a cluster share each k-tile's B rows, each loading half of
// them for both, so the L2 serves B once per cluster; a k-tile lands in both CTAs' shared
// memory when both halves have, at the same cycle.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "models/systems/gpu_device/gpu_device_module.h"
#include "tests/unit/workloads/gpu_device_fixture.h"
#include "workloads/lowering/gpu_lowering.h"

using namespace systole;
using namespace systole::models;

TEST_CASE("gpu_device: a 2x1 cluster multicasts B and its k-tiles land in both CTAs at once",
          "[sc][gpu_device][multicast]") {
  const GpuDeviceConfig d = test::h100();
  workloads::Layer g;
  g.name = "g";
  g.op = workloads::LayerOp::kGemm;
  g.dtype = DataType::kBf16;
  g.m = 1024;
  g.n = 1000;  // an edge tile: its B rows split 52 / 52 (104 = 1000 - 7 x 128)
  g.k = 520;   // an edge k-tile of 8 elements
  workloads::GpuMappingOptions o;
  o.tile_m = 128;
  o.tile_n = 128;
  o.cluster_m = 2;
  o.split_k_slices = 1;
  const auto prog = workloads::compile_gpu(d, {g}, o);
  REQUIRE(prog.kernels.size() == 1);
  const auto& k = prog.kernels[0];
  REQUIRE(k.gemm.cluster_m == 2);
  const std::int64_t bk = k.gemm.tile.bk;
  // What the SMs must read through the L2: every CTA's A rows, and its half of the B rows.
  std::uint64_t expected = 0, without = 0;
  for (const CtaWork& w : k.works) {
    REQUIRE(w.cluster_size == 2);
    const std::int64_t share = w.n * (w.cluster_rank + 1) / 2 - w.n * w.cluster_rank / 2;
    expected += static_cast<std::uint64_t>((w.m + share) * w.k * 2);
    without += static_cast<std::uint64_t>((w.m + w.n) * w.k * 2);
  }
  GpuDeviceModule dev("dev", d);
  const auto runs = dev.run(prog.kernels);
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.l2_after.bytes_read - r.l2_before.bytes_read == expected);
  CHECK(expected < without);
  // Both members of each cluster: on distinct SMs, every k-tile landing at the same cycle.
  std::map<std::int64_t, const CtaRecord*> by_id;
  for (const auto& c : r.gemm.ctas) by_id[c.id] = &c;
  REQUIRE(by_id.size() == k.works.size());
  std::int64_t clusters = 0;
  for (const CtaWork& w : k.works) {
    if (w.cluster_rank != 0) continue;
    const CtaRecord& a = *by_id.at(w.id);
    const CtaRecord& b = *by_id.at(w.id + 1);
    INFO("cluster of CTAs " << a.id << " and " << b.id);
    CHECK(a.sm != b.sm);
    REQUIRE(a.copy_done.size() == static_cast<size_t>((w.k + bk - 1) / bk));
    CHECK(a.copy_done == b.copy_done);
    for (size_t kt = 0; kt < a.copy_done.size(); ++kt) {
      CHECK(a.copy_done[kt] > a.copy_issue[kt]);
      CHECK(a.copy_done[kt] > b.copy_issue[kt]);  // neither half lands before both are asked
    }
    ++clusters;
  }
  CHECK(clusters == static_cast<std::int64_t>(k.works.size()) / 2);
}
