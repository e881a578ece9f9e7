#include "workloads/lowering/gpu_lowering.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"

namespace systole::workloads {

namespace {

using models::CtaWork;
using models::DmaDescriptor;

std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }

/// Bytes of the widest access of an implicit-GEMM convolution's activation loads: 128 bits
/// (cp.async.cg's 16 bytes; NVIDIA/cutlass include/cutlass/conv/threadblock/
/// conv2d_fprop_activation_tile_access_iterator_{optimized,fixed_channels,few_channels}.h load
/// AlignedArray<Element, kElementsPerAccess> vectors of one tap's channels; cuDNN's kernel for
/// ResNet-50's conv1 at bf16 is `..._nhwc_align8`: 8 elements of 2 bytes).
constexpr std::uint64_t kVectorBytes = 16;

/// The distance between the copies of a repeated layer's weights (instances): above any device
/// memory (the HBM model wraps addresses at its capacity; the L2 tags whole addresses).
constexpr std::uint64_t kInstanceStride = std::uint64_t{1} << 40;

/// Device addresses: one bump allocator, 4 KiB aligned, starting past address 0.
class Heap {
 public:
  std::uint64_t alloc(std::uint64_t bytes) {
    const std::uint64_t a = next_;
    next_ += (std::max<std::uint64_t>(bytes, 1) + 4095) / 4096 * 4096;
    return a;
  }

 private:
  std::uint64_t next_ = 1 << 20;
};

/// Lane operations per element of a vector op on the FP32 pipe and on the SFU (exp, tanh,
/// rsqrt): what its CUDA kernel computes per element, counted from the formula.
struct VectorCost {
  double fp32 = 1, sfu = 0;
  int inputs = 1;
};
VectorCost vector_cost(LayerOp op) {
  switch (op) {
    case LayerOp::kSoftmax:
      return {4, 1, 1};  // max, subtract, sum, scale; exp
    case LayerOp::kLayerNorm:
      return {6, 0, 1};  // sum, sum of squares, subtract, scale, gamma, beta (rsqrt per row)
    case LayerOp::kRmsNorm:
      return {4, 0, 1};
    case LayerOp::kGelu:
      return {8, 1, 1};  // the tanh approximation's polynomial; tanh
    case LayerOp::kSilu:
      return {3, 1, 1};  // x / (1 + exp(-x))
    case LayerOp::kAdd:
    case LayerOp::kMul:
      return {1, 0, 2};
    default:
      return {1, 0, 1};
  }
}

class Compiler {
 public:
  Compiler(const models::GpuDeviceConfig& d, const GpuMappingOptions& o, std::size_t instance)
      : dev_(d), opt_(o), instance_(instance) {}
  GpuProgram run(const std::vector<Layer>& layers);

 private:
  struct Tensor {
    std::uint64_t addr = 0, bytes = 0;
  };
  Tensor input_of(size_t i, std::uint64_t bytes);
  /// A layer's weights: instance 0's addresses; for a repeated layer, each other instance's
  /// copy lies kInstanceStride x (instance mod repeat) above them, where nothing else is.
  std::uint64_t weights(const Layer& l, std::uint64_t bytes);
  void gemm_layer(size_t i, const Layer& l);
  void conv_layer(size_t i, const Layer& l);
  /// A convolution's mapping options: its kernel family and tap structure (C: padded channels).
  GpuMappingOptions implicit_gemm_options(const ConvShape& s, std::int64_t c) const;
  void attention_layer(size_t i, const Layer& l);
  /// One FlashAttention kernel reading Q, K, V at q, k, v.
  void flash_kernel(size_t i, const Layer& l, std::uint64_t q, std::uint64_t k, std::uint64_t v);
  void vector_layer(size_t i, const Layer& l);
  /// A GEMM kernel; `batch` copies of the same GEMM side by side (strided batched), each
  /// with its own B every `b_group` batch entries.
  /// `options`: the mapping options of this kernel (nullptr: the run's).
  size_t gemm_kernel(size_t i, const std::string& name, const Layer& g, models::GemmAddressing a,
                     std::int64_t batch = 1, std::int64_t b_group = 1,
                     const GpuMappingOptions* options = nullptr);
  void stream_kernel(size_t i, const std::string& name, const std::vector<Tensor>& in, Tensor out,
                     std::uint64_t elements, double fp32, double sfu);
  void finish_layer(size_t i, const Layer& l);

