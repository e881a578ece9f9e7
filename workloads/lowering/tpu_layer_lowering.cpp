#include "workloads/lowering/tpu_layer_lowering.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "sim/core/units.h"
#include "workloads/lowering/tpu_gemm_lowering.h"

namespace systole::workloads {

using models::Op;
using models::OpKind;

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }

[[noreturn]] void fits_nowhere(const Layer& l, std::uint64_t need, std::uint64_t have,
                               const char* what) {
  throw WorkloadError(
      fmt::format("{}: layer '{}' ({}) fits nowhere: {} needs {} of VMEM, the core has {} (raise "
                  "system.chip.vmem.capacity)",
                  l.origin.str(), l.name, l.shape(), what,
                  format_quantity(static_cast<double>(need), Dimension::kBytes),
                  format_quantity(static_cast<double>(have), Dimension::kBytes)));
}

// Vector op over rows x cols: rows split over the cores, row tiles double-buffered in VMEM.
// With `to_cmem` the output goes to CMEM, row-major from address 0, for the GEMM after it.
// `resident`: the inputs are already in VMEM (the GEMM before it left them there, as TPU v1's
// accumulators feed its Activation unit) and the output stays there: no DMA.
std::string lower_vector(ProgramBuilder& b, const Layer& l, const VectorJob& v, bool to_cmem,
                         bool resident = false) {
  const auto& chip = b.chip();
  const std::uint64_t eb = dtype_bytes(l.dtype);
  const auto in_row =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(v.cols) * v.input_ratio));
  const std::uint64_t row_bytes = (u(v.cols) + in_row * u(v.inputs)) * eb;
  const std::uint64_t vmem = chip.vmem.capacity.value();
  if (2 * row_bytes > vmem) fits_nowhere(l, 2 * row_bytes, vmem, "one double-buffered row");
  const std::int64_t cores = std::min<std::int64_t>(chip.tensor_cores, v.rows);
  const std::int64_t per_core = ceil_div(v.rows, cores);
  const std::int64_t tr = std::max<std::int64_t>(
      1, std::min<std::int64_t>(per_core, static_cast<std::int64_t>(vmem / (2 * row_bytes))));
  for (std::int64_t c = 0; c < cores && resident; ++c) {
    const std::int64_t ext = std::min(per_core, v.rows - c * per_core);
    for (std::int64_t r = 0; r < ext; r += tr) {  // after the step before (its sinks)
      const std::int64_t rows = std::min(tr, ext - r);
      b.vector(c,
               static_cast<std::uint64_t>(
                   std::ceil(static_cast<double>(rows * v.cols) * v.ops_per_element)),
               u(rows) * row_bytes, {});
    }
  }
  for (std::int64_t c = 0; c < cores && !resident; ++c) {
    const std::int64_t r0 = c * per_core, ext = std::min(per_core, v.rows - r0);
    std::uint32_t slot_store[2] = {~0u, ~0u};
    std::vector<std::uint32_t> pending;  // the previous tile's vector op, its store not emitted yet
    std::uint64_t pending_bytes = 0, pending_at = 0;
    int pending_slot = 0;
    const auto store = [&](std::vector<std::uint32_t> deps) {
      if (!to_cmem) return b.store(c, pending_bytes, std::move(deps));
      return b.store(c, pending_bytes, std::move(deps),
                     models::DmaDescriptor::linear(pending_at, pending_bytes), 0, 1);
    };
    for (std::int64_t t = 0, r = 0; r < ext; ++t, r += tr) {
      const std::int64_t rows = std::min(tr, ext - r);
      const int slot = static_cast<int>(t % 2);
      ProgramBuilder::Deps free;
      if (slot_store[slot] != ~0u) free.push_back(slot_store[slot]);
      ProgramBuilder::Deps loads;
      for (int i = 0; i < v.inputs; ++i)
        loads.push_back(b.reads(b.load(c, u(rows) * in_row * eb, free), models::Operand::kInput));
      if (!pending.empty()) {  // store the previous tile behind this tile's prefetch
        slot_store[pending_slot] = store(pending);
        pending.clear();
      }
      const auto lane_ops = static_cast<std::uint64_t>(
          std::ceil(static_cast<double>(rows * v.cols) * v.ops_per_element));
      pending.assign(1, b.vector(c, lane_ops, u(rows) * row_bytes, loads));
      pending_bytes = u(rows * v.cols) * eb;
      pending_at = u((r0 + r) * v.cols) * eb;
      pending_slot = slot;
    }
    if (!pending.empty()) store(pending);
  }
  return fmt::format("{} rows/tile", tr);
}

