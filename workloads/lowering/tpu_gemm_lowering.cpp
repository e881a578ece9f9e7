#include "workloads/lowering/tpu_gemm_lowering.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "models/sram/sram_layout.h"

namespace systole::workloads {

constexpr std::uint8_t kHbm = models::TpuChipConfig::kHbm;
constexpr std::uint8_t kCmem = models::TpuChipConfig::kCmem;

using models::Op;
using models::OpKind;
using models::Program;

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// `rows` x `cols` elements of `eb` bytes at (r0, c0) of a row-major matrix with `pitch`
/// columns at `base`: one strided descriptor of its rows.
models::DmaDescriptor row_major_tile(std::uint64_t base, std::int64_t pitch, std::int64_t r0,
                                     std::int64_t c0, std::int64_t rows, std::int64_t cols,
                                     std::uint64_t eb) {
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  return models::DmaDescriptor::strided(base + u(r0 * pitch + c0) * eb, u(rows), u(cols) * eb,
                                        u(pitch) * eb);
}

/// Where the operands sit in HBM: A (M x K), B (K x N) and C (M x N), row-major, one after the
/// other, each 4 KiB aligned, from `base`. A tile is one strided descriptor of its rows, so the
/// bank-level HBM sees the real access pattern (row hits, channel spread).
struct HbmLayout {
  std::uint64_t a = 0, b = 0, c = 0, e = 0, end = 0;  // base addresses (e: epilogue inputs)
  std::int64_t K = 0, N = 0;
  std::int64_t out = 0;  // C's columns: N, or N / 2 for a GLU (column n of a tile: n / 2)
  std::uint64_t eb = 0, e_pitch = 0;  // e_pitch: bytes between two epilogue inputs
  HbmLayout(std::uint64_t base, std::int64_t M, std::int64_t n, std::int64_t k, std::uint64_t bytes,
            int epilogue_inputs, bool glu)
      : K(k), N(n), out(glu ? n / 2 : n), eb(bytes) {
    auto align = [](std::uint64_t v) { return (v + 4095) / 4096 * 4096; };
    a = base;
    b = a + align(static_cast<std::uint64_t>(M * K) * eb);
    c = b + align(static_cast<std::uint64_t>(K * N) * eb);
    e = c + align(static_cast<std::uint64_t>(M * out) * eb);
    e_pitch = align(static_cast<std::uint64_t>(M * out) * eb);
    end = e + e_pitch * static_cast<std::uint64_t>(epilogue_inputs);
  }
  /// Stored columns of `cols` computed ones (tiles start at even columns and hold GLU pairs).
  std::int64_t stored(std::int64_t cols) const { return out == N ? cols : cols / 2; }
  /// `rows` x `cols` elements at (r0, c0) of a matrix with `pitch` columns at `base`.
  models::DmaDescriptor tile(std::uint64_t base, std::int64_t pitch, std::int64_t r0,
                             std::int64_t c0, std::int64_t rows, std::int64_t cols) const {
    return row_major_tile(base, pitch, r0, c0, rows, cols, eb);
  }
  /// B's tile at (k0, n0), `rows` x `cols`, when B is stored as the weight FIFO's tiles: the
  /// tiles of each band of rows one after another, each row-major and as large as its elements
  /// (edge tiles are not padded), so a tile is one range. Any partition of B into bands and of
  /// each band into tiles lays out this way; every load of B uses the FIFO's one partition.
  models::DmaDescriptor b_tile(std::int64_t k0, std::int64_t n0, std::int64_t rows,
                               std::int64_t cols) const {
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    return models::DmaDescriptor::linear(b + u(k0 * N + n0 * rows) * eb, u(rows * cols) * eb);
  }
};

/// The GEMM's use of CMEM, shared by the cores. A's staged columns sit tile-major (M x k; an
/// implicit im2col's footprint row-major, divided by its reuse) from address 0: the first pass over
/// a tile (any core) copies it there, every later pass loads it from there. With K in chunks, the
/// region holds the current chunk's columns and the fp32 partial sums of C (M x N, row-major)
/// follow it. Every CMEM access is ordered by its place: a load after the last store there, a store
/// after the loads since.
struct CmemStage {
  std::int64_t k = 0;     // staged columns (per chunk when chunked)
  std::int64_t row0 = 0;  // first row of the row block staged now (GemmMapping::row_block)
  // Staged A is tile-major when the cores split N (m tiles start at multiples of tm within a
  // row block); when they split M, each core's rows start anywhere: row-major.
  bool tile_major = false;
  std::int64_t tm = 1, tk = 1;
  bool chunked = false;  // K runs in chunks of k; C's partial sums wait in CMEM between chunks
  std::int64_t N = 0;
  std::uint64_t eb = 0, partials = 0;  // element bytes; base of the partial sums
  double a_reuse = 1;
  std::set<std::pair<std::int64_t, std::int64_t>> copied;       // (m0, k0) of the tiles copied
  std::map<std::uint64_t, std::uint32_t> last_store;            // by address
  std::map<std::uint64_t, std::vector<std::uint32_t>> readers;  // loads since

