#include "workloads/mapping/tpu_gemm_mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "models/mxu/mxu_timing.h"
#include "sim/core/units.h"

namespace systole::workloads {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }

constexpr std::uint64_t kAccBytes = 4;  // fp32 / int32 accumulators

std::uint64_t footprint(std::int64_t tm, std::int64_t tn, std::int64_t tk, std::uint64_t eb,
                        int epilogue_inputs) {
  const auto m = static_cast<std::uint64_t>(tm), n = static_cast<std::uint64_t>(tn),
             k = static_cast<std::uint64_t>(tk);
  return 2 * (m * k + k * n) * eb + 2 * m * n * kAccBytes +
         m * n * eb * static_cast<std::uint64_t>(epilogue_inputs);
}

}  // namespace

std::string GemmMapping::tile_text() const {
  std::string stage;
  if (cmem_k > 0 && k_chunked)
    stage = fmt::format(" A@cmem k/{}", ceil_div(depth, cmem_k));
  else if (cmem_k > 0 && cmem_k < depth)
    stage = fmt::format(" A[:{}]@cmem", cmem_k);
  else if (cmem_k > 0)
    stage = " A@cmem";
  return fmt::format("{}x{}x{}{}{}", tm, tn, tk, mxu_split_m ? "/m" : "", stage);
}

std::int64_t cmem_staged_k(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t K,
                           std::int64_t tk, std::uint64_t element_bytes, double a_reuse) {
  // A's staged columns sit row-major in CMEM: M x k elements, divided by the im2col reuse.
  const double per_column = static_cast<double>(M) * static_cast<double>(element_bytes) / a_reuse;
  const double fit = std::floor(static_cast<double>(chip.cmem.capacity.value()) / per_column);
  if (fit >= static_cast<double>(K)) return K;
  return static_cast<std::int64_t>(fit) / tk * tk;
}

std::uint64_t cmem_partials_base(std::int64_t M, std::int64_t k, std::uint64_t element_bytes,
                                 double a_reuse) {
  const double a = std::ceil(static_cast<double>(M) * static_cast<double>(k) *
                             static_cast<double>(element_bytes) / a_reuse);
  return (static_cast<std::uint64_t>(a) + 4095) / 4096 * 4096;
}