// FlashAttention-style: per (sequence, K/V head) instance, a tile of Br stacked query rows
// stays in VMEM with its fp32 output accumulator while K/V tiles of Bc positions stream
// through two VMEM slots: S = Q K^T on the MXUs (split over their columns), online softmax on
// the vector unit, O += P V on one MXU; then O is normalised and stored. Causal masking skips
// K/V tiles that lie wholly after every query of the tile.
std::string lower_flash(ProgramBuilder& b, const Layer& l, const FlashJob& f, bool to_cmem) {
  const auto& chip = b.chip();
  const AttentionShape& a = f.attn;
  const std::uint64_t eb = dtype_bytes(f.dtype);
  const std::int64_t q_rows = a.group() * a.seq_q, d = a.head_dim, P = chip.mxus_per_core;
  const std::uint64_t vmem = chip.vmem.capacity.value();
  // Two Q tiles with their fp32 output accumulators, two K/V slots, two fp32 score tiles
  // (softmax of one overlaps QK^T of the next).
  auto footprint = [&](std::int64_t br, std::int64_t bc) {
    return 2 * u(br * d) * (eb + 4) + 4 * u(bc * d) * eb + 2 * u(br * bc) * 4;
  };
  // Largest query tile first (K/V are then read fewer times), then the largest K/V tile.
  std::vector<std::int64_t> brs, bcs;
  // Causal prefill: tiles of at most a quarter of a head's queries, so that K/V tiles after
  // every query of a tile can be skipped (up to ~3/8 of the work).
  const std::int64_t br_max = a.causal && a.seq_q >= 32 ? a.seq_q / 4 : q_rows;
  for (std::int64_t x = std::min(q_rows, br_max);; x = std::max<std::int64_t>(8, x / 2)) {
    brs.push_back(x);
    if (x <= 8) break;
  }
  for (std::int64_t x = std::min<std::int64_t>(a.seq_kv, 1024);; x /= 2) {
    bcs.push_back(x);
    if (x <= 8) break;
  }
  std::int64_t br = 0, bc = 0;
  const auto acc_rows = chip.mxu.accumulators / 2;  // two output tiles in flight, as for GEMMs
  for (auto x : brs) {
    if (x > acc_rows) continue;
    for (auto y : bcs)
      if (footprint(x, y) <= vmem) {
        br = x;
        bc = y;
        break;
      }
    if (br) break;
  }
  if (!br) fits_nowhere(l, footprint(brs.back(), bcs.back()), vmem, "its smallest attention tile");
  // When a head's whole K and V fit twice (this instance's and the next's, prefetched) beside
  // the Q/O and score tiles, every K/V tile is loaded once per instance and kept for the later
  // query tiles instead of streaming through two slots.
  const std::int64_t kv_tiles = ceil_div(a.seq_kv, bc);
  const bool kv_resident =
      q_rows > br && footprint(br, 0) + 2 * 2 * u(kv_tiles * bc * d) * eb <= vmem;
  std::vector<std::vector<std::uint32_t>> kv_users(static_cast<size_t>(2 * chip.tensor_cores));
  std::vector<std::int64_t> kv_instances(static_cast<size_t>(chip.tensor_cores), 0);
  const std::int64_t instances = a.batch * a.kv_heads;
  std::uint64_t o_at = 0;  // CMEM place of the next O tile
  std::vector<std::vector<std::uint32_t>> kv_readers(static_cast<size_t>(2 * chip.tensor_cores));
  std::vector<std::int64_t> step(static_cast<size_t>(chip.tensor_cores), 0);
  // Two Q/O buffers per core: the next query tile loads while this one finishes.
  std::vector<std::uint32_t> q_free(static_cast<size_t>(2 * chip.tensor_cores), ~0u);
  std::vector<std::int64_t> q_tiles(static_cast<size_t>(chip.tensor_cores), 0);
  for (std::int64_t i = 0; i < instances; ++i) {
    const std::int64_t c = i % chip.tensor_cores;
    // Resident K/V: this instance's buffer is free once the instance that used it before is
    // done with it; loaded[j] holds tile j's K and V loads once issued.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> loaded;
    ProgramBuilder::Deps kv_free;
    std::vector<std::uint32_t>* users = nullptr;
    if (kv_resident) {
      loaded.assign(static_cast<size_t>(kv_tiles), {~0u, ~0u});
      users = &kv_users[static_cast<size_t>(2 * c + kv_instances[static_cast<size_t>(c)]++ % 2)];
      kv_free = std::move(*users);
      users->clear();
    }
    for (std::int64_t r0 = 0; r0 < q_rows; r0 += br) {
      const std::int64_t rows = std::min(br, q_rows - r0);
      const auto qbuf = static_cast<size_t>(2 * c + q_tiles[static_cast<size_t>(c)]++ % 2);
      ProgramBuilder::Deps qdeps;
      if (q_free[qbuf] != ~0u) qdeps.push_back(q_free[qbuf]);
      const std::uint32_t q = b.reads(b.load(c, u(rows * d) * eb, qdeps), models::Operand::kInput);
      // The last query position in this tile (query rows are stacked head by head).
      const bool wraps = rows >= a.seq_q || (r0 % a.seq_q) + rows > a.seq_q;
      const std::int64_t max_pos =
          a.seq_kv - a.seq_q + (wraps ? a.seq_q - 1 : (r0 + rows - 1) % a.seq_q);
      std::uint32_t last_pv = ~0u, prev_pv = ~0u;  // PV of the last two K/V tiles
      std::vector<std::uint32_t> q_readers;
      for (std::int64_t j0 = 0; j0 < a.seq_kv; j0 += bc) {
        if (a.causal && j0 > max_pos) break;
        const std::int64_t cols = std::min(bc, a.seq_kv - j0);
        std::vector<std::uint32_t> unused;
        auto& readers =
            kv_resident
                ? unused
                : kv_readers[static_cast<size_t>(2 * c + step[static_cast<size_t>(c)]++ % 2)];
        std::uint32_t k = ~0u, v = ~0u;
        if (kv_resident && loaded[static_cast<size_t>(j0 / bc)].first != ~0u) {
          std::tie(k, v) = loaded[static_cast<size_t>(j0 / bc)];
        } else {
          const ProgramBuilder::Deps& free = kv_resident ? kv_free : readers;
          k = b.reads(b.load(c, u(cols * d) * eb, free), models::Operand::kInput);
          v = b.reads(b.load(c, u(cols * d) * eb, free), models::Operand::kInput);
          if (kv_resident) loaded[static_cast<size_t>(j0 / bc)] = {k, v};
          readers.clear();
        }
        ProgramBuilder::Deps s_ops;
        const std::int64_t slice = ceil_div(cols, P);
        for (std::int64_t p = 0; p < P && p * slice < cols; ++p) {
          Op mm;
          mm.kind = OpKind::kMatmul;
          mm.unit = chip.mxu_unit(c, p);
          mm.m = static_cast<std::uint32_t>(rows);
          mm.k = static_cast<std::uint32_t>(d);
          mm.n = static_cast<std::uint32_t>(std::min(slice, cols - p * slice));
          mm.m0 = static_cast<std::uint32_t>(r0);  // query row, key position
          mm.n0 = static_cast<std::uint32_t>(j0 + p * slice);
          mm.bytes = u(rows * d + d * mm.n) * eb;
          mm.deps.push_back(q);
          mm.deps.push_back(k);
          if (prev_pv != ~0u) mm.deps.push_back(prev_pv);  // its S buffer was read by that PV
          s_ops.push_back(b.emit(std::move(mm)));
        }
        // Online softmax: max, subtract, exp, sum, rescale of the running output.
        const std::uint32_t sm =
            b.vector(c,
                     static_cast<std::uint64_t>(std::ceil(static_cast<double>(rows * cols) *
                                                          chip.vector.ops.online_softmax)) +
                         u(rows * d),
                     u(rows * cols) * 4, s_ops);
        Op pv;
        pv.kind = OpKind::kMatmul;
        pv.unit = chip.mxu_unit(c, (j0 / bc) % P);
        pv.m = static_cast<std::uint32_t>(rows);
        pv.k = static_cast<std::uint32_t>(cols);
        pv.n = static_cast<std::uint32_t>(d);
        pv.m0 = static_cast<std::uint32_t>(r0);  // query row, reduction over key positions
        pv.k0 = static_cast<std::uint32_t>(j0);
        pv.bytes = u(rows * cols + cols * d) * eb;
        pv.deps.push_back(sm);
        pv.deps.push_back(v);
        if (last_pv != ~0u) pv.deps.push_back(last_pv);  // O accumulates in order
        prev_pv = last_pv;
        last_pv = b.emit(std::move(pv));
        readers = s_ops;
        readers.push_back(last_pv);
        if (kv_resident) users->insert(users->end(), readers.begin(), readers.end());
        q_readers.insert(q_readers.end(), s_ops.begin(), s_ops.end());
      }
      const std::uint32_t norm = b.vector(c, u(rows * d), u(rows * d) * 4, {last_pv});
      // O leaves for HBM, or for CMEM where the GEMM after the layer reads it (placed in
      // instance order: the layout of heads in the consumer's A is not modelled).
      const std::uint64_t o_bytes = u(rows * d) * eb;
      q_free[qbuf] =
          to_cmem ? b.store(c, o_bytes, {norm}, models::DmaDescriptor::linear(o_at, o_bytes), 0, 1)
                  : b.store(c, o_bytes, {norm});  // free once O has left
      o_at += o_bytes;
    }
  }
  return fmt::format("Br{} Bc{}{}", br, bc, kv_resident ? " KV resident" : "");
}