  bool staged(std::int64_t k0) const { return chunked || k0 < k; }
  /// The A tile's place (rows x cols at (r0, k0) of A, k0 within the staged columns).
  models::DmaDescriptor a_tile(std::int64_t r0, std::int64_t k0, std::int64_t rows,
                               std::int64_t cols, std::uint64_t bytes) const {
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    const std::int64_t kl = chunked ? k0 % k : k0, rl = r0 - row0;
    if (a_reuse > 1) {  // implicit im2col: the tile's input footprint, contiguous
      const auto at = static_cast<double>(u(rl * k + kl) * eb) / a_reuse;
      return models::DmaDescriptor::linear(static_cast<std::uint64_t>(at), bytes);
    }
    if (!tile_major) return row_major_tile(0, k, rl, kl, rows, cols, eb);
    // Tile-major (cmem_staged_bytes): tile (rl / tm, kl / tk) in a full tile's place.
    const std::uint64_t tile = u(tm * tk) * eb;
    const std::int64_t index = rl / tm * ceil_div(k, tk) + kl / tk;
    return models::DmaDescriptor::linear(u(index) * tile, u(rows * cols) * eb);
  }
  /// The place of the fp32 partial sums of the output tile at (r0, n0).
  models::DmaDescriptor partial_tile(std::int64_t r0, std::int64_t n0, std::int64_t rows,
                                     std::int64_t cols) const {
    return row_major_tile(partials, N, r0, n0, rows, cols, 4);
  }
  /// A load from `at`: depends on the store that wrote it.
  void add_load_deps(std::uint64_t at, std::vector<std::uint32_t>& deps) const {
    const auto it = last_store.find(at);
    if (it != last_store.end()) deps.push_back(it->second);
  }
  void loaded(std::uint64_t at, std::uint32_t id) { readers[at].push_back(id); }
  /// A store to `at`: depends on the loads since the last store there.
  void add_store_deps(std::uint64_t at, std::vector<std::uint32_t>& deps) {
    auto& r = readers[at];
    deps.insert(deps.end(), r.begin(), r.end());
    r.clear();
  }
  void stored(std::uint64_t at, std::uint32_t id) { last_store[at] = id; }
  void next_instance() { copied.clear(); }
};

/// One core's share of the GEMM; keeps its double-buffer state across instances.
class CoreGemm {
 public:
  CoreGemm(ProgramBuilder& b, std::int64_t core, const GemmMapping& mp, std::uint64_t eb,
           const GemmTraffic& tr, CmemStage& stage)
      : b_(b),
        core_(core),
        fifo_depth_(b.chip().mxu.weight_fifo),
        fifo_(static_cast<size_t>(b.chip().mxus_per_core)),
        vmem_("VMEM", b.chip().vmem.capacity.value(), 1),
        stage_(stage) {
    // VMEM: double-buffered operand slots and accumulator tiles (the mapping checked the fit).
    // With B stationary, each B slot is a panel of all the k steps' tiles.
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    if (!tr.resident) va_ = vmem_.add("A", gemm_a_slot_bytes(mp.tm, mp.tk, eb, tr.a_reuse), 2);
    const std::int64_t panel = mp.b_panel ? ceil_div(mp.depth, mp.tk) : 1;
    vb_ = vmem_.add("B", u(mp.tk * mp.tn * panel) * eb, 2);
    vc_ = vmem_.add("C", u(mp.tm * mp.tn) * 4, 2);
    if (tr.epilogue_inputs > 0) ve_ = vmem_.add("E", u(mp.tm * mp.tn * tr.epilogue_inputs) * eb, 1);
    vmem_.check("the GEMM tiling");  // the mapping's footprint and this layout agree
  }

