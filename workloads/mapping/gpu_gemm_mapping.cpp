#include "workloads/mapping/gpu_gemm_mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/error.h"

namespace systole::workloads {

using models::GemmCtaTile;
using models::GpuArch;
using models::TcType;

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// One CUTLASS CTA configuration: tile M x N, the warp (mma.sync) or consumer-warpgroup (wgmma)
/// grid, and the bytes of A and B rows each k-tile holds (bk = k_bytes / element bytes).
struct Candidate {
  std::int64_t bm, bn, warps_m, warps_n, k_bytes;
  bool swap_ab = false;  ///< wgmma with swapped operands (the tile's N along the wgmma's m64)
};

// Ampere: the sm_80 tensor-op configurations of CUTLASS's kernel generator
// (NVIDIA/cutlass python/cutlass_library/generator.py, GenerateSM80_TensorOp_16816: tiles
// 256x128, 128x256, 256x64, 64x256, 128x128, 128x64, 64x128, 64x64 with warp grids 4x2, 2x4,
// 4x1, 1x4, 2x2, with K 32 or 64 for 16-bit types, i.e. 64 or 128 B of each row per k-tile).
constexpr Candidate kAmpere[] = {
    {256, 128, 4, 2, 64},  {128, 256, 2, 4, 64},  {256, 64, 4, 1, 64},   {64, 256, 1, 4, 64},
    {128, 128, 2, 2, 64},  {128, 64, 2, 2, 64},   {64, 128, 2, 2, 64},   {64, 64, 2, 2, 64},
    {256, 128, 4, 2, 128}, {128, 256, 2, 4, 128}, {128, 128, 2, 2, 128}, {128, 64, 2, 2, 128},
    {64, 128, 2, 2, 128},  {64, 64, 2, 2, 128}};

// Hopper: the sm_90a warp-specialised wgmma configurations of the same generator
// (GenerateSM90_TensorOp_16b_WGMMA_gemm and the fp8 variant): 64x128, 64x256 with one consumer
// warpgroup (ping-pong), 128x128, 128x256, 256x128, 128x64 with two (cooperative), 128 B of
// each row per k-tile (bk 64 for 16-bit types, 128 for fp8).
// Plus the cooperative tiles cuBLAS 13.0's nvjet kernels ran on our H100 and H200
// (tests/validation/gpu/data, `kernels` column: 320x128, 192x192 and 160x192 in cuBLAS's
// column-major orientation, i.e. 128x320, 192x192, 192x160 here), each with two consumer
// warpgroups side by side along N (each warpgroup's rows whole m64 wgmmas, N <= 256).
constexpr Candidate kHopper[] = {
    {128, 128, 2, 1, 128},
    {128, 256, 2, 1, 128},
    {256, 128, 2, 1, 128},
    {64, 128, 1, 1, 128},
    {64, 256, 1, 1, 128},
    {128, 64, 2, 1, 128},
    {128, 320, 1, 2, 128},
    {192, 192, 1, 2, 128},
    {192, 160, 1, 2, 128},
    // cuBLAS's skinny-M kernels (data/*_llm_run1.csv, m = 1..64: nvjet_sm90_tst_64x8, 256x8,
    // 384x8, 64x16, 64x32, 64x64 with 13-16 stages, "_v"): 8 to 64 rows of M against 64 to 384
    // columns of N, one consumer warpgroup whose wgmmas run m64 along N (swapped operands).
    {8, 64, 1, 1, 128, true},
    {8, 128, 1, 1, 128, true},
    {8, 256, 1, 1, 128, true},
    {8, 384, 1, 1, 128, true},
    {16, 64, 1, 1, 128, true},
    {16, 128, 1, 1, 128, true},
    {16, 256, 1, 1, 128, true},
    {32, 64, 1, 1, 128, true},
    {32, 128, 1, 1, 128, true},
    {32, 256, 1, 1, 128, true},
    {64, 64, 1, 1, 128, true},
    {64, 128, 1, 1, 128, true}};

// Hopper convolutions that are not plain GEMMs (a filter wider than 1x1 or a stride): the tiles
// of cuDNN 9.19's implicit-GEMM fprop kernels, `sm90_xmma_fprop_implicit_gemm_..._tilesize
// <M>x<N>x<K>_warpgroupsize<A>x<B>x1` (M along the output pixels, N along the output channels,
// A x B consumer warpgroups), every one that its autotuner (cudnn.benchmark) picked for the
// 3x3 and strided layers of tests/validation/gpu/data (*_run1.csv, *_networks_run1.csv,
// *_heldout_run1.csv: 43 kernel rows): 64x64x64, 64x128x64, 128x64x64, 128x128x64, 128x128x32,
// 256x64x32, 64x192x32 with one consumer warpgroup, 256x96x32 and 256x96x64 with two. The
// k-tile is 32 or 64 deep (64 or 128 bytes of each row), not CUTLASS's 128 bytes only.
constexpr Candidate kHopperFprop[] = {
    {64, 64, 1, 1, 128},   {64, 128, 1, 1, 128}, {128, 64, 1, 1, 128},
    {128, 128, 1, 1, 128}, {128, 128, 1, 1, 64}, {256, 64, 1, 1, 64},
    {64, 192, 1, 1, 64},   {256, 96, 2, 1, 64},  {256, 96, 2, 1, 128}};

/// Ampere multistage kernels of CUTLASS use 3 to 5 stages for these tiles (generator.py above).
constexpr std::int64_t kAmpereMinStages = 3, kAmpereMaxStages = 5;

/// ASSUMPTION (24-64): registers a thread needs beside accumulators and fragments (addresses,
/// loop counters, predicates) in a CUTLASS main loop.
constexpr std::int64_t kRegOverhead = 40;
/// The most registers a consumer warpgroup asks for with setmaxnreg in CUTLASS's sm90 kernels
/// (cooperative 232, ping-pong 240: cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_*.hpp).
constexpr std::int64_t kConsumerMaxRegs = 232;
/// Swizzle group sizes: CUTLASS 2.x GemmIdentityThreadblockSwizzle<1..8>, CUTLASS 3.x
/// max_swizzle_size 1..8 (and 16 for very tall grids).
constexpr std::int64_t kSwizzles[] = {1, 2, 4, 8, 16};

/// A CTA configuration that fits an SM, with what the estimate needs of it.
struct Shape {
  GemmCtaTile tile;
  models::MainloopShape ms;
  models::Occupancy occ;
  double eff = 1;  ///< tensor-pipe share of the main loop's bottleneck
};

/// Registers per thread of an mma.sync CTA: accumulators, two k-steps of A and B fragments
/// (m16k16: 4 registers per 16 rows; n8k16: 2 per 8 columns), plus kRegOverhead; rounded to 8.
std::int64_t mma_sync_regs(const models::MainloopShape& s) {
  const std::int64_t frags = 2 * ((s.wm / 16) * 4 + (s.wn / 8) * 2);
  return (s.acc_per_thread + frags + kRegOverhead + 7) / 8 * 8;
}

/// Main-loop efficiency of mma.sync: per k-step, each sub-partition's tensor cycles over the
/// largest of tensor, shared-memory (ldmatrix reads and cp.async writes) and issue cycles
/// (models/gpu_sm README rules 3-5).
double mma_sync_efficiency(const models::GpuSmConfig& sm, const models::MainloopShape& s) {
  const double warps_sp =
      std::ceil(static_cast<double>(s.compute_warps) / static_cast<double>(sm.sub_partitions));
  const double tensor = warps_sp * static_cast<double>(s.mma_per_step * s.mma_ii);
  const double steps_per_tile = static_cast<double>(s.bk / s.k_instr);
  const double smem =
      warps_sp * (static_cast<double>(s.ldm_per_step * s.ldm_cycles) +
                  static_cast<double>(s.cp_per_warp * s.cp_smem_cycles) / steps_per_tile);
  const double issue = warps_sp * (static_cast<double>(s.mma_per_step + s.ldm_per_step) +
                                   static_cast<double>(s.cp_per_warp) / steps_per_tile);
  return tensor / std::max({tensor, smem, issue});
}

/// Every candidate of the device's architecture that fits its SM, at each allowed stage count.
std::vector<Shape> shapes(const models::GpuDeviceConfig& d, TcType type, std::int64_t out_bytes,
                          const GpuMappingOptions& o) {
  const auto& sm = d.gpu_sm;
  const bool hopper = sm.arch == GpuArch::kHopper;
  const std::int64_t e = models::tc_type_bytes(type);
  std::vector<Shape> out;
  std::vector<Candidate> list(hopper ? std::begin(kHopper) : std::begin(kAmpere),
                              hopper ? std::end(kHopper) : std::end(kAmpere));
  if (hopper && o.implicit_gemm) list.assign(std::begin(kHopperFprop), std::end(kHopperFprop));
  // A CTA named in full (tile and warp grid: a vendor kernel) runs even when it is not built in.
  if (o.tile_m > 0 && o.tile_n > 0 && o.warps_m > 0 && o.warps_n > 0) {
    const bool known = std::any_of(list.begin(), list.end(), [&](const Candidate& c) {
      return c.bm == o.tile_m && c.bn == o.tile_n && c.warps_m == o.warps_m &&
             c.warps_n == o.warps_n && !(o.implicit_gemm && c.swap_ab);
    });
    if (!known)
      list.push_back(
          {o.tile_m, o.tile_n, o.warps_m, o.warps_n, hopper ? 128 : 64, hopper && o.tile_m < 64});
  }
  for (const Candidate* c = list.data(); c != list.data() + list.size(); ++c) {
    if ((o.tile_m > 0 && c->bm != o.tile_m) || (o.tile_n > 0 && c->bn != o.tile_n)) continue;
    if (o.implicit_gemm && c->swap_ab) continue;  // cuBLAS's skinny GEMM tiles, not cuDNN's
    if ((o.warps_m > 0 && c->warps_m != o.warps_m) || (o.warps_n > 0 && c->warps_n != o.warps_n))
      continue;
    GemmCtaTile t;
    t.bm = c->bm;
    t.bn = c->bn;
    t.bk = o.tile_k > 0 ? o.tile_k : c->k_bytes / e;
    t.warps_m = c->warps_m;
    t.warps_n = c->warps_n;
    t.in_type = type;
    t.out_bytes = out_bytes;
    t.instr = hopper ? models::MmaInstr::kWgmma : models::MmaInstr::kMmaSync;
    t.copy = hopper ? models::CopyEngine::kTma : models::CopyEngine::kCpAsync;
    t.swap_ab = c->swap_ab;
    const std::int64_t stage_bytes = (t.bm + t.bn) * t.bk * e + (hopper ? 16 : 0);
    const auto smem_block = static_cast<std::int64_t>(sm.smem_per_block.value());
    const std::int64_t fit = smem_block / stage_bytes;
    // Hopper: CUTLASS 3's StageCountAuto fills the block's shared memory; Ampere: 3..5 stages.
    std::int64_t lo = hopper ? fit : kAmpereMinStages;
    std::int64_t hi = hopper ? fit : std::min(fit, kAmpereMaxStages);
    if (o.stages > 0) {  // a fixed stage count (a named kernel's), if the block holds it
      lo = o.stages;
      hi = std::min(fit, o.stages);
    }
    for (std::int64_t st = std::max<std::int64_t>(lo, 2); st <= hi; ++st) {
      t.stages = st;
      t.regs_per_thread = 32;  // provisional: the shape's counts do not depend on it
      Shape s;
      try {
        s.ms = models::mainloop_shape(sm, t);
      } catch (const ConfigError&) {
        continue;  // this tile cannot run on this SM (warp split, wgmma N, shared memory)
      }
      if (hopper) {
        // CUTLASS sm90 kernels launch with MinBlocksPerMultiprocessor 1: the register file is
        // the CTA's, and setmaxnreg hands the consumers up to kConsumerMaxRegs each.
        if (s.ms.acc_per_thread + kRegOverhead > kConsumerMaxRegs) continue;
        t.regs_per_thread =
            std::min<std::int64_t>(255, sm.registers / s.ms.resources.threads / 8 * 8);
      } else {
        t.regs_per_thread = mma_sync_regs(s.ms);
        if (t.regs_per_thread > 255) continue;  // would spill
      }
      s.ms = models::mainloop_shape(sm, t);
      s.occ = models::occupancy(sm, s.ms.resources);
      s.tile = t;
      s.eff = hopper ? 1.0 : mma_sync_efficiency(sm, s.ms);
      out.push_back(s);
    }
  }
  return out;
}

/// The GEMM's sizes and the device terms every candidate shares.
struct Problem {
  std::int64_t M = 0, N = 0, K = 0;
  std::int64_t e = 0, out_e = 0;  ///< input and output element bytes
  double rate = 0;                ///< tensor FMA per SM per clock
  double latency = 0;             ///< cycles from a copy's issue to its data (L2 miss, average)
  double l2_cap = 0;              ///< bytes of L2 one datum may occupy (one partition's share)
  double a_bytes = 0;             ///< distinct bytes of A (M x K, or an implicit GEMM's image)
  double launch = 0;              ///< launch overhead in cycles
  double setup = 0;           ///< the library kernel's fixed set-up in cycles (not the reduce's)
  double port_bandwidth = 0;  ///< bytes per clock of one SM's L2 port
  double gap = 0;             ///< gap between kernels of one stream, in cycles
  std::int64_t sms = 0;
};

/// HBM bytes of reading A and B in tiles when concurrent CTAs advance through K together (the
/// wave shares each k-tile in L2) and swizzle groups of `g` tile rows (M raster; columns when
/// `along_n`) walk the other dimension: the group's panels are fetched once if they stay in L2,
/// the other operand once per group unless all of it stays too.
double hbm_ab_bytes(const Problem& p, const Shape& s, std::int64_t workers, bool along_n,
                    std::int64_t g) {
  const double A = p.a_bytes;
  const double B = static_cast<double>(p.N) * static_cast<double>(p.K * p.e);
  if (A + B <= p.l2_cap) return A + B;
  const std::int64_t rows = along_n ? ceil_div(p.N, s.tile.bn) : ceil_div(p.M, s.tile.bm);
  const std::int64_t cols = along_n ? ceil_div(p.M, s.tile.bm) : ceil_div(p.N, s.tile.bn);
  const double panel = along_n ? B : A;  // the operand whose panels a group holds
  const double other = along_n ? A : B;
  const double group = panel * static_cast<double>(std::min(g, rows)) / static_cast<double>(rows);
  const std::int64_t wave_cols = std::max<std::int64_t>(1, workers / std::min(g, rows));
  const double panel_reads =
      group <= p.l2_cap / 2 ? panel : panel * static_cast<double>(ceil_div(cols, wave_cols));
  const double other_reads =
      other + group <= p.l2_cap ? other : other * static_cast<double>(ceil_div(rows, g));
  return panel_reads + other_reads;
}

struct Choice;
double loaded_latency(const models::GpuDeviceConfig& d, const Problem& p, const Choice& c,
                      std::int64_t units, std::int64_t resident);

struct Choice {
  const Shape* shape = nullptr;
  GpuDecomposition dec = GpuDecomposition::kDataParallel;
  std::int64_t split = 1, k_slice = 0, grid = 0, waves = 0;
  bool along_n = false;
  std::int64_t swizzle = 1;
  std::int64_t cluster_m = 1;
  double hide = 1, compute = 0, sm_time = 0, hbm_bytes = 0, l2_bytes = 0, est = 0;
  double miss = 1;  ///< share of the A and B bytes through L2 that come from HBM
  double hbm_cycles = 0, l2_cycles = 0;
  double latency = 0;  ///< a k-tile copy's round trip under this candidate's load (cycles)
};

/// The round trip of one k-tile copy under the candidate's own load. The SM models keep
/// (stages - 1) k-tile copies in flight per resident CTA (models/gpu_sm README, rule 1) and
/// the device serves them first come first served: a copy waits for the unloaded latency, for
/// its own bytes through its SM's L2 port, and for the HBM to drain the missing bytes every
/// active SM has in flight ahead of it (at peak bandwidth). An SM then streams (stages - 1) x
/// k-tile bytes per round trip (Little's law), so a memory-bound GEMM on few SMs cannot reach
/// the HBM's peak however wide their ports: the H200's 1x12288x49152 on 48 CTAs streams 2.96
/// TB/s in the device (tests/validation/gpu/README.md), on 128 split-K CTAs 4.05.
double loaded_latency(const models::GpuDeviceConfig& d, const Problem& p, const Choice& c,
                      std::int64_t units, std::int64_t resident) {
  const auto& t = c.shape->tile;
  const double copy = static_cast<double>((std::min(t.bm, p.M) + std::min(t.bn, p.N)) * t.bk * p.e);
  const double active = static_cast<double>(std::min(units, p.sms));
  const double in_flight = static_cast<double>(resident * (t.stages - 1)) * copy * c.miss;
  return p.latency + copy / p.port_bandwidth + active * in_flight / d.hbm_bytes_per_cycle();
}

/// `c` beats `best` when its estimate is lower; within 0.1% (a tie of the max() roofline, e.g.
/// 256 tiles of 128x128 against 128 of 128x256 on 132 SMs) the one moving fewer L2 bytes wins:
/// it leaves the SMs' L2 ports and the crossbar slack that the estimate's peak rates assume
/// (at H100's tensor rate a 128x128 bf16 tile needs 64 B/clk of its SM's 103 B/clk port, a
/// 128x256 tile 48, while all SMs share 5040 B/clk of crossbar, ~38 per SM).
bool better(const Choice& c, const Choice& best) {
  if (!best.shape) return true;
  if (c.est < best.est * (1 - 1e-3)) return true;
  return c.est <= best.est * (1 + 1e-3) && c.l2_bytes < best.l2_bytes * (1 - 1e-9);
}

/// The estimate of one candidate (see the header): the busiest SM's CTAs at the tile's
/// efficiency, the pipeline fill and exposed epilogues, HBM and L2 traffic at peak bandwidth,
/// overlapped, plus the launch overhead.
void estimate(const models::GpuDeviceConfig& d, const Problem& p, Choice& c) {
  const Shape& s = *c.shape;
  const auto& t = s.tile;
  const bool persistent = d.gpu_sm.arch == GpuArch::kHopper;
  const std::int64_t ctas = s.occ.ctas;
  const std::int64_t workers = p.sms * ctas;
  const std::int64_t tiles = ceil_div(p.M, t.bm) * ceil_div(p.N, t.bn);
  const std::int64_t kt_all = ceil_div(p.K, t.bk);
  const double kt_cycles = static_cast<double>(t.bm * t.bn * t.bk) / p.rate;
  // Hopper kernels run 2x1 thread-block clusters when the grid has two tile rows or more: the
  // B tile of a k-step is multicast by TMA to both CTAs, so L2 serves it once per cluster.
  const std::int64_t b_reads = ceil_div(ceil_div(p.M, t.bm), c.cluster_m);
  const double reads = static_cast<double>((ceil_div(p.N, t.bn) * p.M + b_reads * p.N) * p.K * p.e);
  const double ab_hbm = hbm_ab_bytes(p, s, workers, c.along_n, c.swizzle);
  c.miss = std::min(1.0, ab_hbm / reads);
  const std::int64_t units =
      c.dec == GpuDecomposition::kStreamK ? std::min(workers, tiles * kt_all) : tiles * c.split;
  const std::int64_t resident = std::min(ctas, ceil_div(units, p.sms));
  c.latency = loaded_latency(d, p, c, units, resident);
  c.hide = std::min(1.0, static_cast<double>(resident * (t.stages - 1)) * kt_cycles / c.latency);
  const double step_cycles = static_cast<double>(t.bm * t.bn * s.ms.k_instr) / p.rate;
  // Each k-step's A and B rows cross the SM's own L2 port (l2.port_bandwidth bytes per clock;
  // a cluster's multicast B reaches every member's shared memory through its port, so it does
  // not lighten it): a 128x128 bf16 tile needs 64 B/clk at H100's tensor rate, a 256x128 tile
  // 48 (H100 and H200 ports: 103 B/clk, measured on an H200). The crossbar all SMs share is in
  // the L2 term below (GpuDeviceConfig::l2_bytes_per_cycle).
  const double port_step =
      static_cast<double>((t.bm + t.bn) * s.ms.k_instr * p.e) / p.port_bandwidth;
  const double per_step = std::max(step_cycles / (s.eff * c.hide), port_step);
  const double epilogue = static_cast<double>(t.bm * t.bn * (c.split > 1 ? 4 : p.out_e)) /
                          static_cast<double>(d.l2.port_bandwidth);
  double partial_bytes = 0;
  if (c.dec == GpuDecomposition::kStreamK) {
    const std::int64_t iters = tiles * kt_all;
    c.grid = std::min(workers, iters);
    c.waves = 1;
    const std::int64_t per_worker = ceil_div(iters, c.grid);
    const double steps = static_cast<double>(per_worker) * static_cast<double>(t.bk / s.ms.k_instr);
    // Each worker fixes up at most two partial tiles (its first and last) through L2.
    c.compute = static_cast<double>(ctas) * (steps * per_step + 2 * epilogue);
    partial_bytes = static_cast<double>(2 * c.grid * t.bm * t.bn * 4);
    c.sm_time = c.compute + p.latency + epilogue;
  } else {
    c.grid = persistent ? std::min(units, workers) : units;
    c.waves = ceil_div(units, workers);
    const std::int64_t per_sm = ceil_div(units, p.sms);
    const double steps = static_cast<double>(ceil_div(c.k_slice, s.ms.k_instr));
    c.compute = static_cast<double>(per_sm) * steps * per_step;
    // One CTA per SM and no persistence: each CTA fills its pipeline and stores its tile with
    // nothing else on the SM; otherwise another CTA (or the next tile) covers them.
    const bool alone = ctas == 1 && !persistent;
    const double exposed = alone ? static_cast<double>(per_sm) : 1.0;
    // A cooperative persistent kernel (two or more consumer warpgroups on one tile: CUTLASS's
    // KernelTmaWarpSpecializedCooperative) stores each tile before its consumers start the next,
    // so every tile's epilogue is exposed; the producer's prefetch hides the fill after the
    // first. Ping-pong (one consumer warpgroup per tile) overlaps one's epilogue with the
    // other's main loop.
    const bool cooperative = persistent && t.warps_m * t.warps_n >= 2;
    const double epilogues = cooperative ? static_cast<double>(per_sm) : exposed;
    c.sm_time = c.compute + exposed * p.latency + epilogues * epilogue;
    if (c.split > 1) partial_bytes = 2.0 * static_cast<double>(c.split * p.M * p.N * 4);
  }
  const double c_bytes = static_cast<double>(p.M * p.N * p.out_e);
  c.l2_bytes = reads + c_bytes + partial_bytes;
  c.hbm_bytes = ab_hbm + c_bytes + (partial_bytes / 2 > p.l2_cap ? partial_bytes : 0.0);
  c.hbm_cycles = c.hbm_bytes / d.hbm_bytes_per_cycle();
  c.l2_cycles = c.l2_bytes / d.l2_bytes_per_cycle();
  c.est = p.launch + p.setup + std::max({c.sm_time, c.hbm_cycles, c.l2_cycles});
  if (c.dec == GpuDecomposition::kSplitK) {
    // The lowering launches cuBLAS's separate reduction kernel after a split-K GEMM
    // (workloads/lowering/gpu_lowering.cpp, ".splitk_reduce"): its launch, the gap before it,
    // and its read of the fp32 partials plus write of C, from L2 when the partials fit one
    // partition's share, else from HBM.
    const double reduce_bytes = static_cast<double>(c.split * p.M * p.N * 4) + c_bytes;
    const double rate = static_cast<double>(c.split * p.M * p.N * 4) <= p.l2_cap
                            ? d.l2_bytes_per_cycle()
                            : d.hbm_bytes_per_cycle();
    c.est += p.launch + p.gap + reduce_bytes / rate;
  }
}

Problem problem(const models::GpuDeviceConfig& d, const Layer& layer, TcType type) {
  Problem p;
  p.M = layer.rows();
  p.N = layer.n;
  p.K = layer.k;
  p.e = models::tc_type_bytes(type);
  p.out_e = type == TcType::kTf32 ? 4 : dtype_bytes(layer.dtype);
  p.rate = static_cast<double>(d.gpu_sm.tc_rate(type));
  p.latency = static_cast<double>(d.l2.hit_latency) + static_cast<double>(d.l2.far_penalty) / 2 +
              d.cycles(d.hbm.latency);
  p.l2_cap = static_cast<double>(d.l2.capacity.value()) / static_cast<double>(d.l2.partitions);
  p.launch = d.cycles(d.launch_overhead);
  p.port_bandwidth = static_cast<double>(d.l2.port_bandwidth);
  p.gap = d.cycles(d.inter_kernel_gap);
  p.sms = d.sms;
  return p;
}

/// Every decomposition, split and rasterisation of one shape; keeps the best in `best`.
void search(const models::GpuDeviceConfig& d, const Problem& p, const GpuMappingOptions& o,
            const Shape& s, Choice& best, std::int64_t& count) {
  const auto& t = s.tile;
  const std::int64_t tiles = ceil_div(p.M, t.bm) * ceil_div(p.N, t.bn);
  const std::int64_t kt_all = ceil_div(p.K, t.bk);
  const std::int64_t workers = p.sms * s.occ.ctas;
  // Split-K as CUTLASS's parallel split-K runs it (NVIDIA/cutlass include/cutlass/gemm/device/
  // gemm_splitk_parallel.h): S slices of whole k-tiles, each CTA writing its fp32 partial tile
  // to a workspace of S x M x N, then a separate reduction kernel (reduction/kernel/
  // reduce_split_k.h; cuBLAS's splitKreduce_kernel) that reads the S partials and writes C. The
  // serial variant (gemm/kernel/gemm.h, kSplitKSerial: slices take turns on C behind a
  // semaphore) is not a candidate: cuBLAS ran the parallel one on every decode GEMM measured
  // (tests/validation/gpu/data). S runs 2..max_split_k, so it includes cuBLAS's choice for
  // decode, S = SMs / tiles (one wave).
  std::vector<std::pair<GpuDecomposition, std::int64_t>> decs;
  if (o.split_k_slices <= 1) decs.push_back({GpuDecomposition::kDataParallel, 1});
  if (o.split_k_slices > 1) {
    const std::int64_t sk = o.split_k_slices;
    if (sk <= kt_all && ceil_div(kt_all, ceil_div(kt_all, sk)) == sk)
      decs.push_back({GpuDecomposition::kSplitK, sk});
  } else if (o.split_k && !o.implicit_gemm && tiles < workers && o.split_k_slices == 0) {
    for (std::int64_t sk = 2; sk <= std::min(o.max_split_k, kt_all); ++sk)
      if (ceil_div(kt_all, ceil_div(kt_all, sk)) == sk)
        decs.push_back({GpuDecomposition::kSplitK, sk});
  }
  if (o.stream_k && o.split_k_slices == 0) decs.push_back({GpuDecomposition::kStreamK, 1});
  for (const auto& [dec, sk] : decs)
    for (const bool along_n : {false, true})
      for (const std::int64_t g : kSwizzles) {
        const std::int64_t rows = along_n ? ceil_div(p.N, t.bn) : ceil_div(p.M, t.bm);
        if (g > 1 && g >= 2 * rows) continue;  // a group taller than the grid changes nothing
        Choice c;
        c.shape = &s;
        c.dec = dec;
        c.split = sk;
        c.k_slice = ceil_div(kt_all, sk) * t.bk;
        c.along_n = along_n;
        c.swizzle = g;
        // CUTLASS's sm90 generator pairs its large tiles with 2x1x1 clusters (multicast B);
        // a cluster size the user fixed must divide the grid's tile rows. The device runs
        // clusters on data-parallel and split-K grids whose tile rows they divide (a padded
        // grid's idle CTAs and stream-K's shared tiles are not modelled), on as many SMs as
        // hold whole clusters.
        const bool even = ceil_div(p.M, t.bm) % 2 == 0 && p.sms % 2 == 0;
        if (o.cluster_m > 0) {
          if (ceil_div(p.M, t.bm) % o.cluster_m != 0) continue;
          if (o.cluster_m > 1 && dec == GpuDecomposition::kStreamK) continue;
          c.cluster_m = o.cluster_m;
        } else if (d.gpu_sm.arch == GpuArch::kHopper && even && dec != GpuDecomposition::kStreamK) {
          c.cluster_m = 2;
        }
        estimate(d, p, c);
        ++count;
        if (better(c, best)) best = c;
      }
}

std::string describe(const GpuGemmMapping& m, const Choice& c, const Problem& p,
                     const Choice& runner_up) {
  std::string s = fmt::format(
      "{} of {} candidates: {} stages fill {} of shared memory per block; {} CTA(s)/SM ({} "
      "bound); {} tiles{} over {} SMs = {} wave(s); main loop {:.0f}% tensor-bound, latency "
      "{:.0f}% hidden; {}-raster swizzle {}: HBM {:.1f} MB, L2 {:.1f} MB; bound by {}",
      m.tile_text(), m.candidates, m.tile.stages,
      format_quantity(static_cast<double>(m.occupancy.smem_per_cta), Dimension::kBytes),
      m.ctas_per_sm, models::occupancy_limit_name(m.occupancy.limiter), m.tiles_m * m.tiles_n,
      m.split_k > 1 ? fmt::format(" x {} K slices", m.split_k) : std::string(), p.sms, m.waves,
      100 * m.mainloop_efficiency, 100 * m.latency_hiding, m.raster_along_n ? "N" : "M", m.swizzle,
      static_cast<double>(m.hbm_bytes) / 1e6, static_cast<double>(m.l2_bytes) / 1e6,
      m.bounds.bound);
  if (runner_up.shape)
    s += fmt::format("; next best {}x{}x{}/{} {:+.1f}%", runner_up.shape->tile.bm,
                     runner_up.shape->tile.bn, runner_up.shape->tile.bk,
                     runner_up.shape->tile.stages, 100 * (runner_up.est / c.est - 1));
  return s;
}

}  // namespace

