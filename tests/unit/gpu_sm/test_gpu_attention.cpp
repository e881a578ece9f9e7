// FlashAttention forward model (models/gpu_sm/gpu_attention.h): the run never beats the tensor
// peak or the port's bandwidth, the port sees one request per Q tile, K/V block and O store in
// nondecreasing issue order, a warp's softmax does not overlap its own mma.sync, FA-2's softmax
// counts are its SASS's and cost an issue slot each, FA-2's first wave puts one CTA on every SM
// before any gets a second, monotonic in work, SMs, SFU rate and memory latency, bad tiles are
// ConfigErrors with a reason, and a port that answers late (GpuAttentionStepper) gives the
// immediate port's record exactly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <queue>
#include <random>
#include <tuple>

#include "models/gpu_sm/gpu_attention.h"
#include "sim/core/error.h"
#include "tests/unit/gpu_sm/random_gemm.h"

using namespace systole;
using namespace systole::models;

namespace {

/// A port that records what it was asked and answers as LatencyBandwidthPort.
class RecordingPort : public GmemPort {
 public:
  RecordingPort(int sms, double sm_bw, double shared_bw, std::uint64_t lat)
      : inner_(sms, sm_bw, shared_bw, lat) {}
  Cycles complete(const GmemRequest& r) override {
    if (!log.empty()) {
      CHECK(r.issue.value() >= log.back().issue.value());
    }
    log.push_back(r);
    return inner_.complete(r);
  }
  std::vector<GmemRequest> log;

 private:
  LatencyBandwidthPort inner_;
};

FlashTile fa2_tile(std::int64_t d = 128) {
  FlashTile t;
  t.head_dim = d;
  t.block_m = 128;
  t.block_n = d <= 64 ? 128 : 64;
  t.warps = 4;
  return t;
}

FlashTile fa3_tile() {
  FlashTile t;
  t.version = FlashVersion::kFa3;
  t.block_m = 128;
  t.block_n = 176;
  t.stages = 2;
  return t;
}

/// `tiles` full tiles of `n` K/V blocks each.
FlashLaunch launch(const FlashTile& t, int sms, std::int64_t tiles, std::int64_t n,
                   std::int64_t masked = 0) {
  FlashLaunch l;
  l.tile = t;
  l.sms = sms;
  for (std::int64_t i = 0; i < tiles; ++i)
    l.ctas.push_back({i, i, 0, t.block_m, n, masked, t.block_n});
  return l;
}

FlashRun run(const GpuSmConfig& c, const FlashLaunch& l, double bw = 64, std::uint64_t lat = 600,
             RecordingPort* out = nullptr) {
  RecordingPort port(l.sms, bw, 0, lat);
  GpuAttentionModel m(c, port);
  FlashRun r = m.run(l);
  if (out) *out = port;
  return r;
}

double tensor_cycles(const GpuSmConfig& c, const FlashLaunch& l) {
  double fma = 0;
  for (const auto& w : l.ctas)
    fma +=
        2.0 * static_cast<double>(l.tile.block_m * l.tile.block_n * l.tile.head_dim * w.n_blocks);
  return fma / static_cast<double>(c.tc_rate(l.tile.in_type) * l.sms);
}

}  // namespace