  /// This core's output block (m_ext x n_ext at (m0, n0)) over A's columns [k_begin, k_end):
  /// all of K, or one chunk of it (partial sums from and to CMEM).
  void lower(std::int64_t m0, std::int64_t m_ext, std::int64_t n0, std::int64_t n_ext,
             std::int64_t k_begin, std::int64_t k_end, const GemmMapping& mp, std::uint64_t eb,
             const GemmTraffic& tr, const HbmLayout& hbm) {
    const bool first = k_begin == 0, last = k_end == hbm.K;
    const bool epilogue = tr.epilogue_ops > 0;
    const std::int64_t P = b_.chip().mxus_per_core;
    for (std::int64_t nt = 0; nt < n_ext; nt += mp.tn) {
      const std::int64_t tn = std::min(mp.tn, n_ext - nt);
      const int panel = static_cast<int>(n_tile_++ % 2);  // B panel slot (B stationary)
      std::vector<std::uint32_t> panel_readers;           // matmuls reading this panel
      for (std::int64_t mt = 0; mt < m_ext; mt += mp.tm) {
        const std::int64_t tm = std::min(mp.tm, m_ext - mt);
        const int acc = static_cast<int>(tile_ % 2);
        std::vector<std::uint32_t> last_step;
        std::uint32_t partial = ~0u;  // the load of this tile's partial sums
        std::vector<std::uint32_t> epi_loads;
        const std::int64_t flush_at =
            epilogue && k_end - k_begin > mp.tk ? k_begin + mp.tk : k_begin;
        const auto partial_place = stage_.partial_tile(m0 + mt, n0 + nt, tm, tn);
        for (std::int64_t kt = k_begin; kt < k_end; kt += mp.tk, ++step_) {
          const std::int64_t tk = std::min(mp.tk, k_end - kt);
          const int slot = static_cast<int>(step_ % 2);
          const auto free_slot = slot_readers_[slot];
          const std::uint64_t a_bytes = gemm_a_slot_bytes(tm, tk, eb, tr.a_reuse);
          // Resident activations are read from on-chip memory: no DMA for A. With implicit
          // im2col the A tile's input footprint is a_bytes at the tile's place in A.
          auto a_mem = hbm.tile(hbm.a, hbm.K, m0 + mt, kt, tm, tk);
          if (tr.a_reuse > 1) a_mem = models::DmaDescriptor::linear(a_mem.addr, a_bytes);
          std::uint32_t a = ~0u;
          if (tr.a_in_cmem) {  // the layer before left A in CMEM, row-major
            a = b_.reads(b_.load(core_, a_bytes, free_slot,
                                 row_major_tile(0, hbm.K, m0 + mt, kt, tm, tk, eb),
                                 vmem_.slot(*va_, slot), kCmem),
                         models::Operand::kInput);
          } else if (!tr.resident) {
            a = load_a(m0 + mt, kt, tm, tk, a_bytes, free_slot, a_mem, vmem_.slot(*va_, slot));
          }
          // Through a weight FIFO the B tile streams tile by tile with its matmuls (fifo_matmuls).
          const bool fifo = fifo_depth_ > 0 && tr.b_is_weight;
          std::uint32_t bt = ~0u;
          const auto k_step = static_cast<std::size_t>((kt - k_begin) / mp.tk);
          if (mp.b_panel && mt > 0) {  // B stays in VMEM: the first m tile loaded it
            bt = panel_loads_.at(k_step);
          } else if (!fifo) {
            // Into the step's slot, or into its place in the n tile's panel once the panel's
            // readers of two n tiles ago are done.
            const auto& free_b = mp.b_panel ? panel_readers_[panel] : free_slot;
            const std::uint64_t b_at =
                mp.b_panel ? vmem_.slot(vb_, panel) +
                                 k_step * static_cast<std::uint64_t>(mp.tk * mp.tn) * eb
                           : vmem_.slot(vb_, slot);
            bt = b_.reads(b_.load(core_, static_cast<std::uint64_t>(tk * tn) * eb, free_b,
                                  hbm.tile(hbm.b, hbm.N, kt, n0 + nt, tk, tn), b_at),
                          tr.b_is_weight ? models::Operand::kWeight : models::Operand::kInput);
            if (mp.b_panel) {
              if (panel_loads_.size() <= k_step) panel_loads_.resize(k_step + 1);
              panel_loads_[k_step] = bt;
            }
          }
          copy_a();
          // The previous tile's store goes after this step's prefetch, so an in-order DMA
          // queue never holds the prefetch back behind a store that waits for the MXUs (with
          // an epilogue, the store also waits for the vector unit: one step later).
          if (kt >= flush_at) flush(1 - acc);
          if (kt == flush_at && last && epilogue && !tr.resident) {
            // The epilogue's inputs, into their single buffer once the previous tile's
            // epilogue has read it.
            epi_loads.clear();
            std::vector<std::uint32_t> free_e;
            if (epi_vec_ != ~0u) free_e.push_back(epi_vec_);
            for (int i = 0; i < tr.epilogue_inputs; ++i)
              epi_loads.push_back(b_.reads(
                  b_.load(core_, static_cast<std::uint64_t>(tm * hbm.stored(tn)) * eb, free_e,
                          hbm.tile(hbm.e + hbm.e_pitch * static_cast<std::uint64_t>(i), hbm.out,
                                   m0 + mt, hbm.stored(n0 + nt), tm, hbm.stored(tn)),
                          vmem_.slot(ve_, 0) + static_cast<std::uint64_t>(i * tm * tn) * eb),
                  models::Operand::kInput));
          }
          if (kt == k_begin && !first) {  // the partial sums so far, into the free accumulator
            std::vector<std::uint32_t> deps;
            if (acc_store_[acc] != ~0u) deps.push_back(acc_store_[acc]);
            stage_.add_load_deps(partial_place.addr, deps);
            partial = b_.load(core_, static_cast<std::uint64_t>(tm * tn) * 4, std::move(deps),
                              partial_place, vmem_.slot(vc_, acc), kCmem);
            stage_.loaded(partial_place.addr, partial);
          }
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
            if (bt != ~0u) mm.deps = {bt};
            if (a != ~0u) mm.deps.push_back(a);
            if (kt == k_begin && acc_store_[acc] != ~0u) mm.deps.push_back(acc_store_[acc]);
            if (kt == k_begin && partial != ~0u) mm.deps.push_back(partial);
            // Resident activations: the matmul reads A where the layer before left it.
            if (tr.resident) mm.operand = models::Operand::kInput;
            if (fifo) {
              fifo_matmuls(mm, j, hbm, eb, tr.b_tiled, last_step);
              continue;
            }
            const std::uint32_t id = b_.emit(std::move(mm));
            next_readers_.push_back(id);
            last_step.push_back(id);
            if (mp.b_panel) panel_readers.push_back(id);
          }
          slot_readers_[slot] = std::move(next_readers_);
          next_readers_.clear();
        }
        pending_sram_ = vmem_.slot(vc_, acc);
        if (last && epilogue) {  // the fused elementwise ops on the vector unit, then the store
          std::vector<std::uint32_t> deps = last_step;
          deps.insert(deps.end(), epi_loads.begin(), epi_loads.end());
          const std::int64_t out = tm * hbm.stored(tn);  // elements stored
          const auto lane_ops =
              static_cast<std::uint64_t>(std::ceil(static_cast<double>(out) * tr.epilogue_ops));
          const std::uint32_t v = b_.vector(
              core_, lane_ops, static_cast<std::uint64_t>(tm * tn + out * tr.epilogue_inputs) * eb,
              std::move(deps));
          epi_vec_ = v;
          last_step = {v};
        }
        if (!last) {  // fp32 partial sums to CMEM
          pending_bytes_ = static_cast<std::uint64_t>(tm * tn) * 4;
          pending_mem_ = partial_place;
          pending_memory_ = kCmem;
          pending_deps_ = std::move(last_step);
        } else if (!tr.resident) {  // resident C stays on chip
          pending_bytes_ = static_cast<std::uint64_t>(tm * hbm.stored(tn)) * eb;
          pending_mem_ = hbm.tile(hbm.c, hbm.out, m0 + mt, hbm.stored(n0 + nt), tm, hbm.stored(tn));
          pending_memory_ = kHbm;
          pending_deps_ = std::move(last_step);
        }
        ++tile_;
      }
      if (mp.b_panel) panel_readers_[panel] = std::move(panel_readers);
    }
  }