std::int64_t gpu_implicit_gemm_k(const GpuMappingOptions& o, std::int64_t k, std::int64_t bk) {
  const std::int64_t c = o.conv_channels;
  if (o.conv_taps < 2 || bk < 1 || c < bk || c % bk == 0) return k;
  return o.conv_taps * ceil_div(c, bk) * bk;
}

const char* gpu_decomposition_name(GpuDecomposition d) {
  switch (d) {
    case GpuDecomposition::kDataParallel:
      return "data_parallel";
    case GpuDecomposition::kSplitK:
      return "split_k";
    case GpuDecomposition::kStreamK:
      return "stream_k";
  }
  return "?";
}

std::string GpuGemmMapping::tile_text() const {
  std::string s =
      fmt::format("{}x{}x{}/{} {}{}x{} {}cta {}w", tile.bm, tile.bn, tile.bk, tile.stages,
                  tile.instr == models::MmaInstr::kWgmma ? (tile.swap_ab ? "wgT" : "wg") : "w",
                  tile.warps_m, tile.warps_n, ctas_per_sm, waves);
  if (decomposition == GpuDecomposition::kSplitK) s += fmt::format(" sk{}", split_k);
  if (decomposition == GpuDecomposition::kStreamK) s += " streamk";
  if (swizzle > 1) s += fmt::format(" swz{}{}", swizzle, raster_along_n ? "n" : "m");
  if (cluster_m > 1) s += fmt::format(" c{}x1", cluster_m);
  return s;
}

