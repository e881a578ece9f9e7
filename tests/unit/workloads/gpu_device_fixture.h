#pragma once
// The GPU device presets as a GPU experiment includes them (configs/presets/*.yaml, `system.
// device`), for the GPU config and mapping tests.
#include <string>

#include "models/systems/gpu_device/gpu_device_config.h"
#include "sim/config/node.h"
#include "tests/support/paths.h"

namespace systole::test {

/// The `system.device` section of configs/presets/<file>, `base:` files resolved, with the
/// YAML `overrides` (a mapping of device keys) merged on top.
inline models::GpuDeviceConfig load_gpu_device(const std::string& file,
                                               const std::string& overrides = "{}") {
  const std::string path = source_dir() + "/configs/presets/" + file;
  config::Node root = config::resolve_bases(config::load_yaml_file(path));
  const config::Node* dev = root.find("system") ? root.find("system")->find("device") : nullptr;
  if (!dev) throw ConfigError(Origin{path}, "system.device", "missing");
  config::Node merged = *dev;
  config::merge_into(merged, config::parse_yaml(overrides, "overrides"));
  return models::GpuDeviceConfig::schema().load(merged, "system.device");
}

inline models::GpuDeviceConfig a100() { return load_gpu_device("a100_sxm4_80gb.yaml"); }
inline models::GpuDeviceConfig h100() { return load_gpu_device("h100_sxm5.yaml"); }

}  // namespace systole::test