TEST_CASE("gpu_attention: runs are no faster than the tensor peak or the port's bandwidth",
          "[unit][gpu_sm][attention]") {
  std::mt19937 rng(11);
  for (int i = 0; i < 40; ++i) {
    const bool fa3 = i % 2 == 1;
    const GpuSmConfig c = fa3 || i % 4 == 2 ? h100_sxm5_sm() : a100_sxm4_sm();
    const FlashTile t = fa3 ? fa3_tile() : fa2_tile(i % 3 == 0 ? 64 : 128);
    const int sms = 1 + static_cast<int>(rng() % 4);
    const auto tiles = static_cast<std::int64_t>(1 + rng() % 12);
    const auto n = static_cast<std::int64_t>(1 + rng() % 16);
    const double bw = 8.0 * static_cast<double>(1 + rng() % 16);
    const FlashLaunch l = launch(t, sms, tiles, n);
    RecordingPort port(sms, bw, 0, 100);
    const FlashRun r = run(c, l, bw, 100 + rng() % 900, &port);
    INFO("case " << i << " fa3 " << fa3 << " sms " << sms << " tiles " << tiles << " n " << n);
    CHECK(static_cast<double>(r.cycles) >= tensor_cycles(c, l));
    // Each SM's bytes pass its own port stage at bw bytes per cycle.
    std::vector<double> bytes(static_cast<size_t>(sms), 0);
    for (const auto& q : port.log)
      bytes[static_cast<size_t>(q.sm)] += static_cast<double>(q.bytes.value());
    for (const double b : bytes) CHECK(static_cast<double>(r.cycles) >= b / bw);
    // One request per Q tile, K_j, V_j and O store.
    CHECK(port.log.size() == static_cast<size_t>(tiles * (2 * n + 2)));
    CHECK(r.ctas.size() == static_cast<size_t>(tiles));
  }
}

TEST_CASE("gpu_attention: FA-2's softmax does not overlap its own warp's mma.sync",
          "[unit][gpu_sm][attention]") {
  // One CTA on one SM: nothing else can fill its tensor pipe, so every block costs at least its
  // mma.sync cycles plus the softmax's SFU cycles.
  const GpuSmConfig c = a100_sxm4_sm();
  const FlashTile t = fa2_tile();
  const FlashShape s = flash_shape(c, t);
  const std::int64_t n = 8;
  const FlashRun r = run(c, launch(t, 1, 1, n), 1024, 10);
  const std::int64_t per_block =
      (s.qk_steps * s.qk_mma + s.pv_steps * s.pv_mma) * s.qk_ii + s.sm_sfu * s.sfu_cycles;
  CHECK(r.cycles >= static_cast<std::uint64_t>(n * per_block));
  // Two CTAs: their warps share a sub-partition's scheduler one section at a time (README rule
  // 2), so neither's softmax hides under the other's mma.sync either; no slower than in turn.
  FlashLaunch two = launch(t, 1, 2, n);
  two.max_resident = 2;
  const auto both = run(c, two, 1024, 10).cycles;
  CHECK(both >= static_cast<std::uint64_t>(2 * n * per_block));
  CHECK(both <= 2 * r.cycles);
}

TEST_CASE("gpu_attention: monotonic in work, SMs, SFU rate and memory latency",
          "[unit][gpu_sm][attention]") {
  for (const bool fa3 : {false, true}) {
    const GpuSmConfig c = fa3 ? h100_sxm5_sm() : a100_sxm4_sm();
    const FlashTile t = fa3 ? fa3_tile() : fa2_tile();
    std::uint64_t prev = 0;
    for (const std::int64_t n : {1, 2, 4, 8, 16, 32}) {
      const auto cyc = run(c, launch(t, 2, 8, n)).cycles;
      CHECK(cyc > prev);
      prev = cyc;
    }
    std::uint64_t prev_sms = ~0ULL;
    for (const int sms : {1, 2, 4, 8}) {
      const auto cyc = run(c, launch(t, sms, 16, 8)).cycles;
      CHECK(cyc <= prev_sms);
      prev_sms = cyc;
    }
    GpuSmConfig slow = c;
    slow.sfu_lanes = c.sfu_lanes / 2;
    CHECK(run(slow, launch(t, 2, 8, 8)).cycles > run(c, launch(t, 2, 8, 8)).cycles);
    CHECK(run(c, launch(t, 2, 8, 8), 64, 2000).cycles >=
          run(c, launch(t, 2, 8, 8), 64, 200).cycles);
    // Masked (causal diagonal) blocks cost more work, never less.
    CHECK(run(c, launch(t, 2, 8, 8, 2)).cycles >= run(c, launch(t, 2, 8, 8, 0)).cycles);
  }
}