TcType gpu_tc_type(const Layer& layer) {
  switch (layer.dtype) {
    case DataType::kBf16:
      return TcType::kBf16;
    case DataType::kFp8E4M3:
      return TcType::kFp8E4M3;
    case DataType::kFp8E5M2:
      return TcType::kFp8E5M2;
    case DataType::kInt8:
      return TcType::kInt8;
    case DataType::kFp32:
      return TcType::kTf32;
    case DataType::kInt32:
      break;
  }
  throw WorkloadError(
      fmt::format("{}: layer '{}': no GPU tensor-core path for {} "
                  "inputs; use int8, bf16, fp8 or fp32 (tf32)",
                  layer.origin.str(), layer.name, dtype_name(layer.dtype)));
}

GpuGemmMapping map_gpu_gemm(const models::GpuDeviceConfig& d, const Layer& layer,
                            const GpuMappingOptions& o) {
  const TcType type = gpu_tc_type(layer);
  if (d.gpu_sm.tc_rate(type) == 0)
    throw WorkloadError(
        fmt::format("{}: layer '{}': the {} SM has no {} tensor-core path{}", layer.origin.str(),
                    layer.name, models::gpu_arch_name(d.gpu_sm.arch), models::tc_type_name(type),
                    type == TcType::kFp8E4M3 || type == TcType::kFp8E5M2
                        ? ": fp8 needs an H100-class (hopper) device"
                        : ""));
  if (layer.rows() < 1 || layer.n < 1 || layer.k < 1)
    throw WorkloadError(fmt::format("{}: layer '{}': empty GEMM {}x{}x{}", layer.origin.str(),
                                    layer.name, layer.rows(), layer.n, layer.k));
  Problem p = problem(d, layer, type);
  // The library kernel's fixed set-up: the same for every candidate, in the estimate.
  p.setup = d.cycles(o.implicit_gemm ? d.implicit_gemm_setup : d.gemm_setup);
  const std::vector<Shape> all = shapes(d, type, p.out_e, o);
  if (all.empty())
    throw WorkloadError(
        fmt::format("{}: layer '{}': no CUTLASS tile fits the SM's shared memory and registers{}",
                    layer.origin.str(), layer.name,
                    o.tile_m > 0 || o.tile_n > 0
                        ? fmt::format(" with system.mapping.tile_m = {} and tile_n = {} (0: any); "
                                      "candidate tiles have 64, 128 or 256 rows and columns",
                                      o.tile_m, o.tile_n)
                        : std::string()));
  if (o.cluster_m > 1 && d.gpu_sm.arch != GpuArch::kHopper)
    throw WorkloadError(fmt::format(
        "{}: layer '{}': system.mapping.cluster_m = {}: thread-block clusters need an H100-class "
        "(hopper) SM; use 0 or 1",
        layer.origin.str(), layer.name, o.cluster_m));
  if (o.cluster_m > 1 && d.sms % o.cluster_m != 0)
    throw WorkloadError(fmt::format(
        "{}: layer '{}': system.mapping.cluster_m = {} does not divide the device's {} SMs, so "
        "some cluster would have no SMs of its own; use 0 (the mapper chooses) or a divisor "
        "of {}",
        layer.origin.str(), layer.name, o.cluster_m, d.sms, d.sms));
  Choice best, runner_up;
  std::int64_t count = 0;
  std::vector<Problem> per_shape;  // each shape's K (an implicit GEMM's tap-aligned k-tiles)
  per_shape.reserve(all.size());
  for (const Shape& s : all) {
    per_shape.push_back(p);
    Problem& q = per_shape.back();
    q.K = gpu_implicit_gemm_k(o, p.K, s.tile.bk);
    q.a_bytes = static_cast<double>(q.M) * static_cast<double>(q.K * q.e);
    if (o.conv_image_bytes > 0)
      q.a_bytes = std::min(q.a_bytes, static_cast<double>(o.conv_image_bytes));
    Choice local;
    search(d, per_shape.back(), o, s, local, count);
    if (better(local, best)) {
      if (best.shape) runner_up = best;
      best = local;
    } else if (!runner_up.shape || local.est < runner_up.est) {
      runner_up = local;
    }
  }
  if (!best.shape && o.split_k_slices > 1)
    throw WorkloadError(fmt::format(
        "{}: layer '{}': system.mapping.split_k_slices = {}: K = {} has no split into that many "
        "slices of whole k-tiles{}; use 0 (the mapper chooses) or fewer slices",
        layer.origin.str(), layer.name, o.split_k_slices, p.K,
        o.cluster_m > 0 ? fmt::format(" with cluster_m = {}", o.cluster_m) : std::string()));
  if (!best.shape)
    throw WorkloadError(fmt::format(
        "{}: layer '{}': system.mapping.cluster_m = {} does not divide the grid's tile rows for "
        "any candidate tile (M = {}: {} rows of 64, {} of 128, {} of 192, {} of 256 rows); use 0 "
        "(the mapper chooses) or a divisor of one of them",
        layer.origin.str(), layer.name, o.cluster_m, p.M, ceil_div(p.M, 64), ceil_div(p.M, 128),
        ceil_div(p.M, 192), ceil_div(p.M, 256)));
  const Shape& s = *best.shape;
  GpuGemmMapping m;
  m.m = p.M;
  m.n = p.N;
  m.k = p.K;
  m.tile = s.tile;
  if (best.dec != GpuDecomposition::kDataParallel) m.tile.out_bytes = 4;  // fp32 partials
  m.occupancy = s.occ;
  m.ctas_per_sm = s.occ.ctas;
  m.tiles_m = ceil_div(p.M, s.tile.bm);
  m.tiles_n = ceil_div(p.N, s.tile.bn);
  m.decomposition = best.dec;
  m.split_k = best.split;
  m.k_slice = best.dec == GpuDecomposition::kStreamK ? s.tile.bk : best.k_slice;
  m.grid = best.grid;
  m.waves = best.waves;
  m.persistent = d.gpu_sm.arch == GpuArch::kHopper || best.dec == GpuDecomposition::kStreamK;
  m.raster_along_n = best.along_n;
  m.swizzle = best.swizzle;
  m.cluster_m = best.cluster_m;
  m.hbm_bytes = static_cast<std::uint64_t>(best.hbm_bytes);
  m.l2_bytes = static_cast<std::uint64_t>(best.l2_bytes);
  m.mainloop_efficiency = s.eff;
  m.latency_hiding = best.hide;
  m.compute_cycles = best.compute;
  m.estimated_cycles = best.est;
  m.estimated_seconds = best.est / d.gpu_sm.clock.value();
  m.candidates = count;
  auto& b = m.bounds;
  b.macs = static_cast<std::uint64_t>(p.M) * static_cast<std::uint64_t>(p.N) *
           static_cast<std::uint64_t>(p.K);
  b.compute_cycles = static_cast<double>(b.macs) / (p.rate * static_cast<double>(p.sms));
  b.compulsory_bytes =
      static_cast<std::uint64_t>((p.M * p.K + p.K * p.N) * p.e + p.M * p.N * p.out_e);
  b.hbm_cycles = best.hbm_cycles;
  b.l2_cycles = best.l2_cycles;
  b.roofline_cycles = std::max({b.compute_cycles, b.hbm_cycles, b.l2_cycles});
  b.bound = b.roofline_cycles == b.compute_cycles ? "compute"
            : b.roofline_cycles == b.hbm_cycles   ? "hbm"
                                                  : "l2";
  m.why = describe(m, best, p, runner_up);
  return m;
}

