#include "models/gpu_sm/warp_program.h"

#include <algorithm>

namespace systole::models {

namespace {

WarpInstr instr(WarpOp op, std::int64_t kt, std::int64_t step = 0, std::int64_t idx = 0) {
  WarpInstr i;
  i.op = op;
  i.kt = static_cast<std::int32_t>(kt);
  i.step = static_cast<std::int32_t>(step);
  i.idx = static_cast<std::int32_t>(idx);
  return i;
}

WarpSection section(WarpWait w, std::int64_t kt) {
  WarpSection s;
  s.wait = w;
  s.kt = static_cast<std::int32_t>(kt);
  return s;
}

using Instrs = std::vector<WarpInstr>;

Instrs copies(const MainloopShape& s, std::int64_t kt) {
  Instrs v;
  for (std::int64_t i = 0; i < s.cp_per_warp; ++i) {
    WarpInstr x = instr(WarpOp::kCpAsync, kt);
    x.last = i + 1 == s.cp_per_warp;
    v.push_back(x);
  }
  return v;
}

/// The mainloop's k-steps, numbered across k-tiles: fragment buffers alternate by this number.
struct Step {
  std::int64_t kt, step, global;
};

Instrs fragments(const MainloopShape& s, const Step& k) {
  Instrs v;
  for (std::int64_t i = 0; i < s.ldm_per_step; ++i) {
    WarpInstr x = instr(WarpOp::kLdmatrix, k.kt, k.step, i);
    x.first = i == 0;
    x.buf = static_cast<std::int32_t>(k.global % 2);
    v.push_back(x);
  }
  return v;
}

Instrs mmas(const MainloopShape& s, const Step& k) {
  Instrs v;
  for (std::int64_t m = 0; m < s.mma_per_step; ++m) {
    WarpInstr x = instr(WarpOp::kMma, k.kt, k.step, m);
    x.buf = static_cast<std::int32_t>(k.global % 2);
    v.push_back(x);
  }
  return v;
}

/// A k-step's mma.sync with copies between them: mma 0, copy 0, mma 1, copy 1, ..., then
/// whichever list is longer.
void interleave(const Instrs& mma, const Instrs& mem, WarpSection& sec) {
  for (size_t j = 0; j < std::max(mma.size(), mem.size()); ++j) {
    if (j < mma.size()) sec.instrs.push_back(mma[j]);
    if (j < mem.size()) sec.instrs.push_back(mem[j]);
  }
}

void append(const Instrs& v, WarpSection& sec) {
  sec.instrs.insert(sec.instrs.end(), v.begin(), v.end());
}

WarpSection epilogue(const MainloopShape& s, WarpWait wait, std::int64_t kt) {
  WarpSection e = section(wait, kt);
  for (std::int64_t i = 0; i < s.ep_fp32; ++i) e.instrs.push_back(instr(WarpOp::kFp32, kt));
  for (std::int64_t i = 0; i < s.ep_sfu; ++i) e.instrs.push_back(instr(WarpOp::kSfu, kt));
  for (std::int64_t i = 0; i < s.ep_st; ++i) {
    WarpInstr x = instr(WarpOp::kStore, kt);
    x.last = i + 1 == s.ep_st;
    e.instrs.push_back(x);
  }
  return e;
}

/// Multistage mainloop (CUTLASS sm80 MmaMultistage, simplified): the prologue copies
/// stages-1 k-tiles; each k-tile waits at __syncthreads for its stage and then, k-step by
/// k-step, loads a k-step's fragments (ldmatrix) and issues the previous k-step's mma.sync.
/// As in CUTLASS, the barrier falls before the last k-step's mma.sync of the previous k-tile:
/// they follow the next k-tile's first ldmatrix, with the cp.async of the k-tile stages-1
/// ahead issued between them (CUTLASS spreads its copies over the mma loop too). The first
/// k-tile, with nothing to overlap, issues its copies and then its fragment loads.
std::vector<WarpSection> multistage(const MainloopShape& s, const CtaWork& c) {
  const std::int64_t kts = s.k_tiles(c);
  std::vector<WarpSection> p;
  WarpSection pro = section(WarpWait::kLaunch, 0);
  for (std::int64_t kt = 0; kt < std::min(s.stages - 1, kts); ++kt) append(copies(s, kt), pro);
  pro.instrs.push_back(instr(WarpOp::kBarSync, 0));
  p.push_back(std::move(pro));
  Step prev{-1, 0, -1};  // the k-step whose mma.sync are still to issue
  for (std::int64_t kt = 0; kt < kts; ++kt) {
    WarpSection sec = section(WarpWait::kBarrier, kt);
    const Instrs cps = kt + s.stages - 1 < kts ? copies(s, kt + s.stages - 1) : Instrs{};
    for (std::int64_t st = 0; st < s.steps(c, kt); ++st) {
      const Step k{kt, st, prev.global + 1};
      if (prev.kt < 0) {
        append(cps, sec);
        append(fragments(s, k), sec);
      } else {
        append(fragments(s, k), sec);
        interleave(mmas(s, prev), st == 0 ? cps : Instrs{}, sec);
      }
      prev = k;
    }
    if (kt + 1 < kts)
      sec.instrs.push_back(instr(WarpOp::kBarSync, kt + 1));
    else
      append(mmas(s, prev), sec);
    p.push_back(std::move(sec));
  }
  p.push_back(epilogue(s, WarpWait::kAccum, kts - 1));
  return p;
}

/// Warp-specialised mainloop (CUTLASS sm90 KernelTmaWarpSpecialized, simplified): the
/// producer warp issues each k-tile's two TMA copies once its slot is empty.
std::vector<WarpSection> producer(const MainloopShape& s, const CtaWork& c) {
  std::vector<WarpSection> p;
  for (std::int64_t kt = 0; kt < s.k_tiles(c); ++kt) {
    WarpSection sec = section(WarpWait::kEmpty, kt);
    for (std::int64_t i = 0; i < s.tma_per_tile; ++i) {
      WarpInstr x = instr(WarpOp::kTma, kt);
      x.last = i + 1 == s.tma_per_tile;
      sec.instrs.push_back(x);
    }
    p.push_back(std::move(sec));
  }
  return p;
}

/// A consumer warp: per k-tile wait for the full barrier and issue the wgmmas; then
/// wgmma.wait_group 1 (the previous k-tile's group done) and release that k-tile's slot.
std::vector<WarpSection> consumer(const MainloopShape& s, const CtaWork& c) {
  const std::int64_t kts = s.k_tiles(c);
  std::vector<WarpSection> p;
  for (std::int64_t kt = 0; kt < kts; ++kt) {
    WarpSection sec = section(WarpWait::kFull, kt);
    for (std::int64_t st = 0; st < s.steps(c, kt); ++st)
      for (std::int64_t r = 0; r < s.mma_per_step; ++r)
        sec.instrs.push_back(instr(WarpOp::kWgmma, kt, st, r));
    p.push_back(std::move(sec));
    if (kt == 0) continue;
    WarpSection rel = section(WarpWait::kGroupDone, kt - 1);
    rel.instrs.push_back(instr(WarpOp::kArrive, kt - 1));
    p.push_back(std::move(rel));
  }
  p.push_back(epilogue(s, WarpWait::kGroupDone, kts - 1));
  return p;
}

}  // namespace

std::vector<WarpSection> warp_program(const MainloopShape& s, const CtaWork& c, std::int64_t w) {
  if (!s.wgmma) return multistage(s, c);
  if (w == s.producer_warp) return producer(s, c);
  if (w < s.first_compute_warp) return {};
  return consumer(s, c);
}

}  // namespace systole::models
