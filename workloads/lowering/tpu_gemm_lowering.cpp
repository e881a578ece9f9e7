#include "workloads/lowering/tpu_gemm_lowering.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace systole::workloads {

using models::Op;
using models::OpKind;
using models::Program;

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

class CoreLowering {
 public:
  CoreLowering(const models::TpuChipConfig& chip, std::int64_t core, Program& prog)
      : chip_(chip), core_(core), prog_(prog) {}

  std::uint32_t emit(Op op) {
    prog_.ops.push_back(std::move(op));
    return static_cast<std::uint32_t>(prog_.ops.size() - 1);
  }

  std::uint32_t load(std::uint64_t bytes, std::vector<std::uint32_t> deps) {
    Op op;
    op.kind = OpKind::kLoad;
    op.unit = chip_.dma_unit(core_, next_engine_++ % chip_.dma.engines);
    op.bytes = bytes;
    op.deps = std::move(deps);
    return emit(std::move(op));
  }

  void lower(std::int64_t m0, std::int64_t m_ext, std::int64_t n0, std::int64_t n_ext,
             std::int64_t K, const GemmMapping& mp, std::uint64_t eb) {
    const std::int64_t P = chip_.mxus_per_core;
    std::vector<std::vector<std::uint32_t>> slot_readers(2);  // matmuls that read each slot
    std::vector<std::uint32_t> acc_store(2, ~0u);             // store that frees each accumulator
    std::optional<Op> pending_store;
    std::int64_t step = 0, tile = 0;
    for (std::int64_t nt = 0; nt < n_ext; nt += mp.tn) {
      const std::int64_t tn = std::min(mp.tn, n_ext - nt);
      for (std::int64_t mt = 0; mt < m_ext; mt += mp.tm) {
        const std::int64_t tm = std::min(mp.tm, m_ext - mt);
        const int acc = static_cast<int>(tile % 2);
        std::vector<std::uint32_t> last_step;
        for (std::int64_t kt = 0; kt < K; kt += mp.tk, ++step) {
          const std::int64_t tk = std::min(mp.tk, K - kt);
          const int slot = static_cast<int>(step % 2);
          const auto free_slot = slot_readers[slot];
          const std::uint32_t a = load(static_cast<std::uint64_t>(tm * tk) * eb, free_slot);
          const std::uint32_t b = load(static_cast<std::uint64_t>(tk * tn) * eb, free_slot);
          // The previous tile's store goes after this step's prefetch, so an in-order DMA
          // queue never holds the prefetch back behind a store that waits for the MXUs.
          if (pending_store) {
            acc_store[1 - acc] = emit(std::move(*pending_store));
            pending_store.reset();
          }
          slot_readers[slot].clear();
          last_step.clear();
          const std::int64_t slice = ceil_div(tn, P);
          for (std::int64_t j = 0; j < P; ++j) {
            const std::int64_t n_j = std::min(slice, tn - j * slice);
            if (n_j <= 0) break;
            Op mm;
            mm.kind = OpKind::kMatmul;
            mm.unit = chip_.mxu_unit(core_, j);
            mm.m0 = static_cast<std::uint32_t>(m0 + mt);
            mm.n0 = static_cast<std::uint32_t>(n0 + nt + j * slice);
            mm.k0 = static_cast<std::uint32_t>(kt);
            mm.m = static_cast<std::uint32_t>(tm);
            mm.k = static_cast<std::uint32_t>(tk);
            mm.n = static_cast<std::uint32_t>(n_j);
            mm.bytes = static_cast<std::uint64_t>(tm * tk + tk * n_j) * eb;
            mm.deps = {a, b};
            if (kt == 0 && acc_store[acc] != ~0u) mm.deps.push_back(acc_store[acc]);
            const std::uint32_t id = emit(std::move(mm));
            slot_readers[slot].push_back(id);
            last_step.push_back(id);
          }
        }
        Op st;
        st.kind = OpKind::kStore;
        st.unit = chip_.dma_unit(core_, next_engine_++ % chip_.dma.engines);
        st.bytes = static_cast<std::uint64_t>(tm * tn) * eb;
        st.deps = last_step;
        pending_store = std::move(st);
        ++tile;
      }
    }
    if (pending_store) emit(std::move(*pending_store));
  }

 private:
  const models::TpuChipConfig& chip_;
  std::int64_t core_;
  Program& prog_;
  std::int64_t next_engine_ = 0;
};

}  // namespace

Program lower_gemm(const models::TpuChipConfig& chip, const Layer& layer, const GemmMapping& mp) {
  Program prog;
  const auto eb = models::dtype_bytes(layer.dtype);
  const std::int64_t M = layer.rows(), N = layer.n, K = layer.k;
  const std::int64_t split = mp.split_n ? N : M;
  for (std::int64_t c = 0; c < mp.cores_used; ++c) {
    const std::int64_t s0 = c * mp.core_extent;
    const std::int64_t ext = std::min(mp.core_extent, split - s0);
    if (ext <= 0) break;
    CoreLowering cl(chip, c, prog);
    if (mp.split_n)
      cl.lower(0, M, s0, ext, K, mp, eb);
    else
      cl.lower(s0, ext, 0, N, K, mp, eb);
  }
  return prog;
}

}  // namespace systole::workloads
