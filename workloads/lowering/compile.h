#pragma once
// The compiler as a stage: compile(chip, layers, mapping) lowers every layer once (with its
// tiles and bounds: all that simrun --plan prints), and link() joins the lowered layers into one
// op graph for the whole workload (one instance per layer repeat), run by one sc_start. The
// linker orders instances only by their data and VMEM buffers:
//  * an op that reads the layer's input (Operand::kInput), and any other op with no dependency
//    that is not a weight load, waits for the previous instance to finish (its output tensor
//    is complete only then);
//  * a weight load with no dependency (the first loads into each VMEM buffer) waits for the
//    last users, in the previous instance, of the VMEM it overwrites (the previous layer's
//    reported vmem_tail; without one, for the whole previous instance) and for the instance
//    before that: weights are prefetched at most one layer ahead, as XLA's schedule does.
// With mapping.layer_overlap false every op with no dependency waits for the previous instance:
// each layer starts cold, as with one sc_start per layer.
// With a host link (TpuChipConfig::host) the workload's input is read from host memory by a load
// on the host DMA engine that the instance's input readers wait for (only they: its weights
// stream in meanwhile), and its outputs are written back by a store after the instance's last
// ops (host_io.h says which instances).

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/program.h"
#include "models/systems/tpu_chip/tpu_chip_config.h"
#include "workloads/lowering/host_io.h"
#include "workloads/lowering/tpu_layer_lowering.h"

namespace systole::workloads {

/// One workload layer as compiled: its mapping, bounds and the program of one instance.
struct CompiledLayer {
  Layer layer;                      ///< as run (after epilogue fusion)
  models::Program lowered;          ///< one instance
  std::string tile;                 ///< the tiling, for people
  std::uint64_t planned_bytes = 0;  ///< HBM bytes one instance moves
  LayerBounds bounds;               ///< of one instance
  Handoff handoff;
};

struct CompiledWorkload {
  std::vector<CompiledLayer> layers;
  bool layer_overlap = true;
};

/// Lowers `layers` (already fused). Throws WorkloadError when a layer fits nowhere.
CompiledWorkload compile(const models::TpuChipConfig& chip, const std::vector<Layer>& layers,
                         const MappingOptions& opt);

/// A collective layer as one op (OpKind::kCollective) on `device`'s ICI unit (`chip0.ici`): it
/// waits for the layer before it; the next layer's weight prefetch overlaps it (link_instance
/// keeps the VMEM tail of the layer before the collective).
CompiledLayer lower_collective(const Layer& l, const std::string& device = "chip0");

/// The whole workload's program: every layer's instances linked in order. `first_op[l]` is
/// where layer l's ops begin (they are contiguous; one more entry marks the end).
models::Program link(const models::TpuChipConfig& chip, const CompiledWorkload& c,
                     std::vector<std::uint32_t>* first_op = nullptr);

/// Appends one instance of a lowered layer to `whole` (whose `instances` counts those linked so
/// far: start from 0), linked to the instance before it as described above; `host`: what it
/// moves over the chip's host link (none when null).
void link_instance(models::Program& whole, const models::Program& part, std::uint32_t layer,
                   const models::TpuChipConfig& chip, bool overlap,
                   const HostTransfers* host = nullptr);

}  // namespace systole::workloads
