#include "models/gpu_sm/warp_program.h"

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

void copies(const MainloopShape& s, std::int64_t kt, WarpSection& sec) {
  for (std::int64_t i = 0; i < s.cp_per_warp; ++i) {
    WarpInstr x = instr(WarpOp::kCpAsync, kt);
    x.last = i + 1 == s.cp_per_warp;
    sec.instrs.push_back(x);
  }
}

void fragments(const MainloopShape& s, std::int64_t kt, std::int64_t step, WarpSection& sec) {
  for (std::int64_t i = 0; i < s.ldm_per_step; ++i) {
    WarpInstr x = instr(WarpOp::kLdmatrix, kt, step, i);
    x.first = i == 0;
    sec.instrs.push_back(x);
  }
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

/// Multistage mainloop (CUTLASS sm80 MmaMultistage, simplified): prologue copies stages-1
/// k-tiles; each k-tile waits at __syncthreads for its stage, copies the k-tile stages-1 ahead,
/// loads k-step 0's fragments, then per k-step loads the next step's fragments and issues its
/// mma.sync; the fragments of one k-tile are not prefetched across the barrier.
std::vector<WarpSection> multistage(const MainloopShape& s, const CtaWork& c) {
  const std::int64_t kts = s.k_tiles(c);
  std::vector<WarpSection> p;
  WarpSection pro = section(WarpWait::kLaunch, 0);
  for (std::int64_t kt = 0; kt < std::min(s.stages - 1, kts); ++kt) copies(s, kt, pro);
  pro.instrs.push_back(instr(WarpOp::kBarSync, 0));
  p.push_back(std::move(pro));
  for (std::int64_t kt = 0; kt < kts; ++kt) {
    WarpSection sec = section(WarpWait::kBarrier, kt);
    if (kt + s.stages - 1 < kts) copies(s, kt + s.stages - 1, sec);
    const std::int64_t steps = s.steps(c, kt);
    fragments(s, kt, 0, sec);
    for (std::int64_t st = 0; st < steps; ++st) {
      if (st + 1 < steps) fragments(s, kt, st + 1, sec);
      for (std::int64_t m = 0; m < s.mma_per_step; ++m)
        sec.instrs.push_back(instr(WarpOp::kMma, kt, st, m));
    }
    if (kt + 1 < kts) sec.instrs.push_back(instr(WarpOp::kBarSync, kt + 1));
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
