#include "models/register_all.h"

#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "workloads/frontends/yaml_workload.h"

namespace systole::models {

void register_all(Registry& r) {
  register_tpu_chip(r);
  r.add({"gemm",
         "layer",
         "GEMM layer: C[m x n] = A[m x k] * B[k x n]",
         &workloads::gemm_layer_schema(),
         {}});
}

}  // namespace systole::models
