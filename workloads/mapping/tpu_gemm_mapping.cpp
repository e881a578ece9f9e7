#include "workloads/mapping/tpu_gemm_mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "models/mxu/mxu_timing.h"
#include "sim/core/units.h"
#include "workloads/mapping/hbm_efficiency.h"

namespace systole::workloads {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }

constexpr std::uint64_t kAccBytes = 4;  // fp32 / int32 accumulators
/// Tilings whose estimated cost is within this fraction of the cheapest count as equally fast.
/// ASSUMPTION: the per-step overhead (64 cycles) and the pipeline estimates are good to ~2%.
constexpr double kTimeBand = 0.02;

/// VMEM bytes of a tiling: two A slots (none when A is resident; an implicit im2col tile holds
/// its input footprint, tm x tk / a_reuse), two B slots (or two B panels of all K steps when B
/// stays in VMEM), two fp32 output tiles and the epilogue's input buffer.
std::uint64_t footprint(std::int64_t tm, std::int64_t tn, std::int64_t tk, std::int64_t k_steps,
                        std::uint64_t eb, const GemmTraffic& tr, bool b_panel) {
  const auto m = static_cast<std::uint64_t>(tm), n = static_cast<std::uint64_t>(tn),
             k = static_cast<std::uint64_t>(tk);
  const std::uint64_t a = tr.resident ? 0 : gemm_a_slot_bytes(tm, tk, eb, tr.a_reuse);
  const std::uint64_t b = k * n * eb * (b_panel ? static_cast<std::uint64_t>(k_steps) : 1);
  return 2 * (a + b) + 2 * m * n * kAccBytes +
         m * n * eb * static_cast<std::uint64_t>(tr.epilogue_inputs);
}

/// The extents of the tiles along one dimension: `count` full tiles of `size`, then at most one
/// edge tile.
struct Tiles {
  std::int64_t count = 0, size = 0, edge = 0;
  Tiles(std::int64_t extent, std::int64_t tile)
      : count(extent / tile), size(tile), edge(extent % tile) {}
  template <class F>
  double sum(F&& f) const {
    return (count > 0 ? static_cast<double>(count) * f(size) : 0.0) + (edge > 0 ? f(edge) : 0.0);
  }
};

}  // namespace

std::uint64_t gemm_a_slot_bytes(std::int64_t tm, std::int64_t tk, std::uint64_t eb,
                                double a_reuse) {
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(static_cast<std::uint64_t>(tm * tk) * eb) / a_reuse));
}

std::string GemmMapping::tile_text() const {
  std::string stage;
  if (cmem_k > 0 && k_chunked)
    stage = fmt::format(" A@cmem k/{}", ceil_div(depth, cmem_k));
  else if (cmem_k > 0 && cmem_k < depth)
    stage = fmt::format(" A[:{}]@cmem", cmem_k);
  else if (cmem_k > 0 && row_block < rows)
    stage = fmt::format(" A@cmem m/{}", ceil_div(rows, row_block));
  else if (cmem_k > 0)
    stage = " A@cmem";
  return fmt::format("{}x{}x{}{}{}{}", tm, tn, tk, mxu_split_m ? "/m" : "", stage,
                     b_panel ? " B@vmem" : "");
}

std::uint64_t cmem_staged_bytes(std::int64_t rows, std::int64_t cols, std::int64_t tm,
                                std::int64_t tk, std::uint64_t element_bytes, double a_reuse) {
  if (a_reuse > 1)  // an implicit im2col's input footprint, contiguous
    return static_cast<std::uint64_t>(
        std::ceil(static_cast<double>(rows) * static_cast<double>(cols) *
                  static_cast<double>(element_bytes) / a_reuse));
  // Tile-major: each tm x tk tile contiguous (edge tiles padded), so a tile is one linear
  // transfer that spreads over every CMEM bank.
  return static_cast<std::uint64_t>(round_up(rows, tm) * round_up(cols, tk)) * element_bytes;
}

