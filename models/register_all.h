#pragma once
#include "sim/registry/registry.h"

namespace systole::models {
/// Registers every component and system kind, in a fixed order.
void register_all(Registry& r);
}  // namespace systole::models
