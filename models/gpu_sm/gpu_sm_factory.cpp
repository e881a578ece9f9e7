#include "models/gpu_sm/gpu_sm_factory.h"

#include "models/gpu_sm/gpu_sm_tile_model.h"
#include "models/gpu_sm/gpu_sm_warp_model.h"

namespace systole::models {

GemmRun run_gemm_launch(const GpuSmConfig& c, GmemPort& port, const GemmLaunch& launch) {
  if (c.model == GpuSmModel::kWarp) return GpuSmWarpModel(c, port).run(launch);
  return GpuSmTileModel(c, port).run(launch);
}

}  // namespace systole::models