std::int64_t cmem_staged_k(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t K,
                           std::int64_t tm, std::int64_t tk, std::uint64_t element_bytes,
                           double a_reuse) {
  const std::uint64_t cap = chip.cmem.capacity.value();
  if (cmem_staged_bytes(M, K, tm, tk, element_bytes, a_reuse) <= cap) return K;
  const double per_column =
      a_reuse > 1 ? static_cast<double>(M) * static_cast<double>(element_bytes) / a_reuse
                  : static_cast<double>(round_up(M, tm)) * static_cast<double>(element_bytes);
  const auto fit = static_cast<std::int64_t>(std::floor(static_cast<double>(cap) / per_column));
  return std::min(fit, K) / tk * tk;
}

std::uint64_t cmem_partials_base(std::int64_t M, std::int64_t k, std::int64_t tm, std::int64_t tk,
                                 std::uint64_t element_bytes, double a_reuse) {
  return (cmem_staged_bytes(M, k, tm, tk, element_bytes, a_reuse) + 4095) / 4096 * 4096;
}

std::int64_t cmem_chunk_k(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t N,
                          std::int64_t K, std::int64_t tm, std::int64_t tk,
                          std::uint64_t element_bytes, double a_reuse) {
  const std::uint64_t cap = chip.cmem.capacity.value();
  const auto partials = static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N) * kAccBytes;
  std::int64_t best = 0;
  for (std::int64_t k = tk; k < K; k += tk) {
    if (cmem_partials_base(M, k, tm, tk, element_bytes, a_reuse) + partials > cap) break;
    best = k;
  }
  return best;
}

std::int64_t cmem_row_block(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t K,
                            std::int64_t tm, std::int64_t tk, std::uint64_t element_bytes,
                            double a_reuse) {
  const double per_row =
      a_reuse > 1 ? static_cast<double>(K) * static_cast<double>(element_bytes) / a_reuse
                  : static_cast<double>(round_up(K, tk)) * static_cast<double>(element_bytes);
  const auto fit = static_cast<std::int64_t>(
      std::floor(static_cast<double>(chip.cmem.capacity.value()) / per_row));
  const std::int64_t rows = fit / tm * tm;
  return rows >= tm && rows < M ? rows : 0;
}

GemmBounds gemm_bounds(const models::TpuChipConfig& chip, const Layer& l) {
  GemmBounds b;
  const auto eb = dtype_bytes(l.dtype);
  const auto M = static_cast<std::uint64_t>(l.rows()), N = static_cast<std::uint64_t>(l.n),
             K = static_cast<std::uint64_t>(l.k);
  b.macs = l.macs();
  b.compute_cycles = static_cast<double>(b.macs) / static_cast<double>(chip.peak_macs_per_cycle());
  const auto out = static_cast<std::uint64_t>(l.out_cols());  // N, or N / 2 for a GLU
  b.compulsory_bytes = (M * K + K * N + M * out) * eb;
  const double bytes_per_cycle = chip.hbm.bandwidth.value() / chip.clock.value();
  b.hbm_cycles = static_cast<double>(b.compulsory_bytes) / bytes_per_cycle;
  b.roofline_cycles = std::max(b.compute_cycles, b.hbm_cycles);
  b.intensity = 2.0 * static_cast<double>(b.macs) / static_cast<double>(b.compulsory_bytes);
  b.bound = b.compute_cycles >= b.hbm_cycles ? "compute" : "hbm";
  return b;
}

