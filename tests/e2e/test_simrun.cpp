// End-to-end: simrun runs experiments through the SystemC kernel and the results read back
// from HDF5 obey the analytical bounds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "sim/config/node.h"
#include "sim/core/units.h"
#include "sim/stats/results_file.h"
#include "tests/support/run.h"
#include "tests/support/text_table.h"

using namespace systole;
using systole::test::TempDir;

namespace {

// The GEMM shapes of workloads/gemm_shapes.yaml, written out independently of the model.
struct Shape {
  double m, n, k;
};
const std::map<std::string, Shape> kShapes = {{"square_8k", {8192, 8192, 8192}},
                                              {"decode_8x8k", {8, 8192, 8192}},
                                              {"gpt3_mlp_up", {2048, 49152, 12288}},
                                              {"bert_qkv", {8 * 512, 1024, 1024}}};

double parse_bandwidth(const std::string& s) {  // "1.2TB/s" -> bytes/s
  return std::stod(s) * 1e12;
}

const std::string kSmall = R"(
base: )" + test::source_dir() +
                           R"(/configs/presets/tpuv4_chip.yaml
workload:
  layers:
    - {name: a, m: 256, n: 512, k: 384}
    - {name: b, m: 8, n: 1024, k: 1024}
)";

// Upper bounds on a design point's cycles. A run takes no longer than all of its work done one
// piece after another, nothing overlapped: the MXU ops of a reference schedule of each layer,
// each as if alone on an idle array; the vector work; the bytes the mapping moves through HBM
// and CMEM at the slowest rate their timings allow; per layer instance the latencies that
// double-buffered tiles cannot hide (per attention head too). A model that overlaps any of these is
// faster, whatever it overlaps (layers included); one 10x too slow is not. (A mapping whose MXU ops
// take longer than the plain reference schedule below is itself too slow.) Every number is the TPU
// v4 preset's (configs/presets/tpuv4_chip.yaml and the schema defaults it spells out,
// models/*/README.md); none is read off a simulated result. The bounds sit 2-7x above today's
// runs: the memory floors are worst cases of the access pattern, not typical rates.

/// The hardware of a design point: what the sweeps vary.
struct Chip {
  double rows = 128, cols = 128;  // MXU array
  double hbm_peak = 1.2288e12;    // B/s: 4 stacks x 8 channels x 128 bit x 2.4 Gb/s (auto)
};

constexpr double kClock = 1.05e9;  // Hz
constexpr double kMxus = 2 * 4;    // TensorCores x MXUs per core
// HBM (bank model, hbm2 timings in tCK, models/hbm/README.md). A request is at most a 256 B
// block on one channel and row (interleave 256 B), 8 bursts of 32 B: 16 tCK at the full rate.
// At worst every block is a row miss in the same bank as the one before it, bursts spaced at
// tCCD_L (4, same bank group): a read block takes ACT, tRCD 17, 8 reads 28 apart, tRTP 6, tRP 17
// = 68 tCK; a written one tRCD_WR 14 + 28 + tCWL 6 + tBL 2 + tWR 19 + tRP 17 = 86 tCK (its bus
// turnarounds, 15 and 18 tCK, fall inside that). Refresh takes tRFC 312 of every tREFI 4680:
// 16 / 86 x (1 - 312 / 4680) = 0.174 of the peak per pseudo-channel. The timings are in tCK, so
// this holds at any data rate (hbm.bandwidth sets the data rate); the 256 B blocks of a tensor
// spread over the 64 pseudo-channels (channel and pseudo-channel are the lowest address fields
// above the block, XORed with the bits above them: address_hash xor).
constexpr double kHbmFloor = 0.17;
// CMEM (sram defaults: 64 banks of 64 B, 2.4 TB/s): a DMA request moves at least 512 B (the
// granule), 8 consecutive banks; if every request of a transfer hit the same 8 banks it would
// still get 8/64 of the peak. (VMEM's side is never slower: a 512 B request is one of its 32
// banks, 26 TB/s / 32 = 0.81 TB/s per core, above 0.17 x 2.4 TB/s and 2.4 TB/s / 8.)
constexpr double kCmemFloor = 2.4e12 / 8;  // B/s
// Per chain of dependent work (a layer instance; an attention head's query block), the
// latencies of its first load and its last store through HBM and of one CMEM write and read;
// double-buffered tiles hide the latency of every step in between (each moves and computes for
// longer than the latency). An HBM trip: DMA setup 10 ns + the DRAM's first access at worst (a
// refresh about to start: close the rows, tRAS 40 + tRP 17, refresh, tRFC 312, then tRCD 17 +
// tCL 17 + a burst 2: 405 tCK of 0.833 ns at 2.4 Gb/s, 337.5 ns) + the fixed 500 ns after it
// (hbm.latency). A CMEM trip: setup 10 ns + 50 ns (cmem.latency). 2 x 847.5 + 2 x 60 = 1815 ns:
// 1,906 cycles at 1050 MHz.
constexpr double kLatencyCycles =
    (2 * (10e-9 + 405 / 1.2e9 + 500e-9) + 2 * (10e-9 + 50e-9)) * kClock;