std::vector<models::CtaWork> gpu_cta_works(const GpuGemmMapping& m) {
  const auto& t = m.tile;
  // A thread-block cluster of `cl` tile rows is the unit of launch: its members get
  // consecutive ids (one K slice after another), so on SM id mod SMs they run side by side.
  const std::int64_t cl =
      m.cluster_m > 1 && m.decomposition != GpuDecomposition::kStreamK ? m.cluster_m : 1;
  SYSTOLE_ASSERT(m.tiles_m % cl == 0, "gpu mapping: a cluster must divide the tile rows");
  // Units in launch order: swizzle groups of `swizzle` tile rows (columns for an N raster;
  // a cluster's rows count as one unit row, a group at least one), each walking the other
  // dimension.
  std::vector<std::pair<std::int64_t, std::int64_t>> order;  // (unit row, tile column)
  const std::int64_t rows = m.raster_along_n ? m.tiles_n : m.tiles_m / cl;
  const std::int64_t cols = m.raster_along_n ? m.tiles_m / cl : m.tiles_n;
  const std::int64_t group =
      m.raster_along_n ? m.swizzle : std::max<std::int64_t>(1, m.swizzle / cl);
  for (std::int64_t g0 = 0; g0 < rows; g0 += group)
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = g0; r < std::min(rows, g0 + group); ++r)
        order.push_back(m.raster_along_n ? std::make_pair(c, r) : std::make_pair(r, c));
  std::vector<models::CtaWork> works;
  auto add = [&](std::int64_t unit, std::int64_t k0, std::int64_t k1, std::int64_t rank = 0) {
    models::CtaWork w;
    w.id = static_cast<std::int64_t>(works.size());
    w.m0 = (order[static_cast<size_t>(unit)].first * cl + rank) * t.bm;
    w.n0 = order[static_cast<size_t>(unit)].second * t.bn;
    w.cluster_rank = static_cast<int>(rank);
    w.cluster_size = static_cast<int>(cl);
    w.m = std::min(t.bm, m.m - w.m0);
    w.n = std::min(t.bn, m.n - w.n0);
    w.k0 = k0;
    w.k = std::min(k1, m.k) - k0;
    works.push_back(w);
  };
  const auto tiles = static_cast<std::int64_t>(order.size());
  if (m.decomposition == GpuDecomposition::kStreamK) {
    const std::int64_t kt_all = ceil_div(m.k, t.bk);
    const std::int64_t iters = tiles * kt_all;
    for (std::int64_t w = 0; w < m.grid; ++w) {
      std::int64_t i = iters * w / m.grid;
      const std::int64_t end = iters * (w + 1) / m.grid;
      while (i < end) {
        const std::int64_t tile = i / kt_all, kt = i % kt_all;
        const std::int64_t stop = std::min(end, (tile + 1) * kt_all);
        add(tile, kt * t.bk, (stop - tile * kt_all) * t.bk);
        i = stop;
      }
    }
    return works;
  }
  for (std::int64_t unit = 0; unit < tiles; ++unit)
    for (std::int64_t k0 = 0; k0 < m.k; k0 += m.k_slice)
      for (std::int64_t rank = 0; rank < cl; ++rank) add(unit, k0, k0 + m.k_slice, rank);
  return works;
}

}  // namespace systole::workloads
