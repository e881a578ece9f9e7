#pragma once
// The read port of one TensorCore's VMEM towards its MXUs (plain C++, MXU clock cycles): a
// first-come-first-served server of `bytes_per_cycle`. Every MXU of the core reserves its
// operand bytes when its op begins; an op cannot finish streaming before they are delivered.
// Fidelity: op granularity (an op's reads are one reservation, not interleaved per cycle);
// the DMA engines' VMEM traffic is not on this port.

#include <cmath>
#include <cstdint>

#include "models/common/fcfs_server.h"

namespace systole::models {

/// One core's VMEM read port towards its MXUs (an FcfsServer in cycles, op granularity).
class VmemPort {
 public:
  explicit VmemPort(double bytes_per_cycle) : bytes_per_cycle_(bytes_per_cycle) {}
  /// Reserves `bytes` from cycle `from` on; returns the cycle by which they are all delivered.
  std::uint64_t read(std::uint64_t from, std::uint64_t bytes) {
    const double end =
        server_.serve(static_cast<double>(from), static_cast<double>(bytes) / bytes_per_cycle_).end;
    bytes_ += bytes;
    return static_cast<std::uint64_t>(std::ceil(end));
  }
  double bytes_per_cycle() const { return bytes_per_cycle_; }
  double busy_cycles() const { return server_.busy(); }
  std::uint64_t bytes() const { return bytes_; }

 private:
  double bytes_per_cycle_;
  FcfsServer server_;
  std::uint64_t bytes_ = 0;
};

}  // namespace systole::models