/// Elements of the output of a vector layer or an attention (what a hand-off moves).
std::uint64_t output_elements(const Layer& l) {
  if (l.op == LayerOp::kAttention)
    return u(l.attn.batch * l.attn.heads * l.attn.seq_q * l.attn.head_dim);
  return l.elements();
}

}  // namespace

std::vector<Handoff> plan_handoffs(const models::TpuChipConfig& chip,
                                   const std::vector<Layer>& layers, const MappingOptions& opt) {
  std::vector<Handoff> h(layers.size());
  if (!opt.cmem_handoff || opt.activations_on_chip) return h;
  const auto from = producers(layers);
  const auto readers = consumer_counts(from);
  for (size_t i = 0; i + 1 < layers.size(); ++i) {
    const Layer &p = layers[i], &g = layers[i + 1];
    // g reads p's output as its only activation, and nothing else reads it.
    if (from[i + 1] != std::vector<size_t>{i} || readers[i] != 1) continue;
    const bool producer = is_vector_op(p.op) ||
                          (p.op == LayerOp::kAttention && opt.attention == AttentionImpl::kFused);
    if (!producer || g.op != LayerOp::kGemm || p.repeat != 1 || g.repeat != 1 || p.dtype != g.dtype)
      continue;
    const std::uint64_t elements = output_elements(p);
    if (elements != u(g.rows() * g.k)) continue;
    if (elements * dtype_bytes(p.dtype) > chip.cmem.capacity.value()) continue;
    h[i].output_cmem = true;
    h[i + 1].input_cmem = true;
  }
  return h;
}

