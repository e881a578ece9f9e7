#pragma once
// Builds the memory a system's `hbm` section names: the bank-level HbmModule (hbm.model: bank)
// or the bandwidth/latency BandwidthMemoryModule (hbm.model: bandwidth). Shared by the TPU chip
// and the GPU device netlists.

#include <memory>

#include "models/hbm/hbm_module.h"

namespace systole::models {

/// The memory module, its MemoryIf and (bank-level only) the HbmModule itself.
struct HbmInstance {
  std::unique_ptr<sc_core::sc_module> module;
  MemoryIf* memory = nullptr;
  HbmModule* banks = nullptr;  ///< nullptr under hbm.model: bandwidth
};

HbmInstance make_hbm(const char* name, const HbmConfig& cfg);

}  // namespace systole::models
