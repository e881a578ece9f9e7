#include "models/register_all.h"

#include "models/ici/ici_config.h"
#include "models/nvlink/nvlink_config.h"
#include "models/systems/gpu_device/gpu_device_system.h"
#include "models/systems/gpu_node/gpu_node_system.h"
#include "models/systems/tpu_chip/tpu_chip_system.h"
#include "models/systems/tpu_pod/tpu_pod_system.h"
#include "workloads/frontends/yaml_workload.h"

namespace systole::models {

void register_all(Registry& r) {
  register_tpu_chip(r);
  register_gpu_device(r);
  register_tpu_pod(r);
  register_gpu_node(r);
  r.add({"ici",
         "component",
         "ICI torus network between chips: flow-level (max-min) or packet-level reference",
         &IciConfig::schema(),
         {}});
  r.add({"nvlink",
         "component",
         "NVLink/NVSwitch node of N GPUs: flow-level (max-min) or packet-level reference, NCCL",
         &NvlinkConfig::schema(),
         {}});
  for (const auto& [name, op] : workloads::layer_ops())
    r.add({name, "layer", workloads::layer_schema(op).doc(), &workloads::layer_schema(op), {}});
}

}  // namespace systole::models