TEST_CASE("gpu_attention: FA-2's first wave gives every SM one CTA before any gets a second",
          "[unit][gpu_sm][attention]") {
  // The CTA scheduler sends the next CTA to the SM with the most free resources (README
  // "FlashAttention" rule 7): as many CTAs as SMs run one per SM, as fast as one alone, even
  // where two fit on an SM.
  const GpuSmConfig c = h100_sxm5_sm();
  const FlashTile t = fa2_tile();
  const int sms = 4;
  REQUIRE(flash_resident_ctas(c, launch(t, sms, sms, 8)) == 2);
  const FlashRun r = run(c, launch(t, sms, sms, 8));
  std::vector<int> per_sm(sms, 0);
  for (const auto& rec : r.ctas) ++per_sm[static_cast<size_t>(rec.sm)];
  CHECK(per_sm == std::vector<int>(sms, 1));
  CHECK(r.cycles == run(c, launch(t, 1, 1, 8)).cycles);
  // One CTA more than SMs: the SM holding two is the first, in slot order.
  const FlashRun five = run(c, launch(t, sms, sms + 1, 8));
  CHECK(five.ctas[static_cast<size_t>(sms)].sm == 0);
  CHECK(five.ctas[static_cast<size_t>(sms)].slot == 1);
}

TEST_CASE("gpu_attention: FA-2's softmax counts are the instructions its SASS issues",
          "[unit][gpu_sm][attention]") {
  // Per warp and K/V block of the main loop, counted in the SASS ptxas 13.0 made from
  // flash_fwd_kernel.h (README "FA-2 softmax, counted"): PyTorch's build (UNFUSE_FMA, IEEE
  // exp2f) at d128 (128x64 tile) and d64 (128x128), and the flash-attn package's
  // (--use_fast_math) at d64. FP32 = FMUL + FADD + FFMA; ALU = FSETP + FSEL + F2FP.
  const GpuSmConfig h = h100_sxm5_sm();
  const FlashShape d128 = flash_shape(h, fa2_tile(128));
  CHECK(d128.fa2_max_alu == 72);  // FMNMX
  CHECK(d128.fa2_shfl == 8);
  CHECK(d128.fa2_fp32 == 336 + 128 + 4);
  CHECK(d128.fa2_alu == 72 + 4 + 32);
  CHECK(d128.sm_sfu == 68);  // MUFU.EX2
  const FlashShape d64 = flash_shape(h, fa2_tile(64));
  CHECK(d64.fa2_max_alu == 136);
  CHECK(d64.fa2_fp32 == 464 + 256 + 4);
  CHECK(d64.fa2_alu == 136 + 4 + 64);
  CHECK(d64.sm_sfu == 132);
  FlashTile fm = fa2_tile(64);
  fm.fast_math = true;
  const FlashShape fast = flash_shape(h, fm);
  CHECK(fast.fa2_max_alu == 136);
  CHECK(fast.fa2_fp32 == 72 + 128 + 132);
  CHECK(fast.fa2_alu == 4 + 4 + 64);
  CHECK(fast.sm_sfu == 132);
  // The ALU pipe: 64 lanes per SM on both, so 2 cycles a warp instruction; FP32 1 on H100.
  CHECK(d128.alu_cycles == 2);
  CHECK(d128.fp32_cycles == 1);
  CHECK(flash_shape(a100_sxm4_sm(), fa2_tile(128)).fp32_cycles == 2);
}

