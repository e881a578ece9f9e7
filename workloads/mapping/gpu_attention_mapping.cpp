#include "workloads/mapping/gpu_attention_mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "workloads/mapping/gpu_gemm_mapping.h"

namespace systole::workloads {

using models::FlashTile;
using models::FlashVersion;
using models::GpuArch;
using models::TcType;

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// ASSUMPTION (40-64): registers beside the O and S accumulators and a k-step of Q/K fragments
/// (addresses, row max/sum, loop state) in FA-2's main loop; with the accumulators it gives the
/// 255-register kernels FA-2's hdim 64-256 builds are (its tiles keep O, S and P in registers).
constexpr std::int64_t kFa2RegOverhead = 40;

/// FA-2's tile by head dimension (csrc/flash_attn/src/flash_fwd_launch_template.h,
/// run_mha_fwd_hdim*; no dropout; sm80 and sm90 take the same branches):
/// {block_m, block_n, warps}.
std::tuple<std::int64_t, std::int64_t, std::int64_t> fa2_tile(const models::GpuSmConfig& sm,
                                                              std::int64_t d) {
  if (d <= 64) return {128, 128, 4};
  if (d <= 128) return {128, 64, 4};  // hdim 96 and 128
  if (d <= 192) return {128, 64, 8};
  // hdim 256: 128x64 with 8 warps when one block may hold it but two 64x64 CTAs would not fit.
  const auto block = static_cast<std::int64_t>(sm.smem_per_block.value());
  const auto per_sm = static_cast<std::int64_t>(sm.smem_per_sm.value());
  const std::int64_t e = 2;
  if (block >= e * d * (128 + 2 * 64) && per_sm < 2 * e * d * (64 + 2 * 64)) return {128, 64, 8};
  return {64, 64, 4};
}

/// FA-3's tile by head dimension (hopper/tile_size.h, tile_size_fwd_sm90; no paging, softcap
/// or local window): {block_m, block_n}.
std::pair<std::int64_t, std::int64_t> fa3_tile(std::int64_t d, bool causal, bool fp8) {
  if (!fp8) {
    if (d <= 64) return {192, causal ? 128 : 192};
    if (d <= 96) return {192, 144};
    if (d <= 128) return {128, causal ? 128 : 176};
    if (d <= 192) return {128, 128};
    return {128, 80};
  }
  if (d <= 64) return {192, 160};
  if (d <= 96) return {192, 128};
  if (d <= 128) return {128, 224};
  if (d <= 192) return {128, 160};
  return {128, 128};
}

/// The head dimension a kernel is instantiated for: FA-2 rounds up to 32 (to 64 above 128),
/// FA-3 builds 64, 96, 128, 192 and 256.
std::int64_t kernel_head_dim(std::int64_t d, bool fa3) {
  if (!fa3) return d <= 128 ? ceil_div(d, 32) * 32 : ceil_div(d, 64) * 64;
  for (const std::int64_t k : {64, 96, 128, 192, 256})
    if (d <= k) return k;
  return d;
}

std::int64_t fa2_regs(std::int64_t block_m, std::int64_t block_n, std::int64_t d,
                      std::int64_t warps) {
  const std::int64_t rows = block_m / warps;
  const std::int64_t acc = rows * (d + block_n) / 32;
  const std::int64_t frags = 2 * ((rows / 16) * 4 + (block_n / 8) * 2);
  return std::min<std::int64_t>(255, (acc + frags + kFa2RegOverhead + 7) / 8 * 8);
}

[[noreturn]] void reject(const Layer& l, const std::string& why) {
  throw WorkloadError(fmt::format("{}: layer '{}': {}", l.origin.str(), l.name, why));
}

void check_layer(const models::GpuDeviceConfig& d, const Layer& l, TcType type, bool fa3) {
  const AttentionShape& a = l.attn;
  if (l.op != LayerOp::kAttention) reject(l, "not an attention layer");
  if (a.batch < 1 || a.heads < 1 || a.kv_heads < 1 || a.seq_q < 1 || a.seq_kv < 1 || a.head_dim < 1)
    reject(l, fmt::format("empty attention {}", l.shape()));
  if (a.heads % a.kv_heads != 0)
    reject(l, fmt::format("{} query heads do not share {} K/V heads evenly", a.heads, a.kv_heads));
  if (a.head_dim > 256)
    reject(l, fmt::format("head_dim {} exceeds FlashAttention's largest (256): split the head or "
                          "map it unfused",
                          a.head_dim));
  if (d.gpu_sm.tc_rate(type) == 0)
    reject(l, fmt::format("the {} SM has no {} tensor-core path{}",
                          models::gpu_arch_name(d.gpu_sm.arch), models::tc_type_name(type),
                          type == TcType::kFp8E4M3 || type == TcType::kFp8E5M2
                              ? ": fp8 needs an H100-class (hopper) device"
                              : ""));
  const bool sixteen = type == TcType::kBf16 || type == TcType::kFp16;
  if (!sixteen && !(fa3 && type == TcType::kFp8E4M3))
    reject(l,
           fmt::format("{} FlashAttention runs bf16/fp16{}, not {}", fa3 ? "the FA-3" : "the FA-2",
                       fa3 ? " and fp8 e4m3" : "", models::tc_type_name(type)));
}

FlashTile choose_tile(const models::GpuDeviceConfig& d, const Layer& l, TcType type, bool fa3) {
  FlashTile t;
  t.in_type = type;
  t.out_bytes = type == TcType::kFp8E4M3 ? 2 : models::tc_type_bytes(type);  // fp8 writes bf16
  t.head_dim = kernel_head_dim(l.attn.head_dim, fa3);
  if (fa3) {
    t.version = FlashVersion::kFa3;
    std::tie(t.block_m, t.block_n) =
        fa3_tile(t.head_dim, l.attn.causal, type != TcType::kBf16 && type != TcType::kFp16);
    t.stages = 2;  // hopper/flash_fwd_launch_template.h: kStages = 2 on sm90
    // The scheduler barrier (ping-pong) of the sm90 mainloop: two or more warpgroups, head dim
    // up to 128 for 16-bit types (at least 128 for fp8).
    t.pingpong = type == TcType::kFp8E4M3 ? t.head_dim >= 128 : t.head_dim <= 128;
  } else {
    t.version = FlashVersion::kFa2;
    std::tie(t.block_m, t.block_n, t.warps) = fa2_tile(d.gpu_sm, t.head_dim);
    t.regs_per_thread = fa2_regs(t.block_m, t.block_n, t.head_dim, t.warps);
  }
  return t;
}

/// The shape the kernel runs. One query token per sequence (a decode step) sees every key under
/// a bottom-right causal mask, so it runs unmasked; with grouped-query heads, a K/V head's
/// `group` query heads attend the same keys and run as one tile's rows (FlashAttention-2
/// csrc/flash_attn/flash_api.cpp, mha_fwd: seqlenq_ngroups_swapped; FA-3: PackGQA): heads =
/// K/V heads, seq_q = group. Q's rows of one K/V head are contiguous either way.
AttentionShape kernel_shape(const AttentionShape& a, bool* packed) {
  AttentionShape k = a;
  *packed = false;
  if (a.seq_q != 1) return k;
  k.causal = false;
  if (a.group() > 1) {
    k.seq_q = a.group();
    k.heads = a.kv_heads;
    *packed = true;
  }
  return k;
}

/// FlashAttention's split-KV heuristic (FlashAttention-2 csrc/flash_attn/flash_api.cpp,
/// num_splits_heuristic; FA-3 keeps its shape): no split once the query tiles fill 80% of the
/// SM slots; else the fewest splits whose wave efficiency (tiles x splits / slots over its
/// ceiling) is within 85% of the best over 1 .. min(128, slots, K/V blocks) splits, skipping
/// counts that leave as many blocks per split as one split fewer.
std::int64_t num_splits(std::int64_t tiles, std::int64_t slots, std::int64_t n_blocks) {
  if (static_cast<double>(tiles) >= 0.8 * static_cast<double>(slots)) return 1;
  const std::int64_t most = std::min<std::int64_t>({128, slots, n_blocks});
  auto eligible = [&](std::int64_t s) {
    return s == 1 || ceil_div(n_blocks, s) != ceil_div(n_blocks, s - 1);
  };
  std::vector<double> eff(static_cast<size_t>(most + 1), 0.0);
  double best = 0;
  for (std::int64_t s = 1; s <= most; ++s) {
    if (!eligible(s)) continue;
    const double waves = static_cast<double>(tiles * s) / static_cast<double>(slots);
    eff[static_cast<size_t>(s)] = waves / std::ceil(waves);
    best = std::max(best, eff[static_cast<size_t>(s)]);
  }
  for (std::int64_t s = 1; s <= most; ++s)
    if (eligible(s) && eff[static_cast<size_t>(s)] >= 0.85 * best) return s;
  return 1;
}

/// HBM bytes: Q read and O written once; K and V of a (batch, K/V head) once when the heads in
/// flight keep theirs in one L2 partition's share, else once per query tile (and per query head
/// of a GQA group). Causal tiles read only the blocks they visit.
std::uint64_t hbm_bytes(const models::GpuDeviceConfig& d, const GpuAttentionMapping& m) {
  const AttentionShape& a = m.shape;
  const double e = static_cast<double>(models::tc_type_bytes(m.tile.in_type));
  const double q = static_cast<double>(a.batch * a.heads * a.seq_q * a.head_dim);
  const double kv_head = 2.0 * static_cast<double>(a.seq_kv * a.head_dim) * e;
  const double kv_heads = static_cast<double>(a.batch * a.kv_heads);
  const std::int64_t in_flight =
      std::min(m.tiles, d.sms * m.ctas_per_sm) / std::max<std::int64_t>(1, m.m_blocks) + 1;
  const double l2 =
      static_cast<double>(d.l2.capacity.value()) / static_cast<double>(d.l2.partitions);
  const double visited = static_cast<double>(m.block_visits) /
                         static_cast<double>(m.tiles * m.n_blocks);  // causal: about half
  double kv = kv_heads * kv_head;
  if (static_cast<double>(std::min<std::int64_t>(in_flight, a.batch * a.kv_heads)) * kv_head > l2)
    kv *= static_cast<double>(m.m_blocks * a.group()) * visited;
  // Split-KV: every split writes fp32 partial rows and their LSE (the combine kernel reads them).
  const double out =
      q * static_cast<double>(m.tile.out_bytes) * static_cast<double>(m.splits) +
      (m.splits > 1 ? static_cast<double>(a.batch * a.heads * a.seq_q * m.splits) * 4 : 0.0);
  return static_cast<std::uint64_t>(q * e + kv + out);
}

/// Blocks tile m_block visits and how many of them carry the causal (or seq_kv edge) mask.
std::pair<std::int64_t, std::int64_t> visits(const GpuAttentionMapping& m, std::int64_t mb) {
  const AttentionShape& a = m.shape;
  const std::int64_t bm = m.tile.block_m, bn = m.tile.block_n;
  if (!a.causal) return {m.n_blocks, a.seq_kv % bn != 0 ? 1 : 0};
  // Bottom-right aligned: query row r sees keys up to r + seq_kv - seq_q.
  const std::int64_t last_row = std::min((mb + 1) * bm, a.seq_q) - 1 + a.seq_kv - a.seq_q;
  const std::int64_t n = std::clamp<std::int64_t>(ceil_div(last_row + 1, bn), 1, m.n_blocks);
  const std::int64_t first_row = mb * bm + a.seq_kv - a.seq_q;
  // Unmasked blocks end at or before the first row's last key.
  const std::int64_t full = std::clamp<std::int64_t>((first_row + 1) / bn, 0, n);
  return {n, n - full};
}

std::string describe(const GpuAttentionMapping& m, const models::GpuDeviceConfig& d) {
  return fmt::format(
      "{}: {} tiles of {} query rows (batch {} x heads {} x {} row blocks) over {} SMs x {} "
      "CTA(s) ({} bound, {} of shared memory) = {} wave(s){}; {} K/V block visits of {} rows; "
      "HBM {:.1f} MB; estimate {:.1f} us, bound by {}",
      m.tile_text(), m.tiles, m.tile.block_m, m.shape.batch, m.shape.heads, m.m_blocks, d.sms,
      m.ctas_per_sm, models::occupancy_limit_name(m.occupancy.limiter),
      format_quantity(static_cast<double>(m.occupancy.smem_per_cta), Dimension::kBytes), m.waves,
      m.persistent ? " (persistent)" : "", m.block_visits, m.tile.block_n,
      static_cast<double>(m.hbm_bytes) / 1e6, 1e6 * m.estimated_seconds, m.bounds.bound);
}

}  // namespace