LayerBounds layer_bounds(const models::TpuChipConfig& chip, const Layer& l, AttentionImpl impl,
                         bool resident, const Handoff& handoff) {
  LayerBounds b;
  const std::uint64_t eb = dtype_bytes(l.dtype);
  b.macs = l.macs();
  switch (l.op) {
    case LayerOp::kLstm:  // the gate GEMM's weights; x_t and h_t-1 in, h_t and c_t out, c_t-1 in
      b.compulsory_bytes =
          (resident ? 0 : u(l.rows() * l.k) + 3 * l.elements()) * eb + u(l.k * l.n) * eb;
      b.lane_ops = static_cast<std::uint64_t>(std::ceil(
          static_cast<double>(l.elements()) * vector_ops_per_element(l.op, chip.vector.ops)));
      break;
    case LayerOp::kGemm:
      // C as stored: N columns, or N / 2 for a gated epilogue (GLU).
      b.compulsory_bytes =
          (resident ? 0 : u(l.rows() * l.k) + u(l.rows() * l.out_cols())) * eb + u(l.k * l.n) * eb;
      for (const Epilogue& e : l.epilogue) {  // fused elementwise ops: their inputs, their work
        if (!resident) b.compulsory_bytes += u(l.rows() * l.out_cols()) * eb * u(e.extra_inputs);
        b.lane_ops +=
            static_cast<std::uint64_t>(std::ceil(static_cast<double>(l.rows() * l.out_cols()) *
                                                 vector_ops_per_element(e.op, chip.vector.ops)));
      }
      break;
    case LayerOp::kConv2d: {
      const auto& c = l.conv;
      // Only the input rows and columns some filter tap lands on must be read (a strided 1x1
      // convolution skips the others).
      const auto touched = [](std::int64_t in, std::int64_t out, std::int64_t taps,
                              std::int64_t stride, std::int64_t pad, std::int64_t dil) {
        std::vector<char> hit(static_cast<size_t>(in), 0);
        for (std::int64_t o = 0; o < out; ++o)
          for (std::int64_t t = 0; t < taps; ++t) {
            const std::int64_t i = o * stride - pad + t * dil;
            if (i >= 0 && i < in) hit[static_cast<size_t>(i)] = 1;
          }
        return static_cast<std::int64_t>(std::count(hit.begin(), hit.end(), 1));
      };
      const std::int64_t rows = touched(c.h, c.p(), c.r, c.stride, c.pad, c.dilation);
      const std::int64_t cols = touched(c.w, c.q(), c.s, c.stride, c.pad, c.dilation);
      const std::uint64_t acts = u(c.n * rows * cols * c.c) + u(c.n * c.p() * c.q() * c.k);
      b.compulsory_bytes = ((resident ? 0 : acts) + u(c.k * c.r * c.s * (c.c / c.groups))) * eb;
      if (is_depthwise(c)) b.lane_ops = b.macs;  // on the vector unit, not the MXUs
      break;
    }
    case LayerOp::kAttention: {
      const auto& a = l.attn;
      b.compulsory_bytes = (2 * u(a.batch * a.heads * a.seq_q * a.head_dim) +
                            2 * u(a.batch * a.kv_heads * a.seq_kv * a.head_dim)) *
                           eb;
      b.lane_ops = static_cast<std::uint64_t>(
          std::ceil(static_cast<double>(u(a.batch * a.heads) * a.scores_per_head()) *
                    (impl == AttentionImpl::kFused ? chip.vector.ops.online_softmax
                                                   : chip.vector.ops.softmax)));
      break;
    }
    default: {
      const auto steps = plan_layer(l, impl, chip.vector.ops);
      const auto& v = steps.at(0).vec;
      b.compulsory_bytes = v.elements() * eb * u(v.inputs + 1);
      b.lane_ops = static_cast<std::uint64_t>(
          std::ceil(static_cast<double>(v.elements()) * v.ops_per_element));
      break;
    }
  }
  // A tensor handed over through CMEM does not cross HBM: the GEMM's A input, or the output.
  if (handoff.input_cmem && l.op == LayerOp::kGemm) b.compulsory_bytes -= u(l.rows() * l.k) * eb;
  if (handoff.output_cmem) b.compulsory_bytes -= output_elements(l) * eb;
  const double bytes_per_cycle = chip.hbm.bandwidth.value() / chip.clock.value();
  const bool on_vpu = l.op == LayerOp::kConv2d && is_depthwise(l.conv);
  b.compute_cycles =
      on_vpu ? 0.0 : static_cast<double>(b.macs) / static_cast<double>(chip.peak_macs_per_cycle());
  b.vector_cycles =
      static_cast<double>(b.lane_ops) / static_cast<double>(chip.vector.lanes * chip.tensor_cores);
  b.hbm_cycles = static_cast<double>(b.compulsory_bytes) / bytes_per_cycle;
  b.roofline_cycles = std::max({b.compute_cycles, b.vector_cycles, b.hbm_cycles});
  b.bound = b.roofline_cycles == b.compute_cycles ? "compute"
            : b.roofline_cycles == b.hbm_cycles   ? "hbm"
                                                  : "vector";
  b.intensity = 2.0 * static_cast<double>(b.macs) /
                static_cast<double>(std::max<std::uint64_t>(1, b.compulsory_bytes));
  return b;
}