TEST_CASE("gpu_attention: FA-2's softmax is bound by one instruction issued per clock",
          "[unit][gpu_sm][attention]") {
  // One CTA on one SM (nothing overlaps its sections): every block costs at least its
  // mma.sync cycles plus the softmax's issue slots (one per instruction), more than its SFU
  // cycles once FP32 and ALU instructions outnumber them (PyTorch's build on H100).
  const GpuSmConfig h = h100_sxm5_sm();
  const FlashTile t = fa2_tile(128);
  const FlashShape s = flash_shape(h, t);
  const std::int64_t issue = s.fa2_max_alu + s.fa2_shfl + s.fa2_fp32 + s.fa2_alu + s.sm_sfu;
  CHECK(issue > s.sm_sfu * s.sfu_cycles);
  const std::int64_t n = 8;
  const std::int64_t per_block = (s.qk_steps * s.qk_mma + s.pv_steps * s.pv_mma) * s.qk_ii + issue;
  CHECK(run(h, launch(t, 1, 1, n), 1024, 10).cycles >= static_cast<std::uint64_t>(n * per_block));
  // The fast-math build issues fewer instructions per score: faster, on both SMs.
  FlashTile fm = t;
  fm.fast_math = true;
  for (const GpuSmConfig& c : {h, a100_sxm4_sm()})
    CHECK(run(c, launch(fm, 2, 8, 8)).cycles < run(c, launch(t, 2, 8, 8)).cycles);
  // Fewer ALU lanes cost FA-2 time; FA-3's softmax (not counted from SASS) ignores them, and
  // the build.
  GpuSmConfig few = h;
  few.alu_lanes = h.alu_lanes / 4;
  CHECK(run(few, launch(t, 2, 8, 8)).cycles > run(h, launch(t, 2, 8, 8)).cycles);
  FlashTile fa3_fm = fa3_tile();
  fa3_fm.fast_math = true;
  const auto fa3 = run(h, launch(fa3_tile(), 2, 8, 8)).cycles;
  CHECK(run(few, launch(fa3_tile(), 2, 8, 8)).cycles == fa3);
  CHECK(run(h, launch(fa3_fm, 2, 8, 8)).cycles == fa3);
}

TEST_CASE("gpu_attention: FA-3's ping-pong and the FA-3 kernel beat FA-2 on H100",
          "[unit][gpu_sm][attention]") {
  const GpuSmConfig h = h100_sxm5_sm();
  FlashTile pp = fa3_tile(), no_pp = fa3_tile();
  no_pp.pingpong = false;
  const auto a = run(h, launch(pp, 2, 8, 32)).cycles, b = run(h, launch(no_pp, 2, 8, 32)).cycles;
  CHECK(a <= b);
  // Same work (128 x 11264 keys per tile) on FA-2's 128x64 tile and FA-3's 128x176.
  const auto fa2 = run(h, launch(fa2_tile(), 2, 8, 176)).cycles;
  CHECK(a < fa2);
}

TEST_CASE("gpu_attention: tiles the SM cannot run are ConfigErrors with the reason",
          "[unit][gpu_sm][attention]") {
  using Catch::Matchers::Contains;
  const GpuSmConfig a = a100_sxm4_sm(), h = h100_sxm5_sm();
  FlashTile t = fa2_tile();
  t.head_dim = 512;
  CHECK_THROWS_WITH(flash_shape(a, t), Contains("head_dim 512") && Contains("256"));
  t = fa2_tile();
  t.in_type = TcType::kFp8E4M3;
  CHECK_THROWS_WITH(flash_shape(a, t), Contains("fp8") && Contains("hopper"));
  CHECK_THROWS_WITH(flash_shape(h, t), Contains("FlashAttention-2 runs fp16 and bf16 only"));
  CHECK_THROWS_WITH(flash_shape(a, fa3_tile()), Contains("sm_90a"));
  t = fa2_tile();
  t.warps = 3;
  CHECK_THROWS_AS(flash_shape(a, t), ConfigError);
  FlashTile big = fa3_tile();
  big.stages = 4;  // 4 x 2 x 176 x 128 x 2 B of K/V: more than one block's shared memory
  CHECK_THROWS_WITH(flash_shape(h, big), Contains("shared memory"));
  FlashLaunch bad = launch(fa2_tile(), 1, 1, 4);
  bad.ctas[0].masked = 5;
  CHECK_THROWS_AS(run(a, bad), ConfigError);
}

namespace {

/// Answers every request kGmemPending and keeps the inner port's answer until the driver
/// reaches its cycle, as the GPU device's memory does in simulated time.
class LatePort : public GmemPort {
 public:
  explicit LatePort(GmemPort& inner) : inner_(inner) {}
  Cycles complete(const GmemRequest& r) override {
    owed_.push({inner_.complete(r).value(), r.token});
    return Cycles(kGmemPending);
  }
  /// Steps `st` to the end, delivering each answer before any event at or after its cycle.
  void drive(GpuAttentionStepper& st) {
    for (;;) {
      std::uint64_t t = st.next_time();
      while (!owed_.empty() && (t == GpuAttentionStepper::kNone || owed_.top().first <= t)) {
        st.arrived(owed_.top().second, owed_.top().first);
        owed_.pop();
        t = st.next_time();
      }
      if (t == GpuAttentionStepper::kNone) break;
      st.step();
    }
  }

