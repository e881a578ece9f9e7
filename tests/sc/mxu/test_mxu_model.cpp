// mxu.model: fold and pe run whole programs on a small chip to the same cycles and the same
// per-layer and per-unit statistics; the PE variant really computes (every matmul result
// checked against a reference GEMM). Each design point runs in a forked worker
// (sweep::run_points), since SystemC allows one elaboration per process.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <random>
#include <sstream>

#include "models/mxu/pe_mxu_module.h"
#include "models/systems/tpu_chip/tpu_chip_module.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "sim/sweep/runner.h"
#include "tests/support/tiny_chip.h"
#include "workloads/lowering/compile.h"

using namespace systole;

namespace {

/// A small chip and a GEMM workload, run once per MXU model.
struct Case {
  std::string chip;  // the `chip:` body, with {model} where mxu.model goes
  workloads::Workload work;
  std::string what;
};

/// A GEMM dimension: tiny, one off a multiple of the array (edge tiles), or uniform.
std::int64_t dim(std::mt19937_64& rng, std::int64_t unit) {
  std::uniform_int_distribution<int> kind(0, 2), tiny(1, 3), mult(1, 4), off(-1, 1);
  std::uniform_int_distribution<std::int64_t> any(1, 64);
  switch (kind(rng)) {
    case 0:
      return tiny(rng);
    case 1:
      return std::max<std::int64_t>(1, unit * mult(rng) + off(rng));
    default:
      return any(rng);
  }
}

/// Random cases: array shapes 1..8 x 1..8, each dataflow, int8 and bf16, one or two MXUs, one
/// to four GEMM layers, VMEM ports and memories fast or slow (so ops queue back to back, or
/// wait for operands, or are postponed by the VMEM port).
std::vector<Case> random_cases(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const char* flows[] = {"ws", "os", "is"};
  std::uniform_int_distribution<int> side(1, 8), mxus(1, 2), layers(1, 4), coin(0, 1);
  std::vector<Case> cases;
  for (int i = 0; i < n; ++i) {
    const int rows = side(rng), cols = side(rng);
    const bool int8 = i % 2 == 0;
    const char* flow = flows[i % 3];
    Case c;
    c.chip = fmt::format(
        "chip:\n  clock: 1GHz\n  tensor_cores: 1\n  mxus_per_core: {}\n"
        "  mxu: {{model: {{model}}, rows: {}, cols: {}, dataflow: {}, input_type: {}, "
        "accumulate_type: {}}}\n"
        "  vmem: {{capacity: {}, bandwidth: {}}}\n"
        "  hbm: {{model: bandwidth, bandwidth: {}, latency: 0ns}}\n"
        "  dma: {{engines: 2, granule: 1B, setup: 0ns}}\n",
        mxus(rng), rows, cols, flow, int8 ? "int8" : "bf16", int8 ? "int32" : "fp32",
        coin(rng) ? "4KiB" : "16KiB", coin(rng) ? "2GB/s" : "1TB/s",
        coin(rng) ? "4GB/s" : "256GB/s");
    const int nl = layers(rng);
    for (int l = 0; l < nl; ++l) {
      const std::int64_t unit = std::string(flow) == "is" ? cols : rows;
      workloads::Layer g = test::gemm(dim(rng, unit), dim(rng, cols), dim(rng, rows));
      g.name = fmt::format("g{}", l);
      g.dtype = int8 ? DataType::kInt8 : DataType::kBf16;
      c.work.layers.push_back(g);
      c.what += fmt::format("{}{}x{}x{}", l ? ", " : "", g.m, g.n, g.k);
    }
    c.what = fmt::format("case {}: {}x{} {} {}, {} -- {}", i, rows, cols, flow,
                         int8 ? "int8" : "bf16", c.chip, c.what);
    cases.push_back(std::move(c));
  }
  return cases;
}

models::TpuChipConfig chip_of(const Case& c, const char* model) {
  std::string yaml = c.chip;
  yaml.replace(yaml.find("{model}"), 7, model);
  return test::chip_with(yaml);
}

/// Runs every case under fold (even point ids) and pe (odd), two workers at a time.
std::vector<stats::PointResult> run_both(const std::vector<Case>& cases) {
  std::vector<sweep::Point> points(2 * cases.size());
  std::vector<const sweep::Point*> ptrs;
  for (size_t i = 0; i < points.size(); ++i) {
    points[i].id = static_cast<int>(i);
    ptrs.push_back(&points[i]);
  }
  std::vector<stats::PointResult> out(points.size());
  sweep::run_points(
      ptrs,
      [&](const sweep::Point& p) {
        const Case& c = cases[static_cast<size_t>(p.id) / 2];
        models::TpuChipSystem sys({chip_of(c, p.id % 2 ? "pe" : "fold"), {}});
        return sys.run(c.work, {});
      },
      {2}, [&](stats::PointResult r) { out[static_cast<size_t>(r.id)] = std::move(r); });
  return out;
}

std::string cell(const stats::Cell& c) { return stats::format_cell(c, 17); }

/// Every column and cell of `a` equals `b`'s.
void require_equal(const stats::Table& a, const stats::Table& b) {
  INFO("table " << a.name());
  REQUIRE(a.columns().size() == b.columns().size());
  for (size_t j = 0; j < a.columns().size(); ++j)
    REQUIRE(a.columns()[j].name == b.columns()[j].name);
  REQUIRE(a.rows().size() == b.rows().size());
  for (size_t r = 0; r < a.rows().size(); ++r)
    for (size_t j = 0; j < a.columns().size(); ++j) {
      INFO("row " << r << " column " << a.columns()[j].name);
      REQUIRE(cell(a.rows()[r][j]) == cell(b.rows()[r][j]));
      REQUIRE(a.rows()[r][j] == b.rows()[r][j]);
    }
}

std::int64_t total_cycles(const stats::PointResult& r) {
  const auto& cols = r.metrics.columns();
  for (size_t j = 0; j < cols.size(); ++j)
    if (cols[j].name == "total_cycles") return std::get<std::int64_t>(r.metrics.cells()[j]);
  FAIL("no total_cycles metric");
  return -1;
}

}  // namespace