  /// The A tile load: from HBM, or from CMEM when another pass already staged it there; the
  /// first pass over a staged tile also copies it from VMEM to CMEM (copy_a, emitted after the
  /// B load so an in-order DMA queue does not hold the B load behind it).
  std::uint32_t load_a(std::int64_t r0, std::int64_t k0, std::int64_t rows, std::int64_t cols,
                       std::uint64_t bytes, const std::vector<std::uint32_t>& free_slot,
                       const models::DmaDescriptor& hbm_mem, std::uint64_t vmem_addr) {
    if (!stage_.staged(k0))
      return b_.reads(b_.load(core_, bytes, free_slot, hbm_mem, vmem_addr),
                      models::Operand::kInput);
    const auto key = std::make_pair(r0, k0);
    const auto cmem = stage_.a_tile(r0, k0, rows, cols, bytes);
    if (stage_.copied.count(key)) {
      auto deps = free_slot;
      stage_.add_load_deps(cmem.addr, deps);
      const std::uint32_t id = b_.load(core_, bytes, std::move(deps), cmem, vmem_addr, kCmem);
      stage_.loaded(cmem.addr, id);
      return id;
    }
    const std::uint32_t id =
        b_.reads(b_.load(core_, bytes, free_slot, hbm_mem, vmem_addr), models::Operand::kInput);
    copy_ = {true, key, id, bytes, cmem, vmem_addr};
    return id;
  }
  void copy_a() {
    if (!copy_.pending) return;
    copy_.pending = false;
    std::vector<std::uint32_t> deps = {copy_.load};
    stage_.add_store_deps(copy_.cmem.addr, deps);  // an earlier chunk's or instance's loads
    const std::uint32_t id =
        b_.store(core_, copy_.bytes, std::move(deps), copy_.cmem, copy_.vmem_addr, kCmem);
    stage_.stored(copy_.cmem.addr, id);
    stage_.copied.insert(copy_.key);
    next_readers_.push_back(id);
  }

