#pragma once
// Reference fidelity of the scalesim model: a literal, cycle-by-cycle replay of SCALE-Sim v2 —
// per-cycle demand rows of addresses, hashed prefetch lines, sets of distinct addresses, a write
// buffer fed word by word — written straight from SCALE-Sim's semantics and sharing no logic
// with the fast model (scalesim_timing.h). It is slow (time and memory grow with the demand
// matrices, as in SCALE-Sim) and exists so tests can prove the fast model equal to it on random
// shapes, field by field.

#include "models/scalesim/scalesim_timing.h"

namespace systole::models::scalesim {

/// The same numbers as simulate_layer(), computed the slow, literal way.
LayerResult replay_layer(const ArrayConfig& arch, const ConvLayer& layer);

}  // namespace systole::models::scalesim