  const models::GpuDeviceConfig& dev_;
  GpuMappingOptions opt_;
  std::size_t instance_;
  Heap heap_;
  GpuProgram p_;
  std::vector<std::vector<size_t>> producers_;
  std::vector<Tensor> outputs_;
};

Compiler::Tensor Compiler::input_of(size_t i, std::uint64_t bytes) {
  for (size_t p : producers_[i])
    if (p != kFromInput && outputs_[p].bytes > 0) return outputs_[p];
  return {heap_.alloc(bytes), bytes};
}

std::uint64_t Compiler::weights(const Layer& l, std::uint64_t bytes) {
  const std::uint64_t a = heap_.alloc(bytes);
  const auto copy = l.repeat > 1 ? instance_ % static_cast<std::uint64_t>(l.repeat) : 0;
  return a + copy * kInstanceStride;
}

size_t Compiler::gemm_kernel(size_t i, const std::string& name, const Layer& g,
                             models::GemmAddressing a, std::int64_t batch, std::int64_t b_group,
                             const GpuMappingOptions* options) {
  GpuKernel k;
  k.name = name;
  k.layer = i;
  k.kind = GpuKernel::Kind::kGemm;
  GpuMappingOptions o = options ? *options : opt_;
  if (batch > 1) {  // the batch fills the machine
    o.split_k = false;
    o.split_k_slices = std::min<std::int64_t>(o.split_k_slices, 1);
  }
  k.gemm = map_gpu_gemm(dev_, g, o);
  k.setup = o.implicit_gemm ? dev_.implicit_gemm_setup : dev_.gemm_setup;
  const auto one = gpu_cta_works(k.gemm);
  const std::int64_t rows = k.gemm.m;
  for (std::int64_t b = 0; b < batch; ++b)
    for (CtaWork w : one) {
      w.id = static_cast<std::int64_t>(k.works.size());
      w.m0 += b * rows;
      k.works.push_back(w);
    }
  k.launch.tile = k.gemm.tile;
  k.launch.max_resident = k.gemm.ctas_per_sm;
  k.launch.per_sm.assign(static_cast<size_t>(dev_.sms), {});
  for (const auto& w : k.works) k.launch.per_sm[static_cast<size_t>(w.id % dev_.sms)].push_back(w);
  if (k.gemm.split_k > 1) {  // fp32 partials, one M x N slab per K slice, in a workspace
    a.k_slice = k.gemm.k_slice;
    a.c_row = u(g.n) * 4;
    a.c_split = u(rows) * a.c_row * u(batch);
  }
  a.batch_rows = batch > 1 ? rows : 0;
  a.b_group = b_group;
  k.addr = std::move(a);
  k.flops = 2 * static_cast<std::uint64_t>(batch) * u(g.m) * u(g.n) * u(g.k) * u(g.batch);
  const std::uint64_t c_out = k.addr.c;
  const std::int64_t split = k.gemm.split_k;
  const std::uint64_t outputs = static_cast<std::uint64_t>(batch) * u(rows) * u(g.n);
  if (split > 1) k.addr.c = heap_.alloc(u(split) * outputs * 4);  // the partials' workspace
  const std::uint64_t ws = k.addr.c;
  p_.kernels.push_back(std::move(k));
  p_.layers[i].kernels.push_back(p_.kernels.size() - 1);
  const size_t at = p_.kernels.size() - 1;
  if (split > 1) {  // cuBLAS's separate reduction of the fp32 partials into C
    const std::uint64_t e = dtype_bytes(g.dtype);
    stream_kernel(i, name + ".splitk_reduce", {{ws, u(split) * outputs * 4}}, {c_out, outputs * e},
                  outputs, static_cast<double>(split), 0);
  }
  return at;
}

void Compiler::stream_kernel(size_t i, const std::string& name, const std::vector<Tensor>& in,
                             Tensor out, std::uint64_t elements, double fp32, double sfu) {
  GpuKernel k;
  k.name = name;
  k.layer = i;
  k.kind = GpuKernel::Kind::kStream;
  const auto sms = static_cast<std::uint64_t>(dev_.sms);
  k.stream.per_sm.assign(sms, {});
  // Each SM streams a contiguous share of every tensor in chunks of ~64 KiB of its output.
  const std::uint64_t share = (elements + sms - 1) / sms;
  const std::uint64_t chunk_elems =
      std::max<std::uint64_t>(1, 65536 * elements / std::max<std::uint64_t>(out.bytes, 1));
  auto part = [&](const Tensor& t, std::uint64_t e0, std::uint64_t n) {
    const double per = static_cast<double>(t.bytes) / static_cast<double>(elements);
    const auto a = static_cast<std::uint64_t>(static_cast<double>(e0) * per);
    const auto b = static_cast<std::uint64_t>(static_cast<double>(e0 + n) * per);
    return DmaDescriptor::linear(t.addr + a, b - a);
  };
  const double lanes = static_cast<double>(dev_.gpu_sm.fp32_lanes);
  const double sfus = static_cast<double>(dev_.gpu_sm.sfu_lanes);
  for (std::uint64_t s = 0; s < sms; ++s) {
    const std::uint64_t e0 = s * share, e1 = std::min(elements, e0 + share);
    for (std::uint64_t e = e0; e < e1; e += chunk_elems) {
      const std::uint64_t n = std::min(chunk_elems, e1 - e);
      models::StreamChunk c;
      for (const auto& t : in) c.reads.push_back(part(t, e, n));
      c.writes.push_back(part(out, e, n));
      c.compute_cycles = static_cast<std::uint64_t>(
          std::ceil(static_cast<double>(n) * (fp32 / lanes + (sfus > 0 ? sfu / sfus : 0))));
      k.stream.per_sm[s].push_back(std::move(c));
    }
  }
  k.flops = static_cast<std::uint64_t>(static_cast<double>(elements) * (fp32 + sfu));
  for (const auto& t : in) k.compulsory_bytes += t.bytes;
  k.compulsory_bytes += out.bytes;
  p_.kernels.push_back(std::move(k));
  p_.layers[i].kernels.push_back(p_.kernels.size() - 1);
}

models::GemmAddressing dense(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t k,
                             std::int64_t n, std::uint64_t e, std::uint64_t oe) {
  models::GemmAddressing x;
  x.a = a;
  x.b = b;
  x.c = c;
  x.elem = e;
  x.a_row = u(k) * e;
  x.b_row = u(k) * e;
  x.c_row = u(n) * oe;
  x.a_k = [e](std::int64_t kk) { return u(kk) * e; };
  return x;
}

void Compiler::gemm_layer(size_t i, const Layer& l) {
  const std::uint64_t e = dtype_bytes(l.dtype);
  const std::int64_t m = l.rows();
  const Tensor a = input_of(i, u(m) * u(l.k) * e);
  const Tensor b{weights(l, u(l.n) * u(l.k) * e), u(l.n) * u(l.k) * e};
  const Tensor c{heap_.alloc(u(m) * u(l.n) * e), u(m) * u(l.n) * e};
  Layer g = l;
  g.batch = 1;
  g.m = m;
  gemm_kernel(i, l.name, g, dense(a.addr, b.addr, c.addr, l.k, l.n, e, e));
  if (l.op == LayerOp::kLstm) {  // the cell's nonlinearities: read gates and c, write h and c
    const std::uint64_t h = u(m) * u(l.hidden());
    stream_kernel(i, l.name + ".cell", {c, {heap_.alloc(h * e), h * e}},
                  {heap_.alloc(2 * h * e), 2 * h * e}, h, 6, 5);
  }
  outputs_[i] = c;
}

GpuMappingOptions Compiler::implicit_gemm_options(const ConvShape& s, std::int64_t c) const {
  // The kernels cuDNN ran (tests/validation/gpu/data/*_networks_run1.csv, `kernels`: ResNet-50's
  // 116 convolution layers at batch 1 and 8 on the H100 and H200, picked by
  // torch.backends.cudnn.benchmark, which times cuDNN's alternatives and keeps the fastest,
  // measure/networks.py) include no split-K reduction for any layer. A filter wider than 1x1 or
  // a stride makes the GEMM implicit: every such layer ran an implicit-GEMM fprop kernel
  // (`sm90_xmma_fprop_implicit_gemm_..._tilesize64x64x64_warpgroupsize1x1x1`,
  // `sm80_xmma_fprop_implicit_gemm_..._tilesize64x32x64_stage5`, `cutlass_tensorop_bf16_
  // s16816fprop_optimized_bf16_64x64_64x5`), never cuBLAS's swapped-operand skinny tiles, which
  // 1x1 stride-1 convolutions (plain GEMMs over NHWC) did run (`nvjet_sm90_tst_64x8_64x16`).
  GpuMappingOptions o = opt_;
  o.split_k = false;
  o.implicit_gemm = s.r * s.s > 1 || s.stride > 1;
  if (o.implicit_gemm) o.conv_taps = s.r * s.s, o.conv_channels = c;
  return o;
}

void Compiler::conv_layer(size_t i, const Layer& l) {
  const ConvShape& s = l.conv;
  const std::uint64_t e = dtype_bytes(l.dtype);
  const std::int64_t m = s.n * s.p() * s.q(), kk = s.r * s.s * (s.c / s.groups);
  const Tensor in = input_of(i, u(s.n * s.h * s.w * s.c) * e);
  const Tensor out{heap_.alloc(u(m * s.k) * e), u(m * s.k) * e};
  if (s.groups != 1) {
    if (s.groups != s.c || s.groups != s.k)
      throw WorkloadError(fmt::format(
          "{}: layer '{}': grouped convolution with {} groups of {} channels has no GPU kernel "
          "mapping (supported: groups 1, or depthwise with groups = C = K)",
          l.origin.str(), l.name, s.groups, s.c / s.groups));
    // Depthwise: a memory-bound kernel, R x S multiply-adds per output element.
    stream_kernel(i, l.name, {in, {weights(l, u(s.k * s.r * s.s) * e), u(s.k * s.r * s.s) * e}},
                  out, u(m * s.k), 2.0 * static_cast<double>(s.r * s.s), 0);
    outputs_[i] = out;
    return;
  }
  // Channels that are not whole 16-byte vectors (C = 3 at 2 bytes) are padded first, as cuDNN
  // does: a memset and nhwcAddPaddingKernel write the image with C padded to 8, then an
  // `_nhwc_align8` implicit-GEMM kernel runs over it (kernel names in tests/validation/gpu/data/
  // *_networks_run1.csv, conv1 at batch 8). The GEMM's K is R x S x C_padded and its loads carry
  // the zero channels.
  const std::int64_t c = gpu_conv_padded_channels(s.c, e), k_pad = s.r * s.s * c;
  Tensor src = in;
  if (c != s.c) {
    const std::uint64_t pixels = u(s.n * s.h * s.w), padded = pixels * u(c) * e;
    src = {heap_.alloc(padded), padded};
    // ASSUMPTION: the memset clears the padded image (its size is not in the kernel names).
    stream_kernel(i, l.name + ".pad_memset", {}, src, pixels * u(c), 0, 0);
    // One store per padded element, one load per real one (a copy: vector_cost's default).
    stream_kernel(i, l.name + ".pad", {in}, src, pixels * u(c), 1, 0);
  }
  Layer g = l;
  g.op = LayerOp::kGemm;
  g.batch = 1;
  g.m = m;
  g.n = s.k;
  g.k = k_pad;
  GpuMappingOptions o = implicit_gemm_options(s, c);
  o.conv_image_bytes = static_cast<std::int64_t>(u(s.n * s.h * s.w * c) * e);
  // A k-tile that cannot span two taps (gpu_implicit_gemm_k): K runs over taps of cb channels,
  // the last k-tile of each tap partly masked. The kernel is mapped once with that cost, then
  // lowered with its padded K and that tile fixed (re-mapped without the cost, a 64-deep
  // k-tile would win ties it loses with it).
  std::int64_t cb = c;
  if (o.conv_taps > 1) {
    const GpuGemmMapping first = map_gpu_gemm(dev_, g, o);
    const std::int64_t k_eff = gpu_implicit_gemm_k(o, g.k, first.tile.bk);
    cb = k_eff / o.conv_taps;
    g.k = k_eff;
    o.tile_m = first.tile.bm, o.tile_n = first.tile.bn, o.tile_k = first.tile.bk;
    o.warps_m = first.tile.warps_m, o.warps_n = first.tile.warps_n;
    o.stages = first.tile.stages;
    o.conv_taps = 0;  // K is now the padded one
  }
  models::GemmAddressing a =
      dense(src.addr, weights(l, u(s.k * g.k) * e), out.addr, g.k, s.k, e, e);
  // Implicit GEMM over the NHWC image: output pixel m reads its window; along a row of output
  // pixels the window moves by stride x C elements, and column kk = (r, s, c) of A is tap
  // (r, s)'s channel c. (A k-tile wider than one tap's C is read as one run from its first
  // tap: for C = 8 and S = 7 its last tap is the row's next pixel rather than the next filter
  // row's first, the same bytes and nearly the same lines. The masked channels c..cb-1 of a
  // padded tap are read as the next pixel's first ones: bytes the GPU predicates off.)
  a.a_row = u(s.stride * c) * e;
  const std::int64_t w = s.w, S = s.s, dil = s.dilation;
  a.a_k = [=](std::int64_t k) {
    const std::int64_t tap = k / cb, ch = k % cb;
    return (u((tap / S) * dil * w + (tap % S) * dil) * u(c) + u(ch)) * e;
  };
  const size_t at = gemm_kernel(i, l.name, g, std::move(a), 1, 1, &o);
  // Useful work only: the padded channels' products are zeros.
  p_.kernels[at].flops = 2 * u(m) * u(s.k) * u(kk);
  outputs_[i] = out;
}

void Compiler::attention_layer(size_t i, const Layer& l) {
  const AttentionShape& s = l.attn;
  const std::uint64_t e = dtype_bytes(l.dtype);
  const std::int64_t bh = s.batch * s.heads, bkv = s.batch * s.kv_heads;
  const std::uint64_t q_bytes = u(bh * s.seq_q * s.head_dim) * e;
  const std::uint64_t kv_bytes = u(bkv * s.seq_kv * s.head_dim) * e;
  const Tensor in = input_of(i, q_bytes + 2 * kv_bytes);
  const std::uint64_t q = in.addr, k = q + q_bytes, v = k + kv_bytes;
  if (opt_.attention == GpuMappingOptions::Attention::kFlash) {
    flash_kernel(i, l, q, k, v);
    return;
  }
  const std::uint64_t s_bytes = u(bh * s.seq_q * s.seq_kv) * e;
  const Tensor scores{heap_.alloc(s_bytes), s_bytes}, probs{heap_.alloc(s_bytes), s_bytes};
  const Tensor out{heap_.alloc(q_bytes), q_bytes};
  // QK^T per head: M = seq_q, N = seq_kv, K = head_dim; the group's heads share one K.
  Layer qk = l;
  qk.op = LayerOp::kGemm;
  qk.batch = 1;
  qk.m = s.seq_q;
  qk.n = s.seq_kv;
  qk.k = s.head_dim;
  models::GemmAddressing a1 = dense(q, k, scores.addr, s.head_dim, s.seq_kv, e, e);
  a1.b_batch = u(s.seq_kv * s.head_dim) * e;
  gemm_kernel(i, l.name + ".qk", qk, std::move(a1), bh, s.group());
  stream_kernel(i, l.name + ".softmax", {scores}, probs, u(bh * s.seq_q * s.seq_kv), 4, 1);
  // PV per head: M = seq_q, N = head_dim, K = seq_kv; V read as N x K (transposed).
  Layer pv = qk;
  pv.n = s.head_dim;
  pv.k = s.seq_kv;
  models::GemmAddressing a2 = dense(probs.addr, v, out.addr, s.seq_kv, s.head_dim, e, e);
  a2.b_batch = u(s.seq_kv * s.head_dim) * e;
  gemm_kernel(i, l.name + ".pv", pv, std::move(a2), bh, s.group());
  outputs_[i] = out;
}

void Compiler::flash_kernel(size_t i, const Layer& l, std::uint64_t q, std::uint64_t k,
                            std::uint64_t v) {
  const AttentionShape& s = l.attn;
  GpuKernel kn;
  kn.name = l.name;
  kn.layer = i;
  kn.kind = GpuKernel::Kind::kAttention;
  GpuAttentionOptions o;
  o.force_fa2 = opt_.force_fa2;
  o.fa2_fast_math = opt_.fa2_fast_math;
  kn.flash = map_gpu_attention(dev_, l, o);
  kn.flash_launch = gpu_attention_launch(kn.flash, static_cast<int>(dev_.sms));
  // Addresses follow the shape the kernel runs (a decode step's packed query heads are the
  // same contiguous rows of Q and O).
  const AttentionShape& ks = kn.flash.shape;
  const std::uint64_t rows = u(ks.batch * ks.heads * ks.seq_q);
  const std::uint64_t e = dtype_bytes(l.dtype);
  const std::int64_t splits = kn.flash.splits;
  const auto oe = u(kn.flash.tile.out_bytes);
  const Tensor out{heap_.alloc(rows * u(s.head_dim) * e), rows * u(s.head_dim) * e};
  models::FlashAddressing& a = kn.flash_addr;
  a.q = q;
  a.k = k;
  a.v = v;
  // Split-KV: the splits' fp32 partial O and LSE slabs in a workspace; else O itself.
  a.o = splits > 1 ? heap_.alloc(u(splits) * rows * u(s.head_dim) * oe) : out.addr;
  a.lse = heap_.alloc(u(splits) * rows * 4);
  a.rows = static_cast<std::int64_t>(rows);
  a.seq_q = ks.seq_q;
  a.seq_kv = ks.seq_kv;
  a.head_dim = ks.head_dim;
  a.group = ks.group();
  a.elem = e;
  a.out_elem = oe;
  kn.flops = static_cast<std::uint64_t>(kn.flash.bounds.flops);
  kn.compulsory_bytes = kn.flash.bounds.compulsory_bytes;
  const Tensor partials{a.o, u(splits) * rows * u(s.head_dim) * oe};
  const Tensor lse{a.lse, u(splits) * rows * 4};
  p_.kernels.push_back(std::move(kn));
  p_.layers[i].kernels.push_back(p_.kernels.size() - 1);
  // FlashAttention's split-KV combine kernel (flash_fwd_splitkv_combine_kernel): per output
  // element, the splits' partials rescaled by exp(lse_s - lse) and summed.
  if (splits > 1)
    stream_kernel(i, l.name + ".splitkv_combine", {partials, lse}, out, rows * u(s.head_dim),
                  2.0 * static_cast<double>(splits), 0);
  outputs_[i] = out;
}

void Compiler::vector_layer(size_t i, const Layer& l) {
  const std::uint64_t e = dtype_bytes(l.dtype);
  const std::uint64_t n = l.elements();
  const VectorCost c = vector_cost(l.op);
  std::vector<Tensor> in;
  in.push_back(input_of(i, n * e));
  if (c.inputs > 1) {  // the second operand: another producer's output, or a new tensor
    Tensor second{0, 0};
    for (size_t p : producers_[i])
      if (p != kFromInput && outputs_[p].addr != in[0].addr) second = outputs_[p];
    if (second.bytes == 0) second = {heap_.alloc(n * e), n * e};
    in.push_back(second);
  }
  const Tensor out{heap_.alloc(n * e), n * e};
  stream_kernel(i, l.name, in, out, n, c.fp32, c.sfu);
  outputs_[i] = out;
}

void Compiler::finish_layer(size_t i, const Layer& l) {
  GpuLayerPlan& lp = p_.layers[i];
  const std::uint64_t e = dtype_bytes(l.dtype);
  lp.macs = l.macs();
  for (size_t k : lp.kernels) {
    lp.flops += p_.kernels[k].flops;
    if (p_.kernels[k].kind == GpuKernel::Kind::kAttention && lp.tile.empty()) {
      lp.tile = p_.kernels[k].flash.tile_text();
      lp.why = p_.kernels[k].flash.why;
    }
    if (p_.kernels[k].kind == GpuKernel::Kind::kGemm) {
      const auto& g = p_.kernels[k].gemm;
      if (lp.tile.empty()) {
        lp.tile = g.tile_text();
        lp.why = g.why;
      }
    }
  }
  if (l.op == LayerOp::kAttention) {
    const AttentionShape& s = l.attn;
    lp.compulsory_bytes =
        u(s.batch * (2 * s.heads * s.seq_q + 2 * s.kv_heads * s.seq_kv) * s.head_dim) * e;
  } else if (l.op == LayerOp::kConv2d) {
    const ConvShape& s = l.conv;
    lp.compulsory_bytes = (u(s.n * s.h * s.w * s.c) + u(s.k * s.r * s.s * s.c / s.groups) +
                           u(s.n * s.p() * s.q() * s.k)) *
                          e;
  } else if (l.macs() > 0) {
    lp.compulsory_bytes = (u(l.rows() * l.k) + u(l.k * l.n) + u(l.rows() * l.out_cols())) * e;
  } else {
    for (size_t k : lp.kernels) lp.compulsory_bytes += p_.kernels[k].compulsory_bytes;
  }
  const models::TcType t =
      l.macs() > 0 && l.op != LayerOp::kAttention ? gpu_tc_type(l) : models::TcType::kBf16;
  const double peak = static_cast<double>(dev_.sms * dev_.gpu_sm.tc_rate(t));
  lp.compute_bound_cycles = peak > 0 ? static_cast<double>(lp.macs) / peak : 0;
  lp.hbm_bound_cycles = static_cast<double>(lp.compulsory_bytes) / dev_.hbm_bytes_per_cycle();
  if (lp.tile.empty()) lp.tile = "stream";
}

GpuProgram Compiler::run(const std::vector<Layer>& layers) {
  producers_ = producers(layers);
  outputs_.assign(layers.size(), {});
  p_.layers.resize(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    if (is_collective_op(l.op))
      throw WorkloadError(fmt::format(
          "layer '{}': a collective ({}) needs a multi-device system; one GPU has no peers", l.name,
          layer_op_name(l.op)));
    p_.layers[i].layer = l;
    switch (l.op) {
      case LayerOp::kGemm:
      case LayerOp::kLstm:
        gemm_layer(i, l);
        break;
      case LayerOp::kConv2d:
        conv_layer(i, l);
        break;
      case LayerOp::kAttention:
        attention_layer(i, l);
        break;
      default:
        vector_layer(i, l);
    }
    finish_layer(i, l);
  }
  return std::move(p_);
}

}  // namespace