std::int64_t cmem_chunk_k(const models::TpuChipConfig& chip, std::int64_t M, std::int64_t N,
                          std::int64_t K, std::int64_t tk, std::uint64_t element_bytes,
                          double a_reuse) {
  const std::uint64_t cap = chip.cmem.capacity.value();
  const auto partials = static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N) * kAccBytes;
  std::int64_t best = 0;
  for (std::int64_t k = tk; k < K; k += tk) {
    if (cmem_partials_base(M, k, element_bytes, a_reuse) + partials > cap) break;
    best = k;
  }
  return best;
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

  std::vector<std::int64_t> tms, tns, tks;
  for (std::int64_t t = 8;; t *= 2) {
    tms.push_back(std::min(t, core_m));
    if (t >= core_m || t >= (1 << 16)) break;
  }
  for (std::int64_t j = 1; j <= 64; j *= 2)
    tns.push_back(round_up(std::min(C * P * j, round_up(core_n, C)), pair));
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
  double best_cost = INFINITY;
  std::uint64_t smallest = ~0ull, smallest_acc = ~0ull;
  bool fits_vmem = false;
  for (auto tm : tms)
    for (auto tn : tns)
      for (auto tk : tks) {
        const std::uint64_t fp = footprint(tm, tn, tk, eb, traffic.epilogue_inputs);
        smallest = std::min(smallest, fp);
        if (fp > vmem) continue;
        fits_vmem = true;
        const std::int64_t mt = ceil_div(core_m, tm), nt = ceil_div(core_n, tn),
                           kt = ceil_div(K, tk);
        // The MXUs of a core share a tile either by its columns (each takes tn/P of N) or,
        // when N is too narrow to fill them, by its rows (each takes tm/P of M, all of N).
        for (const bool by_m : {false, true}) {
          if (by_m && (tm < 2 * P || tn >= C * P)) continue;
          const std::int64_t sm = by_m ? ceil_div(tm, P) : tm, sn = by_m ? tn : ceil_div(tn, P);
          const auto step =
              mxu.matmul(static_cast<std::uint32_t>(sm), static_cast<std::uint32_t>(tk),
                         static_cast<std::uint32_t>(sn));
          // Each MXU accumulates its output slice while k advances; two output tiles are in
          // flight (the lowering double-buffers them), so twice the rows must fit.
          smallest_acc = std::min(smallest_acc, 2 * step.accumulator_rows);
          if (2 * step.accumulator_rows > accumulators) continue;
          const double feed =
              static_cast<double>(P) *
              static_cast<double>(step.vmem_elements * dtype_bytes(chip.mxu.input_type)) /
              vmem_bytes_per_cycle;
          const double compute = static_cast<double>(mt * nt * kt) *
                                     std::max(static_cast<double>(step.occupancy.value()), feed) +
                                 static_cast<double>(step.latency.value() + step.load.value());
          // Staging A in CMEM pays when A is read more than once: by several n tiles or, when
          // the cores split N, by several cores.
          std::int64_t passes = 0;  // A passes over the staged rows, all cores together
          for (std::int64_t c = 0; c < best.cores_used; ++c) {
            const std::int64_t ext = std::min(best.core_extent, split - c * best.core_extent);
            passes += best.split_n ? ceil_div(ext, tn) : (c == 0 ? nt : 0);
          }
          const bool stage = !traffic.resident && !traffic.a_in_cmem && passes >= 2;
          const std::int64_t staged_k =
              stage ? cmem_staged_k(chip, M, K, tk, eb, traffic.a_reuse) : 0;
          const std::int64_t chunk_k =
              stage && staged_k < K ? cmem_chunk_k(chip, M, N, K, tk, eb, traffic.a_reuse) : 0;
          double unstaged_bytes = 0;
          for (int option = 0; option < 3; ++option) {  // none, staged columns, K in chunks
            if ((option == 1 && staged_k == 0) || (option == 2 && chunk_k == 0)) continue;
            const bool chunked = option == 2;
            const std::int64_t ks = option == 0 ? 0 : chunked ? K : staged_k;
            // HBM traffic, exactly as the lowering moves it: each core reads its A rows once per
            // n tile (the staged columns once in all) and its B columns once per m tile, and
            // writes its part of C once (reading the epilogue's inputs once).
            double bytes = static_cast<double>(M * ks) / traffic.a_reuse;
            const bool a_hbm = !traffic.resident && !traffic.a_in_cmem;
            for (std::int64_t c = 0; c < best.cores_used; ++c) {
              const std::int64_t ext = std::min(best.core_extent, split - c * best.core_extent);
              const std::int64_t cm = best.split_n ? M : ext, cn = best.split_n ? ext : N;
              const double a =
                  a_hbm ? static_cast<double>(cm * (K - ks) * ceil_div(cn, tn)) / traffic.a_reuse
                        : 0.0;
              const double c_out =
                  traffic.resident
                      ? 0.0
                      : stored * static_cast<double>(cm * cn * (1 + traffic.epilogue_inputs));
              bytes += a + static_cast<double>(K * cn * ceil_div(cm, tm)) + c_out;
            }
            bytes *= eb;
            // The copies to CMEM cost DMA work: stage only when it saves 5% of the HBM bytes.
            if (option == 0) unstaged_bytes = bytes;
            if (option > 0 && bytes > 0.95 * unstaged_bytes) continue;
            // CMEM: the staged part written once and read by every later pass; with K in
            // chunks, C's fp32 partial sums stored and loaded back between chunks.
            double cmem_bytes =
                static_cast<double>(M * ks) / traffic.a_reuse * static_cast<double>(passes) * eb;
            if (traffic.a_in_cmem)  // every pass reads A from CMEM
              cmem_bytes =
                  static_cast<double>(M * K) / traffic.a_reuse * static_cast<double>(passes) * eb;
            if (chunked)
              cmem_bytes += 2.0 * static_cast<double>(ceil_div(K, chunk_k) - 1) *
                            static_cast<double>(M * N) * kAccBytes;
            const double hbm = bytes / bytes_per_cycle;
            const double cmem = cmem_bytes / cmem_bytes_per_cycle;
            // Per-step overhead (DMA issue, exposed latency at tile boundaries) favours big
            // tiles; among tilings of about the same time, the one moving fewer HBM bytes wins
            // (a 5% tie-break).
            const double time = std::max({compute, hbm, cmem, epilogue});
            const double cost = time + 64.0 * static_cast<double>(mt * nt * kt) + 0.05 * hbm;
            if (cost < best_cost) {
              best_cost = cost;
              best.tm = tm;
              best.tn = tn;
              best.tk = tk;
              best.vmem_bytes = fp;
              best.estimated_cycles = time;
              best.bounds.planned_bytes = static_cast<std::uint64_t>(bytes);
              best.mxu_split_m = by_m;
              best.cmem_k = chunked ? chunk_k : ks;
              best.k_chunked = chunked;
              best.cmem_bytes = static_cast<std::uint64_t>(cmem_bytes);
            }
          }
        }
      }
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