LoweredLayer lower_layer(const models::TpuChipConfig& chip, const Layer& l,
                         const MappingOptions& opt, const Handoff& handoff) {
  const AttentionImpl impl = opt.attention;
  LoweredLayer out;
  ProgramBuilder b(chip, out.program);
  std::vector<std::string> tiles;
  bool resident = false;
  for (const auto& s : plan_layer(l, impl, chip.vector.ops)) {
    const size_t begin = b.size();
    out.program.vmem_tail.clear();  // only the last step's buffers outlive the layer
    switch (s.kind) {
      case Step::Kind::kGemm: {
        GemmTraffic traffic;
        traffic.a_reuse = s.gemm.a_reuse;
        traffic.a_in_cmem = handoff.input_cmem && l.op == LayerOp::kGemm;
        traffic.b_is_weight = l.op != LayerOp::kAttention;
        traffic.b_tiled = traffic.b_is_weight && opt.weights_tiled;
        for (const Epilogue& e : s.gemm.gemm.epilogue) {
          traffic.epilogue_inputs += e.extra_inputs;
          traffic.epilogue_ops += vector_ops_per_element(e.op, chip.vector.ops);
        }
        if (opt.activations_on_chip && l.op != LayerOp::kAttention) {
          const auto& g = s.gemm.gemm;
          const double eb = dtype_bytes(g.dtype);
          const double acts = static_cast<double>(s.gemm.count) * eb *
                              (static_cast<double>(g.rows() * g.k) / s.gemm.a_reuse +
                               static_cast<double>(g.rows() * g.out_cols()));
          traffic.resident = acts <= static_cast<double>(chip.vmem.capacity.value()) / 2;
          resident = traffic.resident;
        }
        const auto mp = map_gemm(chip, s.gemm.gemm, traffic);
        append_gemm(b, s.gemm.gemm, mp, s.gemm.count, traffic);
        std::string tile = mp.tile_text() + (traffic.a_in_cmem ? " A<-cmem" : "");
        if (s.gemm.gemm.glu) tile += " glu";
        for (const Epilogue& e : s.gemm.gemm.epilogue)
          tile += std::string(" +") + layer_op_name(e.op);
        tiles.push_back(tile);
        break;
      }
      case Step::Kind::kVector:
        // An LSTM cell works on its gate GEMM's output where that GEMM left it.
        tiles.push_back(
            lower_vector(b, l, s.vec, handoff.output_cmem, resident && l.op == LayerOp::kLstm));
        break;
      case Step::Kind::kFlash:
        tiles.push_back(lower_flash(b, l, s.flash, handoff.output_cmem));
        break;
    }
    b.close_step(begin);
  }
  for (const auto& op : out.program.ops)
    if ((op.kind == OpKind::kLoad || op.kind == OpKind::kStore) &&
        op.memory == models::TpuChipConfig::kHbm)
      out.planned_bytes += op.bytes;
  out.tile = tiles.size() == 1 ? tiles[0] : fmt::format("{}", fmt::join(tiles, " | "));
  if (handoff.output_cmem) out.tile += " ->cmem";
  out.bounds = layer_bounds(chip, l, impl, resident, handoff);
  return out;
}

}  // namespace systole::workloads
