#include "models/gpu_sm/gpu_sm_run.h"

#include <algorithm>

namespace systole::models {

GmemRequest gemm_request(const MainloopShape& s, const CtaWork& w, int sm, int slot,
                         std::int64_t kt, bool store, std::uint64_t issue) {
  GmemRequest q;
  q.sm = sm;
  q.slot = slot;
  q.cta = w.id;
  q.k_tile = store ? -1 : kt;
  q.stage = store ? 0 : kt % s.stages;
  q.store = store;
  q.bytes = store ? s.store_bytes(w) : s.copy_bytes(w, kt);
  q.issue = Cycles(issue);
  return q;
}

std::int64_t resident_ctas(const GpuSmConfig& c, const GemmLaunch& l) {
  const std::int64_t occ = occupancy(c, mainloop_shape(c, l.tile).resources).ctas;
  return l.max_resident > 0 ? std::min(occ, l.max_resident) : occ;
}

}  // namespace systole::models
