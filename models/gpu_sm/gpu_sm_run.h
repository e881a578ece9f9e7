#pragma once
// What both SM models take and give: a GEMM kernel's CTAs as the device's CTA scheduler hands
// them to 1..N SMs, optional real operands, and the run's record (every CTA's start, copies,
// store and finish, and per-SM activity counts). The fast model must reproduce the record of
// the warp-level reference exactly (tests/unit/gpu_sm). Plain C++.

#include <cstdint>
#include <functional>
#include <vector>

#include "models/dma/dma_descriptor.h"

#include "models/gpu_sm/gmem_port.h"
#include "models/gpu_sm/gpu_cta_tile.h"

namespace systole::models {

/// A GEMM kernel on `per_sm.size()` SMs: each SM launches its CTAs in list order, as many at
/// once as occupancy allows (capped by `max_resident` when > 0), the next one when a slot frees.
struct GemmLaunch {
  GemmCtaTile tile;
  std::vector<std::vector<CtaWork>> per_sm;
  std::int64_t max_resident = 0;
};

/// One CTA's timeline, in SM cycles.
struct CtaRecord {
  std::int64_t id = 0;
  int sm = 0, slot = 0;
  std::uint64_t start = 0, finish = 0;  ///< first cycle its warps may issue; cycle after its last
  std::vector<std::uint64_t> copy_issue, copy_done;  ///< per k-tile
  std::uint64_t store_issue = 0, store_done = 0;
  bool operator==(const CtaRecord& o) const {
    return id == o.id && sm == o.sm && slot == o.slot && start == o.start && finish == o.finish &&
           copy_issue == o.copy_issue && copy_done == o.copy_done && store_issue == o.store_issue &&
           store_done == o.store_done;
  }
};

/// Instructions issued and tensor-pipe and shared-memory busy cycles of one SM (all
/// sub-partitions).
struct SmActivity {
  std::uint64_t instructions = 0, mma = 0, ldmatrix = 0, copies = 0, fp32 = 0, sfu = 0;
  std::uint64_t tensor_busy = 0;  ///< sum over sub-partitions of tensor-pipe occupied cycles
  /// Sum over sub-partitions of their bank share's occupied cycles: ldmatrix reads and cp.async
  /// writes (README rule 4).
  std::uint64_t smem_busy = 0;
  bool operator==(const SmActivity& o) const {
    return instructions == o.instructions && mma == o.mma && ldmatrix == o.ldmatrix &&
           copies == o.copies && fp32 == o.fp32 && sfu == o.sfu && tensor_busy == o.tensor_busy &&
           smem_busy == o.smem_busy;
  }
};

/// The record of one launch: what the tile-level model must reproduce exactly.
struct GemmRun {
  std::uint64_t cycles = 0;     ///< last CTA finish or store completion, over all SMs
  std::int64_t resident = 0;    ///< CTAs per SM at once
  std::vector<CtaRecord> ctas;  ///< in launch order, SM by SM
  std::vector<SmActivity> sms;
};

/// Real operands for the reference: A (m x k) and B (k x n), row-major operand codes.
struct GemmOperands {
  TcType type = TcType::kFp16;
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<std::uint32_t> a, b;
};

/// A CTA's accumulators (its real m x n tile, row-major): fp32, or int32 for int8 inputs.
struct CtaResult {
  std::int64_t id = 0;
  std::vector<float> f;
  std::vector<std::int32_t> i;
};

/// The port request for CTA `w`'s copy of k-tile `kt` (or its store when `store`), issued at
/// `issue` from residency slot `slot` of SM `sm`.
GmemRequest gemm_request(const MainloopShape& s, const CtaWork& w, int sm, int slot,
                         std::int64_t kt, bool store, std::uint64_t issue);

/// Resident CTAs per SM for a launch: occupancy, capped by max_resident.
std::int64_t resident_ctas(const GpuSmConfig& c, const GemmLaunch& l);

/// Where a GEMM's operands live: A is M x K row-major (element (m, k) at a(m) + a_k(k)), B is
/// N x K row-major (the weights, as cuBLAS's TN kernels read them), C is M x N row-major.
struct GemmAddressing {
  std::uint64_t a = 0, b = 0, c = 0;
  std::uint64_t a_row = 0;  ///< bytes from row m of A to row m + 1 (conv: stride x C x elem)
  std::uint64_t b_row = 0;  ///< bytes per row of B (K x elem)
  std::uint64_t c_row = 0;  ///< bytes per row of C (N x out elem)
  std::uint64_t elem = 2;   ///< bytes per A/B element
  /// Byte offset of column k of A within its row (GEMM: k x elem; conv: the filter tap's
  /// offset in the input image plus the channel's).
  std::function<std::uint64_t(std::int64_t k)> a_k;
  /// Split-K: K slice of each CTA and the bytes between the fp32 partial slabs of C.
  std::int64_t k_slice = 0;
  std::uint64_t c_split = 0;
  /// Strided-batched GEMMs (attention's per-head products): rows of A per batch entry (0: not
  /// batched), bytes between the B operands, and batch entries sharing one B (GQA's group).
  std::int64_t batch_rows = 0;
  std::uint64_t b_batch = 0;
  std::int64_t b_group = 1;
};

/// Where a FlashAttention kernel's tensors live (row-major, head_dim elements per row): Q of
/// (batch x head) h is seq_q rows from q + h x seq_q x head_dim x elem; K and V of K/V head
/// h / group (GQA: the `group` query heads of a K/V head share it) are seq_kv rows from k and
/// v; O is laid out like Q with out_elem bytes per element, and the row log-sum-exp (fp32) is
/// seq_q values per head from lse.
struct FlashAddressing {
  std::uint64_t q = 0, k = 0, v = 0, o = 0, lse = 0;
  std::int64_t seq_q = 0, seq_kv = 0, head_dim = 0;
  /// Split-KV: query rows of the whole launch (batch x heads x seq_q); split s's partial O and
  /// LSE rows start at o + s x rows x head_dim x out_elem and lse + s x rows x 4.
  std::int64_t rows = 0;
  std::int64_t group = 1;
  std::uint64_t elem = 2, out_elem = 2;
};

/// A memory-bound kernel: per SM, chunks read then written, with the SM's compute cycles per
/// chunk between a chunk's data arriving and its write.
struct StreamChunk {
  std::vector<DmaDescriptor> reads, writes;
  std::uint64_t compute_cycles = 0;
};
struct StreamLaunch {
  std::vector<std::vector<StreamChunk>> per_sm;
};
/// What a streaming kernel did: cycles from its start to its last write's completion.
struct StreamRun {
  std::uint64_t cycles = 0;
  std::uint64_t bytes_read = 0, bytes_written = 0;
};

}  // namespace systole::models