  /// The weight FIFO (MxuConfig::weight_fifo, TPU v1): MXU j's slice of the B tile (`mm`'s
  /// k x n) streams from memory in array-sized tiles, each one DMA load and one matmul that waits
  /// only for its own tile, column block by column block with the row blocks inside (the fold
  /// order). A load waits for the matmul that read the tile `depth` loads before it: that slot
  /// frees when the matmul completes (the hardware frees it when the tile shifts into the array,
  /// one matmul latency earlier).
  void fifo_matmuls(const Op& mm, std::int64_t j, const HbmLayout& hbm, std::uint64_t eb,
                    bool tiled, std::vector<std::uint32_t>& last_step) {
    const auto& mxu = b_.chip().mxu;
    auto& f = fifo_[static_cast<size_t>(j)];
    const auto depth = static_cast<size_t>(fifo_depth_);
    for (std::int64_t c0 = 0; c0 < mm.n; c0 += mxu.cols)
      for (std::int64_t r0 = 0; r0 < mm.k; r0 += mxu.rows) {
        const std::int64_t rows = std::min<std::int64_t>(mxu.rows, mm.k - r0);
        const std::int64_t cols = std::min<std::int64_t>(mxu.cols, mm.n - c0);
        std::vector<std::uint32_t> slot;
        if (f.tail.size() >= depth) slot.push_back(f.tail[f.tail.size() - depth]);
        const std::uint32_t ld =
            b_.reads(b_.load(core_, static_cast<std::uint64_t>(rows * cols) * eb, std::move(slot),
                             tiled ? hbm.b_tile(mm.k0 + r0, mm.n0 + c0, rows, cols)
                                   : hbm.tile(hbm.b, hbm.N, mm.k0 + r0, mm.n0 + c0, rows, cols)),
                     models::Operand::kWeight);
        if (f.head.size() < depth && b_.program().ops[ld].deps.empty()) f.head.push_back(ld);
        Op t = mm;
        t.k0 = mm.k0 + static_cast<std::uint32_t>(r0);
        t.n0 = mm.n0 + static_cast<std::uint32_t>(c0);
        t.k = static_cast<std::uint32_t>(rows);
        t.n = static_cast<std::uint32_t>(cols);
        t.bytes = static_cast<std::uint64_t>(mm.m * rows + rows * cols) * eb;
        t.deps.push_back(ld);
        const std::uint32_t id = b_.emit(std::move(t));
        f.tail.push_back(id);
        if (f.tail.size() > depth) f.tail.erase(f.tail.begin());
        next_readers_.push_back(id);
        last_step.push_back(id);
      }
  }

