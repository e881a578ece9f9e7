#include "workloads/lowering/tpu_gemm_lowering.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace systole::workloads {

using models::Op;
using models::OpKind;
using models::Program;

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// One core's share of the GEMM; keeps its double-buffer state across instances.
class CoreGemm {
 public:
  CoreGemm(ProgramBuilder& b, std::int64_t core) : b_(b), core_(core) {}

  void lower(std::int64_t m0, std::int64_t m_ext, std::int64_t n0, std::int64_t n_ext,
             std::int64_t K, const GemmMapping& mp, std::uint64_t eb, const GemmTraffic& tr) {
    const std::int64_t P = b_.chip().mxus_per_core;
    for (std::int64_t nt = 0; nt < n_ext; nt += mp.tn) {
      const std::int64_t tn = std::min(mp.tn, n_ext - nt);
      for (std::int64_t mt = 0; mt < m_ext; mt += mp.tm) {
        const std::int64_t tm = std::min(mp.tm, m_ext - mt);
        const int acc = static_cast<int>(tile_ % 2);
        std::vector<std::uint32_t> last_step;
        for (std::int64_t kt = 0; kt < K; kt += mp.tk, ++step_) {
          const std::int64_t tk = std::min(mp.tk, K - kt);
          const int slot = static_cast<int>(step_ % 2);
          const auto free_slot = slot_readers_[slot];
          const auto a_bytes = static_cast<std::uint64_t>(
              std::ceil(static_cast<double>(tm * tk * static_cast<std::int64_t>(eb)) / tr.a_reuse));
          // Resident activations are read from on-chip memory: no DMA for A.
          const std::uint32_t a = tr.resident ? ~0u : b_.load(core_, a_bytes, free_slot);
          const std::uint32_t bt =
              b_.load(core_, static_cast<std::uint64_t>(tk * tn) * eb, free_slot);
          // The previous tile's store goes after this step's prefetch, so an in-order DMA
          // queue never holds the prefetch back behind a store that waits for the MXUs.
          flush(1 - acc);
          slot_readers_[slot].clear();
          last_step.clear();
          const std::int64_t sm = mp.mxu_split_m ? ceil_div(tm, P) : tm;
          const std::int64_t sn = mp.mxu_split_m ? tn : ceil_div(tn, P);
          for (std::int64_t j = 0; j < P; ++j) {
            const std::int64_t mo = mp.mxu_split_m ? j * sm : 0, no = mp.mxu_split_m ? 0 : j * sn;
            const std::int64_t m_j = std::min(sm, tm - mo), n_j = std::min(sn, tn - no);
            if (m_j <= 0 || n_j <= 0) break;
            Op mm;
            mm.kind = OpKind::kMatmul;
            mm.unit = b_.chip().mxu_unit(core_, j);
            mm.m0 = static_cast<std::uint32_t>(m0 + mt + mo);
            mm.n0 = static_cast<std::uint32_t>(n0 + nt + no);
            mm.k0 = static_cast<std::uint32_t>(kt);
            mm.m = static_cast<std::uint32_t>(m_j);
            mm.k = static_cast<std::uint32_t>(tk);
            mm.n = static_cast<std::uint32_t>(n_j);
            mm.bytes = static_cast<std::uint64_t>(m_j * tk + tk * n_j) * eb;
            mm.deps = {bt};
            if (a != ~0u) mm.deps.push_back(a);
            if (kt == 0 && acc_store_[acc] != ~0u) mm.deps.push_back(acc_store_[acc]);
            const std::uint32_t id = b_.emit(std::move(mm));
            slot_readers_[slot].push_back(id);
            last_step.push_back(id);
          }
        }
        pending_bytes_ = static_cast<std::uint64_t>(tm * tn) * eb;
        if (!tr.resident) pending_deps_ = std::move(last_step);  // resident C stays on chip
        ++tile_;
      }
    }
  }

  /// Emits the pending output-tile store (it frees accumulator buffer `acc`).
  void flush(int acc) {
    if (pending_deps_.empty()) return;
    acc_store_[acc] = b_.store(core_, pending_bytes_, std::move(pending_deps_));
    pending_deps_.clear();
  }
  void finish() { flush(static_cast<int>((tile_ + 1) % 2)); }

 private:
  ProgramBuilder& b_;
  std::int64_t core_;
  std::vector<std::uint32_t> slot_readers_[2];  // matmuls that read each VMEM slot
  std::uint32_t acc_store_[2] = {~0u, ~0u};     // store that frees each accumulator buffer
  std::vector<std::uint32_t> pending_deps_;
  std::uint64_t pending_bytes_ = 0;
  std::int64_t step_ = 0, tile_ = 0;
};

}  // namespace

void append_gemm(ProgramBuilder& b, const Layer& layer, const GemmMapping& mp, std::int64_t count,
                 const GemmTraffic& traffic) {
  const auto eb = models::dtype_bytes(layer.dtype);
  const std::int64_t M = layer.rows(), N = layer.n, K = layer.k;
  const std::int64_t split = mp.split_n ? N : M;
  std::vector<CoreGemm> cores;
  for (std::int64_t c = 0; c < mp.cores_used; ++c) cores.emplace_back(b, c);
  for (std::int64_t i = 0; i < count; ++i) {
    for (std::int64_t c = 0; c < mp.cores_used; ++c) {
      const std::int64_t s0 = c * mp.core_extent;
      const std::int64_t ext = std::min(mp.core_extent, split - s0);
      if (ext <= 0) break;
      if (mp.split_n)
        cores[static_cast<size_t>(c)].lower(0, M, s0, ext, K, mp, eb, traffic);
      else
        cores[static_cast<size_t>(c)].lower(s0, ext, 0, N, K, mp, eb, traffic);
    }
  }
  for (auto& c : cores) c.finish();
}

Program lower_gemm(const models::TpuChipConfig& chip, const Layer& layer, const GemmMapping& mp) {
  Program prog;
  ProgramBuilder b(chip, prog);
  append_gemm(b, layer, mp);
  return prog;
}

}  // namespace systole::workloads