/// One weight-stationary MXU op alone on an idle array: T rows streamed past a K x N weight
/// block in F = ceil(K / R) ceil(N / C) folds takes R + (F - 1) max(T, R) + T + R + n_F - 2
/// cycles (models/mxu/README.md), at most F max(T, R) + 2R + C.
double isolated_op(double t, double k, double n, const Chip& c) {
  return std::ceil(k / c.rows) * std::ceil(n / c.cols) * std::max(t, c.rows) + 2 * c.rows + c.cols;
}

/// The MXU cycles of one instance of layer row `i` in a reference schedule, from its shape
/// (workloads/ir/layer.cpp, Layer::shape). A GEMM (batch folded into M) or a convolution (its
/// implicit-im2col GEMM per group: M = images x output pixels, from the MACs; K = C/G x R x S;
/// N = filters/G): rows in blocks of up to 1024 (a block's fp32 sums fit an MXU's 4096
/// accumulator rows twice), one op per (group, row block, C-column tile) over all of K, the ops
/// spread evenly over the 8 MXUs. Attention: per batch, head and block of up to 1024 queries a
/// chain over blocks of up to 1024 keys, QK^T then PV, one op after another on one MXU, nothing
/// in parallel, each chain with its own kLatencyCycles. Vector-only layers (depthwise
/// convolutions included): none.
double reference_mxu_cycles(const stats::Table& l, size_t i, const Chip& c) {
  if (l.get_number(i, "mxu_macs") == 0) return 0;
  const std::string op = l.get_string(i, "op"), shape = l.get_string(i, "shape");
  INFO("layer " << l.get_string(i, "layer") << ": " << op << " " << shape);
  const auto spread = [&](double groups, double m, double k, double n) {
    const double block = std::min(m, 1024.0);
    const double ops = groups * std::ceil(m / block) * std::ceil(n / c.cols);
    return std::ceil(ops / kMxus) * isolated_op(block, k, c.cols, c);
  };
  double b = 1, m = 0, n = 0, k = 0;
  if (op == "gemm") {  // "MxNxK" or "Bx(MxNxK)"
    if (std::sscanf(shape.c_str(), "%lfx(%lfx%lfx%lf)", &b, &m, &n, &k) != 4) {
      b = 1;
      REQUIRE(std::sscanf(shape.c_str(), "%lfx%lfx%lf", &m, &n, &k) == 3);
    }
    return spread(1, b * m, k, n);
  }
  if (op == "conv2d") {  // "NxHxWxC kK RxS[/stride][ gG]"
    double h = 0, w = 0, ch = 0, r = 0, s = 0, g = 1;
    REQUIRE(std::sscanf(shape.c_str(), "%lfx%lfx%lfx%lf k%lf %lfx%lf", &b, &h, &w, &ch, &k, &r,
                        &s) == 7);
    if (const auto at = shape.find(" g"); at != std::string::npos)
      g = std::stod(shape.substr(at + 2));
    const double depth = ch / g * r * s, filters = k / g;
    m = l.get_number(i, "mxu_macs") / l.get_number(i, "repeat") / (g * depth * filters);
    REQUIRE(m == std::floor(m));
    return spread(g, m, depth, filters);
  }
  REQUIRE(op == "attention");  // "bB hH/KVH qQ kvS dD[ causal]"
  double h = 0, kvh = 0, q = 0, kv = 0, d = 0;
  REQUIRE(std::sscanf(shape.c_str(), "b%lf h%lf/%lf q%lf kv%lf d%lf", &b, &h, &kvh, &q, &kv, &d) ==
          6);
  const double qb = std::min(q, 1024.0), kb = std::min(kv, 1024.0);
  const double step = isolated_op(qb, d, kb, c) + isolated_op(qb, kb, d, c);
  return b * h * std::ceil(q / qb) * (std::ceil(kv / kb) * step + kLatencyCycles);
}