  /// Emits the pending output-tile store (it frees accumulator buffer `acc`).
  void flush(int acc) {
    if (pending_deps_.empty()) return;
    if (pending_memory_ == kCmem) stage_.add_store_deps(pending_mem_.addr, pending_deps_);
    acc_store_[acc] = b_.store(core_, pending_bytes_, std::move(pending_deps_), pending_mem_,
                               pending_sram_, pending_memory_);
    if (pending_memory_ == kCmem) stage_.stored(pending_mem_.addr, acc_store_[acc]);
    pending_deps_.clear();
  }
  /// Emits the last store and reports the last users of each VMEM buffer (vmem_tail), so a
  /// later layer's loads into the same place wait for them.
  void finish() {
    flush(static_cast<int>((tile_ + 1) % 2));
    auto& tail = b_.program().vmem_tail;
    const auto core = static_cast<std::uint32_t>(core_);
    const auto add = [&](std::size_t buf, int slot, std::vector<std::uint32_t> ops) {
      if (ops.empty()) return;
      const std::uint64_t lo = vmem_.slot(buf, slot);
      tail.push_back({core, lo, lo + vmem_.bytes(buf), std::move(ops)});
    };
    for (int s = 0; s < 2; ++s) {
      if (va_) add(*va_, s, slot_readers_[s]);
      add(vb_, s, slot_readers_[s]);
      add(vb_, s, panel_readers_[s]);
      if (acc_store_[s] != ~0u) add(vc_, s, {acc_store_[s]});
    }
    if (ve_ && epi_vec_ != ~0u) add(ve_, 0, {epi_vec_});
    for (size_t j = 0; j < fifo_.size(); ++j)
      if (!fifo_[j].tail.empty()) {
        fifo_[j].unit = b_.chip().mxu_unit(core_, static_cast<std::int64_t>(j));
        b_.program().fifos.push_back(fifo_[j]);
      }
  }