std::string GpuAttentionMapping::tile_text() const {
  const bool fa3 = tile.version == FlashVersion::kFa3;
  return fmt::format("{} {}x{} d{} {}{}{}{} {}cta {}w", models::flash_version_name(tile.version),
                     tile.block_m, tile.block_n, tile.head_dim, fa3 ? "wg" : "w",
                     fa3 ? tile.block_m / 64 : tile.warps, fa3 && tile.pingpong ? " pp" : "",
                     tile.fast_math ? " fast-math" : "", ctas_per_sm, waves);
}

GpuAttentionMapping map_gpu_attention(const models::GpuDeviceConfig& d, const Layer& layer,
                                      const GpuAttentionOptions& o) {
  const TcType type = gpu_tc_type(layer);
  const bool fa3 = d.gpu_sm.arch == GpuArch::kHopper && !o.force_fa2;
  check_layer(d, layer, type, fa3);
  GpuAttentionMapping m;
  m.shape = kernel_shape(layer.attn, &m.packed_gqa);
  Layer kernel_layer = layer;
  kernel_layer.attn = m.shape;
  m.tile = choose_tile(d, kernel_layer, type, fa3);
  m.tile.fast_math = !fa3 && o.fa2_fast_math;
  const std::int64_t o_bytes = m.tile.out_bytes;  // O as the layer stores it
  models::FlashShape s;
  try {
    s = models::flash_shape(d.gpu_sm, m.tile);
  } catch (const ConfigError& e) {
    reject(layer, fmt::format("the {} kernel cannot run on this SM: {}", m.tile_text(), e.what()));
  }
  m.occupancy = models::occupancy(d.gpu_sm, s.resources);
  m.ctas_per_sm = m.occupancy.ctas;
  m.persistent = fa3;
  const AttentionShape& a = m.shape;
  m.m_blocks = ceil_div(a.seq_q, m.tile.block_m);
  m.n_blocks = ceil_div(a.seq_kv, m.tile.block_n);
  const std::int64_t query_tiles = a.batch * a.heads * m.m_blocks;
  // Split-KV for decode steps only: PyTorch's attention kernels on our H100 and H200 split a
  // one-token query's keys (a cuDNN lean_reduction_kernel after the flash kernel,
  // tests/validation/gpu/data/*_llm_run1.csv) but ran BERT-large's 64 to 512 prefill tiles
  // unsplit (*_networks_run1.csv), where FlashAttention's own heuristic would split the 64.
  if (layer.attn.seq_q == 1) {
    m.splits = num_splits(query_tiles, d.sms * m.ctas_per_sm, m.n_blocks);
    if (m.splits > 1) m.tile.out_bytes = 4;  // fp32 partial O (and an fp32 LSE per row)
  }
  m.tiles = query_tiles * m.splits;
  for (std::int64_t mb = 0; mb < m.m_blocks; ++mb)
    m.block_visits += a.batch * a.heads * visits(m, mb).first;
  m.waves = ceil_div(m.tiles, d.sms * m.ctas_per_sm);
  m.hbm_bytes = hbm_bytes(d, m);
  const double rate = static_cast<double>(d.gpu_sm.tc_rate(type));
  const double block_cycles =
      2.0 * static_cast<double>(m.tile.block_m * m.tile.block_n * m.tile.head_dim) / rate;
  // The busiest SM: its share of the block visits, at least one tile's worth.
  const double per_sm =
      std::max(std::ceil(static_cast<double>(m.block_visits) / static_cast<double>(d.sms)),
               static_cast<double>(ceil_div(m.n_blocks, m.splits)));
  auto& b = m.bounds;
  const AttentionShape& la = layer.attn;  // FLOPs and compulsory bytes of the layer as written
  b.flops = 4.0 * static_cast<double>(la.batch * la.heads) * static_cast<double>(la.seq_q) *
            static_cast<double>(la.seq_kv) * static_cast<double>(la.head_dim) /
            (a.causal ? 2 : 1);  // a decode step's one query sees every key: not halved
  b.compute_cycles = b.flops / (2.0 * rate * static_cast<double>(d.sms));
  const double e = static_cast<double>(models::tc_type_bytes(type));
  b.compulsory_bytes = static_cast<std::uint64_t>(
      static_cast<double>(a.batch * a.head_dim) *
      (static_cast<double>(a.heads * a.seq_q) * (e + static_cast<double>(o_bytes)) +
       2.0 * static_cast<double>(a.kv_heads * a.seq_kv) * e));
  b.hbm_cycles = static_cast<double>(m.hbm_bytes) / d.hbm_bytes_per_cycle();
  b.roofline_cycles = std::max(b.compute_cycles, b.hbm_cycles);
  b.bound = b.roofline_cycles == b.compute_cycles ? "compute" : "hbm";
  m.estimated_cycles = d.cycles(d.launch_overhead) + std::max(per_sm * block_cycles, b.hbm_cycles);
  m.estimated_seconds = m.estimated_cycles / d.gpu_sm.clock.value();
  const char* reason =
      fa3 ? "FA-3, the sm_90 kernel (TMA loads, async wgmma, warp-specialised ping-pong)"
      : d.gpu_sm.arch == GpuArch::kHopper
          ? "FA-2 on sm_90 as asked (force_fa2: PyTorch's flash backend runs the sm_80 code)"
          : "FA-2, the sm_80 kernel (cp.async, mma.sync; FA-3 needs sm_90)";
  m.why = fmt::format("{}; fused: S and P stay on chip, no seq_q x seq_kv scores in HBM; {}{}{}",
                      reason,
                      m.packed_gqa ? fmt::format("decode with grouped-query heads: each K/V "
                                                 "head's {} query heads packed as one tile's "
                                                 "rows; ",
                                                 layer.attn.group())
                                   : std::string(),
                      m.splits > 1 ? fmt::format("split-KV: {} splits of {} K/V blocks per query "
                                                 "tile (the tiles alone fill {} of {} SM slots), "
                                                 "fp32 partials combined by a second kernel; ",
                                                 m.splits, ceil_div(m.n_blocks, m.splits),
                                                 query_tiles, d.sms * m.ctas_per_sm)
                                   : std::string(),
                      describe(m, d));
  return m;
}