/// Layer row `i` done one piece after another, in cycles: per instance its reference MXU ops
/// and kLatencyCycles; its vector work (vector_bound_cycles: lane operations over both cores'
/// 1024 lanes) x 4: x 2 for all of it on one TensorCore, x 2 for each op's ceil and 2-cycle
/// latency (at most doubling an op of 3 or more lane-cycles; the smallest vector op here is a
/// 24-row tile of MobileNetV2's 49 x 160 residual add, 3,840 lane operations); its HBM and CMEM
/// bytes at the floors above.
double serial_bound(const stats::Table& l, size_t i, const Chip& c) {
  return l.get_number(i, "repeat") * (reference_mxu_cycles(l, i, c) + kLatencyCycles) +
         4 * l.get_number(i, "vector_bound_cycles") +
         l.get_number(i, "hbm_bytes") / (kHbmFloor * c.hbm_peak / kClock) +
         l.get_number(i, "cmem_bytes") / (kCmemFloor / kClock);
}

/// The serialised bound of a whole run: every layer's, added up.
double serial_bound(const stats::Table& l, const Chip& c) {
  double sum = 0;
  for (size_t i = 0; i < l.rows().size(); ++i) sum += serial_bound(l, i, c);
  return sum;
}

/// The layers (YAML list items) on the TPU v4 preset at system.mapping.fusion epilogue, then
/// none: the two points' results.
std::vector<stats::PointResult> fusion_points(const std::string& layers) {
  TempDir dir;
  dir.write("fuse.yaml", "base: " + test::source_dir() +
                             "/configs/presets/tpuv4_chip.yaml\nworkload:\n  layers:\n" + layers +
                             "sweep: {system.mapping.fusion: [epilogue, none]}\n");
  const auto r = test::simrun("fuse.yaml -o f.h5 -q", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto points = stats::read_points(dir.file("f.h5"));
  REQUIRE(points.size() == 2);
  return points;
}

}  // namespace