 private:
  using Answer = std::pair<std::uint64_t, std::uint64_t>;  // (cycle, token)
  GmemPort& inner_;
  std::priority_queue<Answer, std::vector<Answer>, std::greater<Answer>> owed_;
};

void check_same(const FlashRun& a, const FlashRun& b) {
  CHECK(a.cycles == b.cycles);
  CHECK(a.resident == b.resident);
  CHECK(a.requests == b.requests);
  CHECK(a.bytes == b.bytes);
  CHECK(a.tensor_busy == b.tensor_busy);
  CHECK(a.smem_busy == b.smem_busy);
  CHECK(a.fp32_busy == b.fp32_busy);
  CHECK(a.sfu_busy == b.sfu_busy);
  REQUIRE(a.ctas.size() == b.ctas.size());
  for (size_t i = 0; i < a.ctas.size(); ++i) {
    const FlashCtaRecord &x = a.ctas[i], &y = b.ctas[i];
    INFO("tile record " << i);
    CHECK(std::tie(x.id, x.sm, x.slot, x.start, x.finish, x.store_done) ==
          std::tie(y.id, y.sm, y.slot, y.start, y.finish, y.store_done));
  }
}

}  // namespace

TEST_CASE("gpu_attention: a port answering late gives the immediate port's record",
          "[unit][gpu_sm][attention]") {
  std::mt19937 rng(2024);
  for (int i = 0; i < 60; ++i) {
    const bool fa3 = i % 2 == 1;
    const GpuSmConfig c = fa3 || i % 4 == 2 ? h100_sxm5_sm() : a100_sxm4_sm();
    FlashTile t = fa3 ? fa3_tile() : fa2_tile(i % 3 == 0 ? 64 : 128);
    if (fa3) t.pingpong = i % 5 != 1;
    FlashLaunch l;
    l.tile = t;
    l.sms = 1 + static_cast<int>(rng() % 4);
    l.max_resident = static_cast<std::int64_t>(rng() % 3);
    const auto tiles = static_cast<std::int64_t>(1 + rng() % 12);
    for (std::int64_t k = 0; k < tiles; ++k) {
      FlashCtaWork w;
      w.id = k;
      w.head = k / 3;
      w.m_block = k % 3;
      w.q_rows = 1 + static_cast<std::int64_t>(rng() % static_cast<unsigned>(t.block_m));
      w.n_blocks = 1 + static_cast<std::int64_t>(rng() % 10);
      w.masked = static_cast<std::int64_t>(rng() % static_cast<unsigned>(w.n_blocks + 1));
      w.first_rows = 1 + static_cast<std::int64_t>(rng() % static_cast<unsigned>(t.block_n));
      l.ctas.push_back(w);
    }
    const double bw = 8.0 * static_cast<double>(1 + rng() % 16);
    const double shared = rng() % 2 == 0 ? 0.0 : bw * static_cast<double>(1 + rng() % 3);
    const std::uint64_t lat = 50 + rng() % 900, jitter = rng() % 3 == 0 ? 0 : rng() % 400;
    INFO("case " << i << " fa3 " << fa3 << " sms " << l.sms << " tiles " << tiles);
    test::JitterPort now(l.sms, bw, shared, lat, jitter);
    const FlashRun immediate = GpuAttentionModel(c, now).run(l);
    test::JitterPort inner(l.sms, bw, shared, lat, jitter);
    LatePort late(inner);
    GpuAttentionStepper st(c, late, l);
    late.drive(st);
    CHECK(st.pending() == 0);
    check_same(immediate, st.finish());
  }
  // A late port without a stepper to deliver its answers is an error, not a wrong record.
  const GpuSmConfig c = a100_sxm4_sm();
  test::JitterPort inner(1, 64, 0, 100, 0);
  LatePort late(inner);
  CHECK_THROWS_AS(GpuAttentionModel(c, late).run(launch(fa2_tile(), 1, 1, 2)), SimError);
}