models::FlashLaunch gpu_attention_launch(const GpuAttentionMapping& m, int sms) {
  models::FlashLaunch l;
  l.tile = m.tile;
  l.sms = sms;
  const AttentionShape& a = m.shape;
  l.splits = m.splits;
  const std::int64_t per_split = ceil_div(m.n_blocks, m.splits);
  auto add = [&](std::int64_t bh, std::int64_t mb) {
    models::FlashCtaWork w;
    w.head = bh;
    w.m_block = mb;
    w.q_rows = std::min(m.tile.block_m, a.seq_q - mb * m.tile.block_m);
    const auto [all, edge_masked] = visits(m, mb);
    // Split s takes blocks s x per_split .. (s + 1) x per_split - 1 (FA-2's n_split_idx); only
    // the split holding the last block sees its seq_kv edge.
    for (std::int64_t sp = 0; sp < m.splits && sp * per_split < all; ++sp) {
      w.id = static_cast<std::int64_t>(l.ctas.size());
      w.split = sp;
      w.kv_block0 = sp * per_split;
      w.n_blocks = std::min(per_split, all - w.kv_block0);
      const bool last = w.kv_block0 + w.n_blocks == all;
      w.masked = last ? std::min(w.n_blocks, edge_masked) : 0;
      w.first_rows =
          std::min(m.tile.block_n, a.seq_kv - (w.kv_block0 + w.n_blocks - 1) * m.tile.block_n);
      l.ctas.push_back(w);
    }
  };
  const std::int64_t bhs = a.batch * a.heads;
  if (!(m.persistent && a.causal)) {  // blockIdx order (FA-3: its static persistent scheduler)
    for (std::int64_t bh = 0; bh < bhs; ++bh)
      for (std::int64_t mb = 0; mb < m.m_blocks; ++mb) add(bh, mb);
    return l;
  }
  // FA-3's causal scheduler (hopper/tile_scheduler.hpp, DynamicPersistentTileScheduler): the
  // (batch, head)s in sections whose K and V fit its 32 MiB L2 budget (size_one_kv_head =
  // seq_kv x (d + d_v) x elem x 2; 32 MiB / that, rounded up to a power of two, heads per
  // section, times the GQA group); each section's row blocks from the last (longest) down, its
  // heads fastest.
  const std::int64_t one =
      a.seq_kv * 2 * m.tile.head_dim * models::tc_type_bytes(m.tile.in_type) * 2;
  const std::int64_t l2 = std::int64_t{32} << 20;
  std::int64_t swizzle = 1;
  while (one <= l2 && swizzle < l2 / one) swizzle *= 2;  // cutlass::find_log2 rounds up
  swizzle *= a.group();
  for (std::int64_t hb0 = 0; hb0 < bhs; hb0 += swizzle)
    for (std::int64_t i = 0; i < m.m_blocks; ++i)
      for (std::int64_t bh = hb0; bh < std::min(bhs, hb0 + swizzle); ++bh)
        add(bh, m.m_blocks - 1 - i);
  return l;
}