TEST_CASE("GEMM shapes on TPU v4: results obey the compute and HBM bounds", "[e2e]") {
  TempDir dir;
  const auto r =
      test::simrun(test::source_dir() + "/configs/tpuv4_gemm.yaml -o out.h5 --jobs 2", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(std::filesystem::exists(dir.file("out.h5")));
  REQUIRE_FALSE(std::filesystem::exists(dir.file("out.h5.partial")));
  REQUIRE(r.out.find("square_8k") != std::string::npos);  // the summary table

  const auto points = stats::read_points(dir.file("out.h5"));
  REQUIRE(points.size() == 4);
  bool saw_v4 = false;
  for (const auto& p : points) {
    REQUIRE(p.ok());
    std::map<std::string, std::string> a(p.assignments.begin(), p.assignments.end());
    const double rows = std::stod(a.at("system.chip.mxu.rows"));
    const double cols = std::stod(a.at("system.chip.mxu.cols"));
    const double bw = parse_bandwidth(a.at("system.chip.hbm.bandwidth"));
    const double peak_macs = 2 * 4 * rows * cols;  // TensorCores x MXUs x PEs
    const double bytes_per_cycle = bw / 1.05e9;
    const Chip chip{rows, cols, bw};
    REQUIRE(p.layers.rows().size() == kShapes.size());
    for (size_t i = 0; i < p.layers.rows().size(); ++i) {
      const std::string name = p.layers.get_string(i, "layer");
      const Shape s = kShapes.at(name);
      const double cycles = static_cast<double>(p.layers.get_int(i, "cycles"));
      const double compute = s.m * s.n * s.k / peak_macs;
      const double hbm = (s.m * s.k + s.k * s.n + s.m * s.n) * 2 / bytes_per_cycle;
      INFO("point " << p.id << " layer " << name << " cycles " << cycles << " compute " << compute
                    << " hbm " << hbm);
      CHECK(cycles >= std::floor(compute));
      CHECK(cycles >= std::floor(hbm));
      if (name == "square_8k" && rows == 128 && bw == 1.2e12) {
        saw_v4 = true;
        CHECK(cycles <= 1.10 * compute);  // TPU v4 runs a large square GEMM near peak
      }
    }
    // The run, layers overlapped or not, within its serialised bound (serial_bound above).
    const double run = p.layers.get_number(p.layers.rows().size() - 1, "end_cycle");
    const double bound = serial_bound(p.layers, chip);
    INFO("point " << p.id << ": " << run << " cycles, serialised bound " << bound);
    CHECK(run <= bound);
  }
  REQUIRE(saw_v4);

  // The file has the layout of DESIGN.md §4; points are named by their stable ids.
  const auto ls = test::run("h5ls -r " + dir.file("out.h5"), dir);
  REQUIRE(ls.exit_code == 0);
  const auto stored = stats::read_points(dir.file("out.h5"));
  REQUIRE(stored.size() == 4);
  const std::string p0 = "/points/" + stored[0].key, p3 = "/points/" + stored[3].key;
  for (const std::string& path :
       {std::string("/meta "), "/config/" + stored[0].key + " ", std::string("/sweep "),
        p0 + "/layers ", p3 + "/units/mxu ", p3 + "/units/dma ", p3 + "/units/memory "})
    CHECK(ls.out.find(path) != std::string::npos);
  const auto sweep = stats::read_sweep(dir.file("out.h5"));
  REQUIRE(sweep.rows().size() == 4);
  CHECK(sweep.column("system.chip.mxu.rows") >= 0);
  CHECK(sweep.get_string(0, "status") == "ok");
  const auto meta = stats::read_meta(dir.file("out.h5"));
  CHECK(meta.experiment_name == "tpuv4-gemm");
  CHECK(meta.command_line.find("tpuv4_gemm.yaml") != std::string::npos);
}

TEST_CASE("simrun configs/tpuv4.yaml: zoo networks, every layer above its roofline", "[e2e]") {
  TempDir dir;
  const auto r = test::simrun(test::source_dir() + "/configs/tpuv4.yaml -o zoo.h5 --jobs 2", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto points = stats::read_points(dir.file("zoo.h5"));
  REQUIRE(points.size() == 16);  // 4 networks x 2 batch sizes x 2 MXU sizes
  for (const auto& p : points) {
    REQUIRE(p.ok());
    std::map<std::string, std::string> a(p.assignments.begin(), p.assignments.end());
    Chip chip;  // the preset's HBM (1.2288 TB/s), the swept array
    chip.rows = std::stod(a.at("system.chip.mxu.rows"));
    chip.cols = std::stod(a.at("system.chip.mxu.cols"));
    for (size_t i = 0; i < p.layers.rows().size(); ++i) {
      const double cycles = static_cast<double>(p.layers.get_int(i, "cycles"));
      INFO("point " << p.id << " layer " << p.layers.get_string(i, "layer"));
      CHECK(cycles >= std::floor(p.layers.get_number(i, "compute_bound_cycles")));
      CHECK(cycles >= std::floor(p.layers.get_number(i, "vector_bound_cycles")));
      CHECK(cycles >= std::floor(p.layers.get_number(i, "hbm_bound_cycles")));
      const bool on_mxu = p.layers.get_number(i, "mxu_macs") >= p.layers.get_number(i, "macs");
      CHECK((on_mxu || p.layers.get_string(i, "op") == "conv2d"));  // depthwise: vector unit
    }
    // The whole network, layers overlapped or not, within its serialised bound (serial_bound).
    const double run = p.layers.get_number(p.layers.rows().size() - 1, "end_cycle");
    const double bound = serial_bound(p.layers, chip);
    INFO("point " << p.id << " (" << p.label << "): " << run << " cycles, serialised bound "
                  << bound);
    CHECK(run <= bound);
  }
  CHECK(stats::read_meta(dir.file("zoo.h5")).experiment_name == "tpuv4-zoo");
}

TEST_CASE("simrun --plan: HBM moved is the hbm_bytes the run reports", "[e2e]") {
  // Row pieces that are not multiples of the DMA's 512 B granule (672 and 1118 columns of bf16
  // tiled by 384 or 128) move more than the program's data; the plan's "HBM moved" must say how
  // much, layer by layer, before anything is simulated.
  TempDir dir;
  dir.write("plan.yaml", "base: " + test::source_dir() +
                             "/configs/presets/tpuv4_chip.yaml\n"
                             "workload:\n  layers:\n"
                             "    - {name: a, m: 128, n: 672, k: 128}\n"
                             "    - {name: b, m: 200, n: 1118, k: 300}\n"
                             "    - {name: c, m: 1024, n: 1024, k: 1024}\n");
  const auto plan = test::simrun("plan.yaml --plan", dir);
  INFO(plan.out << plan.err);
  REQUIRE(plan.exit_code == 0);
  const auto run = test::simrun("plan.yaml -q -o out.h5", dir);
  REQUIRE(run.exit_code == 0);
  const auto points = stats::read_points(dir.file("out.h5"));
  REQUIRE(points.size() == 1);
  const auto& layers = points[0].layers;
  std::vector<std::string> header;
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(plan.out);
  for (std::string line; std::getline(in, line);) {
    const auto cells = test::table_cells(line);
    if (!cells.empty() && cells[0] == "layer") header = cells;
    if (!header.empty() && cells.size() == header.size()) rows[cells[0]] = cells;
  }
  const auto col = std::find(header.begin(), header.end(), "HBM moved") - header.begin();
  REQUIRE(col < static_cast<std::ptrdiff_t>(header.size()));
  int grown = 0;
  for (std::size_t l = 0; l < 3; ++l) {
    const std::string name(1, static_cast<char>('a' + l));
    REQUIRE(rows.count(name) == 1);
    const auto moved = static_cast<double>(layers.get_int(l, "hbm_bytes"));
    const auto data = static_cast<double>(layers.get_int(l, "planned_bytes"));
    INFO("layer " << name << ": hbm_bytes " << moved << ", planned_bytes " << data);
    CHECK(rows[name][static_cast<std::size_t>(col)] == format_quantity(moved, Dimension::kBytes));
    CHECK(rows[name][static_cast<std::size_t>(col) - 1] ==
          format_quantity(data, Dimension::kBytes));
    grown += moved > data;
  }
  CHECK(grown >= 2);  // a and b move more than their data; c's pieces are whole granules
}

TEST_CASE("simrun writes an operation trace when asked", "[e2e]") {
  TempDir dir;
  dir.write("small.yaml", kSmall);
  const auto r = test::simrun("small.yaml -o t.h5 -q -p output.trace=true", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto points = stats::read_points(dir.file("t.h5"));
  REQUIRE(points.size() == 1);
  const auto& tr = points[0].trace;
  REQUIRE(tr.enabled);
  REQUIRE(!tr.events.empty());
  const auto total = static_cast<std::uint64_t>(points[0].layers.get_int(0, "cycles") +
                                                points[0].layers.get_int(1, "cycles"));
  std::uint64_t matmul_bytes = 0, dma_bytes = 0;
  for (const auto& e : tr.events) {
    CHECK(e.begin <= e.end);
    CHECK(e.end <= total);
    CHECK(e.layer <= 1);
    const std::string kind = tr.kinds.at(e.kind);
    const std::string unit = tr.units.at(e.unit);
    if (kind == "matmul") {
      CHECK(unit.find("mxu") != std::string::npos);
      matmul_bytes += e.bytes;
    } else {
      CHECK(unit.find("dma") != std::string::npos);
      dma_bytes += e.bytes;
    }
  }
  CHECK(matmul_bytes > 0);
  // Two small layers, where the per-chain latencies weigh most: within the serialised bound.
  INFO(total << " cycles, serialised bound " << serial_bound(points[0].layers, Chip{}));
  CHECK(static_cast<double>(total) <= serial_bound(points[0].layers, Chip{}));
  // Every byte the DMA engines moved went through HBM or CMEM (staged GEMM operands): the
  // memories count each piece rounded up to the DMA granule, as the layers' byte columns do;
  // the trace's operations carry the tiles' own bytes.
  const auto& mem = points[0].units.at(2);
  REQUIRE(mem.name() == "memory");
  REQUIRE(mem.rows().size() == 2);
  std::uint64_t mem_bytes = 0, layer_bytes = 0;
  for (size_t i = 0; i < 2; ++i)
    mem_bytes +=
        static_cast<std::uint64_t>(mem.get_int(i, "bytes_read") + mem.get_int(i, "bytes_written"));
  for (size_t i = 0; i < 2; ++i)
    layer_bytes += static_cast<std::uint64_t>(points[0].layers.get_int(i, "hbm_bytes") +
                                              points[0].layers.get_int(i, "cmem_bytes"));
  CHECK(mem_bytes == layer_bytes);
  CHECK(dma_bytes <= mem_bytes);

  // The trace exports to Chrome/Perfetto JSON: one slice per operation, besides the layers'
  // (tests/e2e/test_trace_e2e.cpp checks the export in depth).
  const auto ex = test::run(
      test::bin_dir() + "/systole-trace " + dir.file("t.h5") + " -o " + dir.file("t.json"), dir);
  INFO(ex.err);
  REQUIRE(ex.exit_code == 0);
  const std::string json = test::slurp(dir.file("t.json"));
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = json.find(what); at != std::string::npos; at = json.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("\"ph\":\"X\"") - count("\"cat\":\"layer\"") == tr.events.size());
  CHECK(json.find("\"name\":\"core0.mxu0\"") != std::string::npos);
}

TEST_CASE("system.mapping.fusion: an activation joins its GEMM's epilogue, or stays apart",
          "[e2e]") {
  const auto points = fusion_points(
      "    - {name: up, m: 512, n: 2048, k: 1024}\n"
      "    - {name: act, op: gelu, rows: 512, cols: 2048}\n");
  const auto& fused = points[0].layers;
  const auto& apart = points[1].layers;
  REQUIRE(fused.rows().size() == 1);
  REQUIRE(apart.rows().size() == 2);
  CHECK(fused.get_string(0, "layer") == "up+act");
  CHECK(fused.get_string(0, "tile").find("+gelu") != std::string::npos);
  // The same vector work, and the activation's round trip through HBM saved.
  CHECK(fused.get_int(0, "lane_ops") ==
        apart.get_int(0, "lane_ops") + apart.get_int(1, "lane_ops"));
  CHECK(fused.get_int(0, "hbm_bytes") + 2 * 512 * 2048 * 2 ==
        apart.get_int(0, "hbm_bytes") + apart.get_int(1, "hbm_bytes"));
}

TEST_CASE("system.mapping.fusion: a gated linear unit (SwiGLU) stores only the gated half",
          "[e2e]") {
  const auto points = fusion_points(
      "    - {name: gate_up, m: 512, n: 2048, k: 1024}\n"
      "    - {name: act, op: silu, rows: 512, cols: 1024}\n"
      "    - {name: gate, op: mul, rows: 512, cols: 1024}\n");
  const auto& fused = points[0].layers;
  const auto& apart = points[1].layers;
  REQUIRE(fused.rows().size() == 1);
  REQUIRE(apart.rows().size() == 3);
  CHECK(fused.get_string(0, "layer") == "gate_up+act+gate");
  CHECK(fused.get_string(0, "tile").find("glu +silu +mul") != std::string::npos);
  CHECK(fused.get_int(0, "lane_ops") ==
        apart.get_int(1, "lane_ops") + apart.get_int(2, "lane_ops"));
  // Apart, the GEMM writes both halves (2 units of 512 x 1024 bf16), SiLU reads and writes one
  // half (2), the product reads two and writes one (3); fused, only the product is written (1).
  const std::int64_t unit = 512 * 1024 * 2;
  CHECK(fused.get_int(0, "hbm_bytes") + 6 * unit == apart.get_int(0, "hbm_bytes") +
                                                        apart.get_int(1, "hbm_bytes") +
                                                        apart.get_int(2, "hbm_bytes"));
}

TEST_CASE("a failing design point is recorded while the others finish", "[e2e]") {
  TempDir dir;
  dir.write("sweep.yaml", kSmall + "sweep:\n  system.chip.vmem.capacity: [16MiB, 2KiB]\n");
  const auto r = test::simrun("sweep.yaml -o s.h5 -q", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 1);  // some points failed, results still written
  const auto points = stats::read_points(dir.file("s.h5"));
  REQUIRE(points.size() == 2);
  CHECK(points[0].ok());
  CHECK(points[1].status == "failed");
  CHECK(points[1].error.find("fits nowhere") != std::string::npos);
  const auto sweep = stats::read_sweep(dir.file("s.h5"));
  CHECK(sweep.get_string(1, "status") == "failed");
  CHECK(sweep.get_string(1, "error").find("raise system.chip.vmem.capacity") != std::string::npos);
}

TEST_CASE("simrun --resume keeps finished points and runs only the rest", "[e2e]") {
  TempDir dir;
  dir.write("sweep.yaml", kSmall + "sweep:\n  system.chip.mxu.rows: [64, 128]\n");
  auto r = test::simrun("sweep.yaml -o r.h5", dir);
  REQUIRE(r.exit_code == 0);
  const auto first = stats::read_points(dir.file("r.h5"));
  r = test::simrun("sweep.yaml -o r.h5 --resume", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("(0 to run") != std::string::npos);
  const auto second = stats::read_points(dir.file("r.h5"));
  REQUIRE(second.size() == first.size());
  for (size_t i = 0; i < first.size(); ++i)
    CHECK(second[i].layers.get_int(0, "cycles") == first[i].layers.get_int(0, "cycles"));
  // A grown sweep runs only the new point.
  dir.write("sweep.yaml", kSmall + "sweep:\n  system.chip.mxu.rows: [64, 128, 256]\n");
  r = test::simrun("sweep.yaml -o r.h5 --resume", dir);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("(1 to run") != std::string::npos);
  CHECK(stats::read_points(dir.file("r.h5")).size() == 3);
}

TEST_CASE("simrun --validate checks every point and writes nothing", "[e2e]") {
  TempDir dir;
  const auto r = test::simrun(test::source_dir() + "/configs/tpuv4.yaml --validate", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("OK") != std::string::npos);
  CHECK(r.out.find("16 design points") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("results.h5")));
}

