#pragma once
// The memory side of a GPU device as Systole's models predict it, run the way the hardware was
// measured: STREAM kernels as every SM streaming its share of large arrays through the bank-level
// HBM (HbmTiming: the preset's address mapping, controllers, refresh); the L2-resident read
// bandwidth as every SM's port reading a footprint that fits the L2 (L2Timing); pointer-chase
// latencies as one thread's dependent loads through L2Timing, with its misses served by
// HbmTiming. README.md beside this file gives the rules and their assumptions.
#include <cstdint>

#include "models/systems/gpu_device/gpu_device_config.h"

namespace systole::test::gpu {

/// A STREAM kernel: arrays read and written per element.
struct StreamKernel {
  int reads = 1;
  int writes = 0;
};

/// Bytes per second (reads + writes) of `k` over arrays of about `array_bytes` each.
double predict_stream(const models::GpuDeviceConfig& d, StreamKernel k, std::uint64_t array_bytes);

/// Bytes per second of every SM reading `footprint` bytes, resident in the L2, `passes` times.
double predict_l2_read(const models::GpuDeviceConfig& d, std::uint64_t footprint, int passes);

/// Bytes per second of `active` SMs (ports in partitions 0, 1, 0, ...) each reading
/// `bytes_per_sm` from a footprint resident in the L2 with `in_flight` loads of 512 bytes (a
/// warp's float4 load) outstanding, a new one issued as each returns: measure/l2bw.cu's `ld` runs
/// (1024 threads x 8 loads). Bytes / (last load done - first issue), as l2bw's aggregate.
double predict_l2_ceiling(const models::GpuDeviceConfig& d, int active, std::uint64_t footprint,
                          std::uint64_t bytes_per_sm, int in_flight);

/// Mean latency per dependent load, in picoseconds, of a pointer chase from one SM (partition 0),
/// split by the home partition of the line each load touched.
struct ChaseLatency {
  double all_ps = 0, near_ps = 0, far_ps = 0;
  double near_share = 0;  ///< fraction of the loads homed in the requester's partition
  double hit_rate = 0;    ///< fraction of the loads the L2 served without a fetch
};

/// `hops` loads, each to a random line of `footprint` bytes. With `warm`, the footprint is
/// written into the L2 first (every load hits when it fits); otherwise the L2 starts empty and
/// misses go to the HBM (a footprint far above the L2: every load misses).
ChaseLatency predict_chase(const models::GpuDeviceConfig& d, std::uint64_t footprint, int hops,
                           bool warm);

}  // namespace systole::test::gpu