models::LatencyBandwidthPort gpu_attention_port(const models::GpuDeviceConfig& d,
                                                const GpuAttentionMapping& m,
                                                const models::FlashLaunch& l) {
  const models::FlashShape s = models::flash_shape(d.gpu_sm, l.tile);
  double requested = 0;
  for (const auto& w : l.ctas) {
    requested += static_cast<double>(s.q_bytes(w).value() + s.o_bytes(w).value());
    requested += 2.0 * static_cast<double>(s.kv_bytes(w, 0).value() +
                                           static_cast<std::uint64_t>(w.n_blocks - 1) *
                                               s.kv_bytes(w, 1).value());
  }
  const double scale =
      std::max(1.0, requested / static_cast<double>(std::max<std::uint64_t>(1, m.hbm_bytes)));
  const double shared = std::min(d.l2_bytes_per_cycle(), d.hbm_bytes_per_cycle() * scale);
  const double latency = static_cast<double>(d.l2.hit_latency) +
                         static_cast<double>(d.l2.far_penalty) / 2 + d.cycles(d.hbm.latency);
  return models::LatencyBandwidthPort(static_cast<int>(d.sms),
                                      static_cast<double>(d.l2.port_bandwidth), shared,
                                      static_cast<std::uint64_t>(latency));
}

}  // namespace systole::workloads