TEST_CASE("simrun -p overrides a config value and the resolved config is stored", "[e2e]") {
  TempDir dir;
  dir.write("small.yaml", kSmall);
  const auto r = test::simrun("small.yaml -q -p system.chip.mxu.rows=64", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto points = stats::read_points(dir.file("results.h5"));
  const config::Node cfg = config::parse_yaml(points.at(0).config_yaml, "config");
  const config::Node* rows = config::get_path(cfg, "system.chip.mxu.rows");
  REQUIRE(rows);
  CHECK(rows->text() == "64");
  // Defaults are filled in: the run records everything it used.
  const config::Node* lat = config::get_path(cfg, "system.chip.hbm.latency");
  REQUIRE(lat);
  CHECK(lat->text() == "500ns");
}

TEST_CASE("simrun --list and --describe come from the registry and schemas", "[e2e]") {
  TempDir dir;
  auto r = test::simrun("--list", dir);
  REQUIRE(r.exit_code == 0);
  for (const char* k : {"tpu_chip", "mxu", "hbm", "dma", "vmem", "cmem", "gemm"})
    CHECK(r.out.find(k) != std::string::npos);
  // Piped: one line per kind (the lstm summary is ~200 characters); with a width the
  // summaries wrap and every line fits it, short of its last column.
  CHECK(r.out.find("lstm ") != std::string::npos);
  CHECK(r.out.find("step t + 1 waits for h_t\n") != std::string::npos);
  const auto narrow = test::run(
      "cd " + dir.dir.string() + " && COLUMNS=100 " + test::simrun_path() + " --list", dir);
  REQUIRE(narrow.exit_code == 0);
  for (size_t at = 0, next; at < narrow.out.size(); at = next + 1) {
    next = narrow.out.find('\n', at);
    CHECK(next - at <= 99);
  }
  const auto lines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
  CHECK(lines(narrow.out) > lines(r.out));  // wrapped: more lines than kinds
  CHECK(narrow.out.find("step t + 1 waits for h_t\n") != std::string::npos);
  r = test::simrun("--describe hbm", dir);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("bandwidth") != std::string::npos);
  CHECK(r.out.find("1.23TB/s") != std::string::npos);  // the HBM2 preset's peak, 4 stacks
  CHECK(r.out.find("hbm2 17, hbm2e 23, hbm3 20, hbm3e 30") != std::string::npos);  // tCL
  r = test::simrun("--describe hbn", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("did you mean 'hbm'") != std::string::npos);
}
