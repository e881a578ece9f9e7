#pragma once
// Configuration of a GPU L2 cache and the crossbar between the requesters (SMs' copy engines)
// and its slices: organisation (capacity, partitions, slices, line, sectors, ways), the
// address-to-slice hash, latencies in L2 clock cycles, bandwidths in bytes per L2 clock, MSHRs
// and the acceptance queue of each requester. Defaults: NVIDIA A100 (see README.md).

#include <cstdint>

#include "sim/config/schema.h"

namespace systole::models {

enum class L2Hash { kXor, kNone };

/// The `l2` section: a sectored, set-associative, write-back L2 split into partitions of slices.
struct L2Config {
  Bytes capacity{0};
  std::int64_t partitions = 0;            ///< halves of the chip, each with its own slices
  std::int64_t slices_per_partition = 0;  ///< tag and data banks of one partition
  Bytes line{0};                          ///< bytes per tag
  Bytes sector{0};                        ///< bytes per valid/dirty bit (fill granule)
  std::int64_t associativity = 0;         ///< ways per set
  L2Hash address_hash = L2Hash::kXor;
  Hz clock{0};                       ///< the L2 (and SM) clock the cycle counts are in
  std::int64_t hit_latency = 0;      ///< near-partition hit, round trip through the crossbar
  std::int64_t far_penalty = 0;      ///< added when the address is homed in the far partition
  std::int64_t slice_bandwidth = 0;  ///< bytes per clock of one slice
  std::int64_t xbar_bandwidth = 0;   ///< bytes per clock of a partition's crossbar port
  std::int64_t port_bandwidth = 0;   ///< bytes per clock of one requester's crossbar port
  std::int64_t mshrs_per_slice = 0;  ///< lines a slice may have in flight from memory
  std::int64_t transfer_queue = 0;   ///< transfers a requester may have accepted, not done

  static const config::SchemaOf<L2Config>& schema();

  std::int64_t slices() const { return partitions * slices_per_partition; }
  std::uint64_t slice_bytes() const {
    return capacity.value() / static_cast<std::uint64_t>(slices());
  }
  std::int64_t sectors_per_line() const {
    return static_cast<std::int64_t>(line.value() / sector.value());
  }
  std::int64_t sets_per_slice() const {
    return static_cast<std::int64_t>(slice_bytes() /
                                     (line.value() * static_cast<std::uint64_t>(associativity)));
  }
  double period_ps() const { return 1e12 / clock.value(); }
};

}  // namespace systole::models
