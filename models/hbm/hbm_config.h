#pragma once
// Configuration of the HBM main memory (bandwidth/latency model; the bank-level model and its
// timing parameters arrive with the memory-system issue).

#include "sim/config/schema.h"

namespace systole::models {

struct HbmConfig {
  Bytes capacity{0};
  BytesPerSecond bandwidth{0};
  Picoseconds latency{0};
  double efficiency = 1.0;  ///< sustained fraction of peak bandwidth
  static const config::SchemaOf<HbmConfig>& schema();
};

}  // namespace systole::models