 private:
  ProgramBuilder& b_;
  std::int64_t core_;
  std::int64_t fifo_depth_;                     // MxuConfig::weight_fifo (0: none)
  std::vector<models::WeightFifo> fifo_;        // per MXU: first loads, readers of the last tiles
  std::vector<std::uint32_t> slot_readers_[2];  // ops that read each VMEM slot
  std::vector<std::uint32_t> next_readers_;     // readers of the slot being filled
  struct Copy {
    bool pending = false;
    std::pair<std::int64_t, std::int64_t> key;
    std::uint32_t load = 0;
    std::uint64_t bytes = 0;
    models::DmaDescriptor cmem;
    std::uint64_t vmem_addr = 0;
  } copy_;
  std::uint32_t acc_store_[2] = {~0u, ~0u};  // store that frees each accumulator buffer
  models::SramLayout vmem_;
  std::optional<std::size_t> va_;  // none when A is resident
  std::size_t vb_ = 0, vc_ = 0, ve_ = 0;
  std::vector<std::uint32_t> panel_readers_[2];  // B stationary: matmuls reading each panel
  std::vector<std::uint32_t> panel_loads_;       // the B loads of the current panel, per k step
  std::int64_t n_tile_ = 0;
  std::uint32_t epi_vec_ = ~0u;  // the epilogue op that last read the input buffer
  std::vector<std::uint32_t> pending_deps_;
  std::uint64_t pending_bytes_ = 0, pending_sram_ = 0;
  std::uint8_t pending_memory_ = kHbm;
  models::DmaDescriptor pending_mem_;
  std::int64_t step_ = 0, tile_ = 0;
  CmemStage& stage_;
};

}  // namespace

void append_gemm(ProgramBuilder& b, const Layer& layer, const GemmMapping& mp, std::int64_t count,
                 const GemmTraffic& traffic) {
  const auto eb = dtype_bytes(layer.dtype);
  const std::int64_t M = layer.rows(), N = layer.n, K = layer.k;
  const std::int64_t split = mp.split_n ? N : M;
  CmemStage stage;
  stage.k = traffic.resident ? 0 : mp.cmem_k;
  stage.chunked = stage.k > 0 && mp.k_chunked;
  stage.N = N;
  stage.eb = eb;
  stage.a_reuse = traffic.a_reuse;
  stage.tile_major = mp.split_n;
  stage.tm = mp.split_n ? mp.tm : 1;
  stage.tk = mp.split_n ? mp.tk : 1;
  stage.partials = cmem_partials_base(M, stage.k, stage.tm, stage.tk, eb, traffic.a_reuse);
  const std::int64_t chunk = stage.chunked ? stage.k : K;
  std::vector<CoreGemm> cores;
  for (std::int64_t c = 0; c < mp.cores_used; ++c) cores.emplace_back(b, c, mp, eb, traffic, stage);
  for (std::int64_t i = 0; i < count; ++i) {
    stage.next_instance();
    // Each instance has its own operands in HBM.
    const HbmLayout hbm(b.reserve_hbm(0), M, N, K, eb, traffic.epilogue_inputs, layer.glu);
    b.reserve_hbm(hbm.end - hbm.a);
    // Row block by row block (the cores split N), chunk by chunk, each core in turn: a block's
    // or chunk's copies wait for the previous one's loads of the same CMEM place, by any core,
    // which must come first in the program.
    const std::int64_t block = mp.split_n && mp.row_block > 0 ? mp.row_block : M;
    for (std::int64_t r0 = 0; r0 < M; r0 += block) {
      const std::int64_t rows = std::min(block, M - r0);
      stage.row0 = r0;
      stage.copied.clear();
      for (std::int64_t k0 = 0; k0 < K; k0 += chunk) {
        const std::int64_t k1 = std::min(K, k0 + chunk);
        for (std::int64_t c = 0; c < mp.cores_used; ++c) {
          const std::int64_t s0 = c * mp.core_extent;
          const std::int64_t ext = std::min(mp.core_extent, split - s0);
          if (ext <= 0) break;
          auto& core = cores[static_cast<size_t>(c)];
          if (mp.split_n)
            core.lower(r0, rows, s0, ext, k0, k1, mp, eb, traffic, hbm);
          else
            core.lower(s0, ext, 0, N, k0, k1, mp, eb, traffic, hbm);
        }
      }
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