TEST_CASE("mxu.model fold and pe: identical cycles and statistics on random programs",
          "[sc][mxu][property]") {
  const auto cases = random_cases(30, 20260702);  // fixed seed
  const auto res = run_both(cases);
  int multi_layer = 0;
  std::int64_t cycles = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const stats::PointResult &fold = res[2 * i], &pe = res[2 * i + 1];
    INFO(cases[i].what);
    INFO("fold: " << fold.error << "\npe: " << pe.error);
    REQUIRE(fold.ok());
    REQUIRE(pe.ok());
    REQUIRE(total_cycles(fold) > 0);
    CHECK(total_cycles(pe) == total_cycles(fold));
    require_equal(fold.layers, pe.layers);
    REQUIRE(fold.units.size() == pe.units.size());
    for (size_t u = 0; u < fold.units.size(); ++u) require_equal(fold.units[u], pe.units[u]);
    multi_layer += cases[i].work.layers.size() > 1;
    cycles += total_cycles(fold);
  }
  CHECK(multi_layer >= 5);
  WARN(cases.size() << " programs, " << multi_layer << " with several layers, " << cycles
                    << " cycles in all: fold and pe equal");
}

TEST_CASE("mxu.model pe: every matmul is computed and checked", "[sc][mxu]") {
  // Two MXUs of 4x3 os bf16; GEMM 41x30x50 then 33x17x20 (edge tiles everywhere). Operands come
  // from HBM faster than the VMEM port (1 B/cycle) feeds the array: ops queue with their
  // operands ready in the array's past (replays), and the port postpones some.
  const auto chip = test::chip_with(
      "chip:\n  clock: 1GHz\n  tensor_cores: 1\n  mxus_per_core: 2\n"
      "  mxu: {model: pe, rows: 4, cols: 3, dataflow: os}\n"
      "  vmem: {capacity: 4KiB, bandwidth: 1GB/s}\n"
      "  hbm: {model: bandwidth, bandwidth: 64GB/s, latency: 0ns}\n");
  std::vector<workloads::Layer> layers = {test::gemm(41, 30, 50), test::gemm(33, 17, 20)};
  const auto compiled = workloads::compile(chip, layers, {});
  const models::Program prog = workloads::link(chip, compiled, nullptr);
  std::uint64_t results = 0;
  for (const auto& op : prog.ops)
    if (op.kind == models::OpKind::kMatmul) results += static_cast<std::uint64_t>(op.m) * op.n;
  models::TpuChipModule top("chip0", chip, nullptr);
  auto port = std::make_shared<models::VmemPort>(1.0);  // 1 B/cycle, as TpuChipSystem makes it
  for (const auto& m : top.mxus()) m->attach_vmem(port);
  top.run(prog, static_cast<std::uint32_t>(compiled.layers.size()));
  std::uint64_t checked = 0, postponed = 0, replayed = 0;
  for (const auto& m : top.mxus()) {
    const auto* pe = dynamic_cast<const models::PeMxuModule*>(m.get());
    REQUIRE(pe != nullptr);
    CHECK(pe->mismatches() == 0);
    checked += pe->checked_results();
    postponed += pe->postponed_ops();
    replayed += pe->pipeline().replayed_ticks();
  }
  // Each op's results once, and again when the VMEM port postponed it.
  CHECK(results > 0);
  CHECK(checked > results);
  CHECK(postponed > 0);
  CHECK(replayed > 0);
  WARN(results << " results, " << checked << " checked, " << postponed << " ops postponed, "
               << replayed << " cycles replayed");
}
