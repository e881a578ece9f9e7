#include "models/gpu_sm/gpu_sm_run.h"

#include <algorithm>

namespace systole::models {

std::int64_t resident_ctas(const GpuSmConfig& c, const GemmLaunch& l) {
  const std::int64_t occ = occupancy(c, mainloop_shape(c, l.tile).resources).ctas;
  return l.max_resident > 0 ? std::min(occ, l.max_resident) : occ;
}

}  // namespace systole::models
