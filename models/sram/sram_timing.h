#pragma once
// The timing of a banked on-chip SRAM (plain C++, time in picoseconds): addresses interleave
// over `banks` at `width` granularity; each bank serves `ports` accesses at a time, one access
// every access_seconds(peak). A strided access pattern reserves every bank it touches from its
// start time on, so two patterns conflict only where they share banks, and a pattern that maps many
// accesses onto few banks (a power-of-two stride) takes longer than its bytes / bandwidth.
// Fidelity: per-bank reservation, each port an FcfsServer; no per-cycle port arbitration.

#include <cstdint>
#include <vector>

#include "models/common/fcfs_server.h"
#include "models/dma/dma_descriptor.h"
#include "models/sram/sram_config.h"

namespace systole::models {

struct SramGrant {
  double start_ps = 0;  ///< first bank access
  double end_ps = 0;    ///< last bank access done (add the latency for the data)
  double ideal_ps = 0;  ///< what the accesses take spread evenly over every bank and port
};

/// Banked SRAM timing, per-bank first-come-first-served reservation of access patterns.
class SramTiming {
 public:
  /// `peak`: what all banks and ports move together (the face of the SRAM this timing serves).
  SramTiming(const SramConfig& cfg, BytesPerSecond peak);

  /// Reserves the banks for `d` from `now_ps` on.
  SramGrant access(double now_ps, const DmaDescriptor& d, bool write);
  /// Accesses of `d` per bank (for tests and the layout checks).
  std::vector<std::uint64_t> per_bank(const DmaDescriptor& d) const;

  const SramConfig& config() const { return cfg_; }
  std::uint64_t bytes_read() const { return read_; }
  std::uint64_t bytes_written() const { return written_; }
  /// Time accesses took beyond their ideal spread: what bank conflicts cost.
  double conflict_ps() const { return conflict_ps_; }
  double busy_ps() const { return busy_ps_; }

 private:
  SramConfig cfg_;
  double access_ps_;
  std::vector<FcfsServer> ports_;  // per bank and port
  std::uint64_t read_ = 0, written_ = 0;
  double conflict_ps_ = 0, busy_ps_ = 0, busy_until_ = 0;
};

}  // namespace systole::models
