#pragma once
// The stats tree of one TPU chip: `chip0` holds the workload's per-layer figures (/layers) and
// the run's key metrics; below it each part declares its own stats at its instance path
// (chip0.hbm[.stack<s>.ch<c>], chip0.cmem, chip0.core<c>.{mxu<i>, dma<e>, vpu, vmem}, and with
// a host link chip0.host and chip0.host_dma). Per-layer
// figures all come from attributing ops to layers: the units' counters, and a layer's span from
// the end of the layers before it to the completion of its last op.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/dma/dma_stats.h"
#include "models/systems/tpu_chip/tpu_chip_config.h"
#include "sim/stats/result.h"
#include "sim/stats/stat_tables.h"
#include "sim/stats/timebase.h"
#include "workloads/lowering/compile.h"

namespace systole::models {

class DmaModule;
class TpuChipModule;

/// The chip's stats tree and the results tables it yields (values read after the run).
class TpuChipStats {
 public:
  /// Declares the tree of `top`'s parts; with `top` null, one instance of each part named by
  /// pattern (core<c>, mxu<i>, ...), for --describe (values must not be read then).
  TpuChipStats(const TpuChipConfig& cfg, const TpuChipModule* top);
  TpuChipStats(const TpuChipStats&) = delete;
  TpuChipStats& operator=(const TpuChipStats&) = delete;

  /// After the run of `prog` (linked with `first_op`, started at `start_ps`): fixes each layer's
  /// span from when its ops completed.
  void finish(const workloads::CompiledWorkload& prog, const std::vector<std::uint32_t>& first_op,
              double start_ps);
  /// Fills the point's layers, unit tables and metrics by visiting the tree.
  void write(stats::PointResult& res) const;

  const stats::StatGroup& root() const { return root_; }
  /// For a system built around the chip (tpu_pod) to declare its own stats beside the chip's.
  stats::StatGroup& root() { return root_; }
  const stats::Timebase& timebase() const { return run_.tb; }
  /// The tables the tree yields, in /points/<id>/units order (the first is /layers).
  static const std::vector<stats::TableSpec>& tables();

  /// What the chip-level formulas read; filled by finish().
  struct Run {
    const TpuChipModule* top = nullptr;
    const workloads::CompiledWorkload* prog = nullptr;
    stats::Timebase tb;
    std::vector<double> elapsed_ps;  ///< each layer's span in picoseconds
    std::vector<double> end_ps;      ///< when each layer's span ends, from the run's start
  };

 private:
  void declare_parts(const TpuChipConfig& cfg);
  /// The host link's memory (chip0.host) and engine (chip0.host_dma), when the chip has one.
  void declare_host_parts();
  /// One DMA engine's stats in `g` (`dma` null while only the pattern is declared).
  void declare_dma(stats::StatGroup& g, const DmaModule* dma,
                   DmaMemories memories = DmaMemories::kHbmCmem);

  stats::StatGroup root_{"chip0", "tpu_chip"};
  Run run_;
};

/// The stats listing of `kind` (tpu_chip or one of its parts: mxu, dma, vmem, cmem, hbm) as
/// declared in a chip's tree, for --describe.
std::string describe_tpu_chip_stats(const std::string& kind);

}  // namespace systole::models