GemmMapping map_gemm(const models::TpuChipConfig& chip, const Layer& l,
                     const GemmTraffic& traffic) {
  const models::MxuTiming mxu(chip.mxu);
  const std::int64_t R = chip.mxu.rows, C = chip.mxu.cols, P = chip.mxus_per_core;
  const std::int64_t M = l.rows(), N = l.n, K = l.k;
  const auto eb = dtype_bytes(l.dtype);
  const double bytes_per_cycle =
      chip.hbm.bandwidth.value() * chip.hbm.efficiency / chip.clock.value();

  GemmMapping best;
  best.rows = M;
  best.depth = K;
  best.bounds = gemm_bounds(chip, l);
  // Split the larger of M and N over the cores.
  best.split_n = N >= M;
  const std::int64_t split = best.split_n ? N : M;
  const std::int64_t pair = l.glu ? 2 : 1;  // GLU tiles hold whole (gate, up) column pairs
  const std::int64_t unit = best.split_n ? std::lcm(C, pair) : 8;
  best.cores_used =
      std::min<std::int64_t>(chip.tensor_cores, std::max<std::int64_t>(1, ceil_div(split, unit)));
  best.core_extent = round_up(ceil_div(split, best.cores_used), unit);
  best.cores_used = ceil_div(split, best.core_extent);
  const std::int64_t core_m = best.split_n ? M : best.core_extent;
  const std::int64_t core_n = best.split_n ? best.core_extent : N;
  std::vector<std::int64_t> extents;  // of the split dimension, per core
  for (std::int64_t c = 0; c < best.cores_used; ++c)
    extents.push_back(std::min(best.core_extent, split - c * best.core_extent));

  std::vector<std::int64_t> tms, tns, tks;
  for (std::int64_t t = 8;; t *= 2) {
    tms.push_back(std::min(t, core_m));
    if (t >= core_m || t >= (1 << 16)) break;
  }
  // Narrower than the MXUs of a core (C .. C*P/2): each MXU takes rows of the tile ("/m"),
  // which lets tall tiles fit the accumulators.
  for (std::int64_t j = 1; j <= 64 * P; j *= 2)
    tns.push_back(round_up(std::min(C * j, round_up(core_n, C)), pair));
  for (std::int64_t j = 1; j <= 128; j *= 2) tks.push_back(std::min(R * j, round_up(K, R)));
  auto dedup = [](std::vector<std::int64_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  dedup(tms);
  dedup(tns);
  dedup(tks);

  // Resident activations take half of VMEM; the tiles get the rest.
  const std::uint64_t vmem = chip.vmem.capacity.value() / (traffic.resident ? 2 : 1);
  // The MXUs of a core read their operands through one VMEM port (vmem.bandwidth).
  const double vmem_bytes_per_cycle = chip.vmem.bandwidth.value() / chip.clock.value();
  const double cmem_bytes_per_cycle = chip.cmem.bandwidth.value() / chip.clock.value();
  // A fused epilogue runs on the vector units of the cores in use, over the stored output.
  const double epilogue = static_cast<double>(M) * static_cast<double>(l.out_cols()) *
                          traffic.epilogue_ops /
                          static_cast<double>(chip.vector.lanes * best.cores_used);
  const double stored = l.glu ? 0.5 : 1.0;  // of C's columns (tiles hold whole GLU pairs)
  const auto accumulators = static_cast<std::uint64_t>(chip.mxu.accumulators);
  // Through a weight FIFO (TPU v1) B never enters VMEM: it streams in array-sized tiles.
  const bool fifo = chip.mxu.weight_fifo > 0 && traffic.b_is_weight;
  const bool a_hbm = !traffic.resident && !traffic.a_in_cmem;
  const auto eb_i = static_cast<std::int64_t>(eb);
  // A strided tile moves each row rounded up to the DMA granule (DmaModule::memory_transfer).
  const auto granule = static_cast<double>(chip.dma.granule.value());
  const auto granule_factor = [granule](std::int64_t row_bytes, bool contiguous) {
    if (contiguous || row_bytes <= 0) return 1.0;
    const double r = static_cast<double>(row_bytes);
    return std::ceil(r / granule) * granule / r;
  };
  const HbmEfficiency hbm_eff(chip);
  const double hbm_latency =
      static_cast<double>(chip.hbm.latency.value()) * 1e-12 * chip.clock.value();
  double best_cost = INFINITY;
  std::vector<std::pair<double, GemmMapping>> candidates;  // (cost, mapping)
  std::uint64_t smallest = ~0ull, smallest_acc = ~0ull;
  bool fits_vmem = false;
  for (auto tm : tms)
    for (auto tn : tns)
      for (auto tk : tks)
        for (const bool b_panel : {false, true}) {
          const std::int64_t mt = ceil_div(core_m, tm), nt = ceil_div(core_n, tn),
                             kt = ceil_div(K, tk);
          if (b_panel && (fifo || mt < 2)) continue;
          const std::uint64_t fp = footprint(tm, tn, tk, kt, eb, traffic, b_panel);
          smallest = std::min(smallest, fp);
          if (fp > vmem) continue;
          fits_vmem = true;
          // The MXUs of a core share a tile either by its columns (each takes tn/P of N) or,
          // when N is too narrow to fill them, by its rows (each takes tm/P of M, all of N).
          for (const bool by_m : {false, true}) {
            if (by_m && (tm < 2 * P || tn >= C * P)) continue;
            // One k step of an output tile of m x n (edge tiles at their real size): the
            // slowest MXU's occupancy, or the VMEM port feeding all P of them.
            const auto step = [&](std::int64_t m, std::int64_t k, std::int64_t n) {
              const std::int64_t sm = by_m ? ceil_div(m, P) : m, sn = by_m ? n : ceil_div(n, P);
              return mxu.matmul(static_cast<std::uint32_t>(sm), static_cast<std::uint32_t>(k),
                                static_cast<std::uint32_t>(sn));
            };
            const auto full = step(tm, tk, tn);
            // Each MXU accumulates its output slice while k advances; two output tiles are in
            // flight (the lowering double-buffers them), so twice the rows must fit.
            smallest_acc = std::min(smallest_acc, 2 * full.accumulator_rows);
            if (2 * full.accumulator_rows > accumulators) continue;
            const auto cycles = [&](std::int64_t m, std::int64_t k, std::int64_t n) {
              const auto s = step(m, k, n);
              const double feed =
                  static_cast<double>(P) *
                  static_cast<double>(s.vmem_elements * dtype_bytes(chip.mxu.input_type)) /
                  vmem_bytes_per_cycle;
              return std::max(static_cast<double>(s.occupancy.value()), feed);
            };
            const double compute = Tiles(core_m, tm).sum([&](std::int64_t m) {
              return Tiles(core_n, tn).sum([&](std::int64_t n) {
                return Tiles(K, tk).sum([&](std::int64_t k) { return cycles(m, k, n); });
              });
            }) + static_cast<double>(full.latency.value() + full.load.value());
            // Staging A in CMEM pays when A is read more than once: by several n tiles or, when
            // the cores split N, by several cores.
            std::int64_t passes = 0;  // A passes over the staged rows, all cores together
            for (std::int64_t c = 0; c < best.cores_used; ++c)
              passes +=
                  best.split_n ? ceil_div(extents[static_cast<size_t>(c)], tn) : (c == 0 ? nt : 0);
            const bool stage = a_hbm && passes >= 2;
            // Staged A is tile-major when the cores split N, row-major (tiles of 1 x 1) else.
            const std::int64_t lm = best.split_n ? tm : 1;
            const std::int64_t staged_k =
                stage ? cmem_staged_k(chip, M, K, lm, tk, eb, traffic.a_reuse) : 0;
            const std::int64_t chunk_k =
                stage && staged_k < K && !b_panel
                    ? cmem_chunk_k(chip, M, N, K, lm, tk, eb, traffic.a_reuse)
                    : 0;
            const std::int64_t row_block =
                stage && staged_k < K && best.split_n
                    ? cmem_row_block(chip, M, K, tm, tk, eb, traffic.a_reuse)
                    : 0;
            // Granule rounding of each operand's tile rows (1: the tile is contiguous).
            const double ga = granule_factor(tk * eb_i, traffic.a_reuse > 1 || tk >= K);
            const double gb = granule_factor(tn * eb_i, tn >= N);
            const double gc = granule_factor((l.glu ? tn / 2 : tn) * eb_i, tn >= N);
            // The HBM's sustained fraction of peak for each operand's pieces (row locality).
            const double ea =
                hbm_eff.of(static_cast<double>(tk * eb_i) * ga, traffic.a_reuse > 1 || tk >= K);
            const double eff_b = hbm_eff.of(static_cast<double>(tn * eb_i) * gb, tn >= N);
            const double ec =
                hbm_eff.of(static_cast<double>((l.glu ? tn / 2 : tn) * eb_i) * gc, tn >= N);
            double unstaged_bytes = 0;
            // none, staged columns, K in chunks, M in row blocks
            for (int option = 0; option < 4; ++option) {
              if ((option == 1 && staged_k == 0) || (option == 2 && chunk_k == 0) ||
                  (option == 3 && row_block == 0))
                continue;
              const bool chunked = option == 2;
              const std::int64_t ks = option == 0 ? 0 : option == 1 ? staged_k : K;
              const std::int64_t blocks = option == 3 ? ceil_div(M, row_block) : 1;
              // HBM traffic, exactly as the lowering moves it: each core reads its A rows once
              // per n tile (the staged columns once in all), its B columns once per m tile (once
              // per row block when B stays in VMEM), and writes its part of C once (reading the
              // epilogue's inputs once).
              // `moved` is what the DMA engines move: each contiguous piece of a tile (a row of
              // it, unless the tile spans the matrix's width) rounded up to the granule.
              double bytes = static_cast<double>(M * ks) / traffic.a_reuse;
              double moved = bytes * ga;
              double paced = bytes * ga / ea;  // `moved` at each piece's sustained bandwidth
              for (const std::int64_t ext : extents) {
                const std::int64_t cm = best.split_n ? M : ext, cn = best.split_n ? ext : N;
                const double a =
                    a_hbm ? static_cast<double>(cm * (K - ks) * ceil_div(cn, tn)) / traffic.a_reuse
                          : 0.0;
                const double c_out =
                    traffic.resident
                        ? 0.0
                        : stored * static_cast<double>(cm * cn * (1 + traffic.epilogue_inputs));
                const std::int64_t b_reads = b_panel ? blocks : ceil_div(cm, tm);
                bytes += a + static_cast<double>(K * cn * b_reads) + c_out;
                moved += a * ga + static_cast<double>(K * cn * b_reads) * gb + c_out * gc;
                paced += a * ga / ea + static_cast<double>(K * cn * b_reads) * gb / eff_b +
                         c_out * gc / ec;
              }
              bytes *= static_cast<double>(eb);
              moved *= static_cast<double>(eb);
              paced *= static_cast<double>(eb);
              // The copies to CMEM cost DMA work: stage only when it saves 5% of the HBM bytes.
              if (option == 0) unstaged_bytes = moved;
              if (option > 0 && moved > 0.95 * unstaged_bytes) continue;
              // CMEM: the staged part written once and read by every later pass; with K in
              // chunks, C's fp32 partial sums stored and loaded back between chunks.
              double cmem_bytes = static_cast<double>(M * ks) / traffic.a_reuse *
                                  static_cast<double>(passes) * static_cast<double>(eb);
              // Tile-major staged tiles are contiguous; row-major ones move rows of tk.
              double cmem_moved =
                  cmem_bytes * granule_factor(tk * eb_i, best.split_n || traffic.a_reuse > 1 ||
                                                             tk >= (chunked ? chunk_k : ks));
              if (traffic.a_in_cmem) {  // every pass reads A from CMEM
                cmem_bytes = static_cast<double>(M * K) / traffic.a_reuse *
                             static_cast<double>(passes) * static_cast<double>(eb);
                cmem_moved = cmem_bytes * ga;
              }
              if (chunked) {
                const double partials = 2.0 * static_cast<double>(ceil_div(K, chunk_k) - 1) *
                                        static_cast<double>(M * N) * kAccBytes;
                cmem_bytes += partials;
                cmem_moved += partials * granule_factor(tn * 4, tn >= N);
              }
              const double hbm = paced / bytes_per_cycle;
              const double cmem = cmem_moved / cmem_bytes_per_cycle;
              // Per-step overhead (DMA issue, exposed latency at tile boundaries) favours big
              // tiles; among tilings of about the same time, the one moving fewer HBM bytes
              // wins (a 5% tie-break).
              // Little's law over the two VMEM slots of an operand: a slot is refilled only
              // once the matmul two steps back has read it, so each step that loads from HBM
              // takes at least (latency + transfer + compute) / 2 — small tiles cannot hide the
              // HBM latency. (A weight FIFO has its own depth; CMEM's latency is left out.)
              const bool a_steps = a_hbm && option == 0;
              const double load_steps =
                  static_cast<double>(b_panel && !a_steps ? blocks * nt * kt : mt * nt * kt);
              const double slots = fifo ? 0.0 : (load_steps * hbm_latency + hbm + compute) / 2;
              const double time = std::max({compute, hbm, cmem, epilogue, slots});
              const double cost = time + 64.0 * static_cast<double>(mt * nt * kt) + 0.05 * hbm;
              best_cost = std::min(best_cost, cost);
              // The pick below skips a cost above the final best's band; the best so far is
              // never below the final one, so what its band excludes now is never picked (and
              // the list stays small: keeping every candidate faulted in megabytes a point).
              if (cost > best_cost * (1 + kTimeBand)) continue;
              GemmMapping m = best;
              m.tm = tm;
              m.tn = tn;
              m.tk = tk;
              m.vmem_bytes = fp;
              m.estimated_cycles = time;
              m.bounds.planned_bytes = static_cast<std::uint64_t>(bytes);
              m.mxu_split_m = by_m;
              m.cmem_k = chunked ? chunk_k : ks;
              m.k_chunked = chunked;
              m.row_block = option == 3 ? row_block : M;
              m.b_panel = b_panel;
              m.cmem_bytes = static_cast<std::uint64_t>(cmem_bytes);
              m.moved_bytes = static_cast<std::uint64_t>(moved);
              candidates.push_back({cost, std::move(m)});
            }
          }
        }
  // Among the tilings within kTimeBand of the cheapest, the one moving the fewest HBM bytes
  // (then the cheapest): the cost model's step overheads are estimates, and bytes not moved
  // are energy saved and bandwidth left to the layers that overlap this one.
  const GemmMapping* pick = nullptr;
  double pick_cost = INFINITY;
  for (const auto& [cost, m] : candidates) {
    if (cost > best_cost * (1 + kTimeBand)) continue;
    if (!pick || m.moved_bytes < pick->moved_bytes ||
        (m.moved_bytes == pick->moved_bytes && cost < pick_cost)) {
      pick = &m;
      pick_cost = cost;
    }
  }
  if (pick) best = *pick;
  if (best.tm == 0 && fits_vmem)
    throw WorkloadError(fmt::format(
        "{}: layer '{}' ({}) fits nowhere: its smallest output tile needs {} accumulator rows "
        "per MXU (two tiles in flight), the MXU has {} (raise system.chip.mxu.accumulators)",
        l.origin.str(), l.name, l.shape(), smallest_acc, accumulators));
  if (best.tm == 0)
    throw WorkloadError(fmt::format(
        "{}: layer '{}' ({}) fits nowhere: its smallest tiling needs {} of VMEM, the core has {} "
        "(raise system.chip.vmem.capacity)",
        l.origin.str(), l.name, l.shape(),
        format_quantity(static_cast<double>(smallest), Dimension::kBytes),
        format_quantity(static_cast<double>(vmem), Dimension::kBytes)));
  return best;
}

}  // namespace systole::workloads
