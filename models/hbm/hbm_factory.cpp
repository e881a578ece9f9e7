#include "models/hbm/hbm_factory.h"

#include "models/hbm/bandwidth_memory_module.h"

namespace systole::models {

HbmInstance make_hbm(const char* name, const HbmConfig& cfg) {
  HbmInstance h;
  if (cfg.model == HbmModel::kBank) {
    auto m = std::make_unique<HbmModule>(name, cfg);
    h.memory = h.banks = m.get();
    h.module = std::move(m);
  } else {
    auto m = std::make_unique<BandwidthMemoryModule>(
        name, cfg.bandwidth.value() * cfg.efficiency, static_cast<double>(cfg.latency.value()),
        static_cast<std::uint32_t>(cfg.transfer_queue));
    h.memory = m.get();
    h.module = std::move(m);
  }
  return h;
}

}  // namespace systole::models