std::int64_t gpu_conv_padded_channels(std::int64_t c, std::uint64_t elem_bytes) {
  const auto vec = static_cast<std::int64_t>(std::max<std::uint64_t>(1, kVectorBytes / elem_bytes));
  return (c + vec - 1) / vec * vec;
}

GpuProgram compile_gpu(const models::GpuDeviceConfig& device, const std::vector<Layer>& layers,
                       const GpuMappingOptions& options, std::size_t instance) {
  return Compiler(device, options, instance).run(layers);
}

std::string describe_gpu_program(const models::GpuDeviceConfig& device, const GpuProgram& p) {
  std::string out;
  for (const auto& lp : p.layers) {
    out += fmt::format("{} ({} {}, x{}): compute bound {:.0f} cycles, HBM bound {:.0f} cycles\n",
                       lp.layer.name, layer_op_name(lp.layer.op), lp.layer.shape(), lp.layer.repeat,
                       lp.compute_bound_cycles, lp.hbm_bound_cycles);
    for (size_t k : lp.kernels) {
      const GpuKernel& kn = p.kernels[k];
      if (kn.kind == GpuKernel::Kind::kGemm)
        out += fmt::format(
            "  kernel {}: GEMM {}x{}x{} tile {}, {} CTAs on {} SMs, estimate "
            "{:.0f} cycles\n    {}\n",
            kn.name, kn.gemm.m, kn.gemm.n, kn.gemm.k, kn.gemm.tile_text(), kn.works.size(),
            device.sms, kn.gemm.estimated_cycles, kn.gemm.why);
      else if (kn.kind == GpuKernel::Kind::kAttention)
        out += fmt::format(
            "  kernel {}: FlashAttention {}, {} tiles on {} SMs, estimate {:.0f} cycles\n    {}\n",
            kn.name, kn.flash.tile_text(), kn.flash_launch.ctas.size(), device.sms,
            kn.flash.estimated_cycles, kn.flash.why);
      else
        out +=
            fmt::format("  kernel {}: streaming, {} B compulsory\n", kn.name, kn.compulsory_bytes);
    }
  }
  return out;
}

}  // namespace systole::workloads
