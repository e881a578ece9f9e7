#pragma once
// The GPU measurements of tests/validation/gpu/data (README.md beside this file says how they were
// taken): the PyTorch timings (<run>.csv) and the memory microbenchmark (<run>_membench.csv), read
// from the source tree, and the measured quantities of the memory validation table derived from
// them by the rules below, so the C++ table and the README read the same numbers.
#include <cstdint>
#include <string>
#include <vector>

namespace systole::test::gpu {

/// One row of <run>.csv: what ran, its mean time and the rate it implies (0 when empty).
struct MeasuredRow {
  std::string group, name, dtype, shape;
  double seconds = 0, tflops = 0, gbytes_per_s = 0;
  std::string kernels;
};

/// One row of data/<gpu>_networks_flow_runK.csv (measure/networks_flow.py): a layer's summed
/// kernel time over its `calls` in one forward pass with real data flow, or a network's
/// "(whole network, one graph)" replay time, or "(sum of layers)".
struct NetworkRow {
  std::string network;
  int batch = 0;
  std::string layer;
  double seconds = 0;
};

/// A pointer chase: one thread, dependent loads over `footprint` bytes (ld.global.ca = L1 when
/// `l1`, else .cg = L2 and beyond); SM cycles per load.
struct Chase {
  bool l1 = false;
  std::uint64_t footprint = 0;
  double cycles = 0;
};

/// All-SM L2/DRAM read bandwidth over `footprint` bytes (.cg loads, float4).
struct ReadBw {
  std::uint64_t footprint = 0;
  double gbytes_per_s = 0;
};

/// <run>_membench.csv: the device line and both tables.
struct Membench {
  std::string device;
  int sms = 0;
  std::uint64_t l2_bytes = 0;
  double clock_hz = 0;  ///< cudaDevAttrClockRate: the SM clock the cycles are converted at
  std::vector<Chase> chase;
  std::vector<ReadBw> readbw;
};

/// tests/validation/gpu/data under the source tree.
std::string data_dir();
/// The rows of data/<run>.csv (e.g. "h100_run1"); throws std::runtime_error when unreadable.
std::vector<MeasuredRow> load_rows(const std::string& run);
/// The rows of data/<run>.csv for a network run (e.g. "h100_networks_flow_run1").
std::vector<NetworkRow> load_network_rows(const std::string& run);
/// One row of data/*_llm_run*.csv (measure/llm.py): a layer of an LLM block, or the block.
struct LlmRow {
  std::string network;
  int batch = 0, tokens = 0;
  std::string layer, shape;
  double seconds = 0;
};
/// data/<run>.csv of measure/llm.py; throws std::runtime_error when unreadable.
std::vector<LlmRow> load_llm_rows(const std::string& run);
/// One row of data/<gpu>_heldout_run*.csv (measure/heldout.py): a held-out shape timed in a CUDA
/// graph (`graph_seconds`, the validated quantity) and eagerly, in measurement pass `pass`.
struct HeldoutRow {
  int pass = 0;
  std::string kind, dtype, shape;
  double graph_seconds = 0, eager_seconds = 0;
  std::string kernels;
};
std::vector<HeldoutRow> load_heldout_rows(const std::string& run);
/// The first row with this group, name (and shape, unless empty); throws when absent.
const MeasuredRow& find_row(const std::vector<MeasuredRow>& rows, const std::string& group,
                            const std::string& name, const std::string& shape = "");
/// data/<run>_membench.csv; throws std::runtime_error when unreadable.
Membench load_membench(const std::string& run);

/// One row of data/<gpu>_l2bw*_run*.csv (measure/l2bw.cu): a read of an L2-resident (or DRAM)
/// footprint by `active` SMs; the aggregate is bytes / (last block's end - first block's start).
struct L2bwRow {
  std::string path;  ///< ld, tma, tmav_*, clus_*, ld_smid_every<E>_below<B>, ld_block_*, ...
  std::uint64_t footprint = 0, chunk = 0;
  int depth = 0, active = 0;
  double per_sm_bytes_per_clk = 0, gbytes_per_s = 0, sm_ghz = 0;
};
/// data/<run>.csv of measure/l2bw.sh (e.g. "h200_l2bw_round4_run1"); throws when unreadable.
std::vector<L2bwRow> load_l2bw(const std::string& run);

/// The measured quantities of the memory validation table, each a mean over `runs` (H100: two
/// runs on two machines). Rules (fixed before any prediction was compared with them):
struct MemoryMeasurement {
  double stream_read = 0;   ///< B/s, `stream,read_sum` (a.sum() over 1 GiB of fp32)
  double stream_copy = 0;   ///< B/s, `stream,copy` (read + write bytes)
  double stream_triad = 0;  ///< B/s, `stream,triad` (two reads + one write)
  /// B/s, readbw: mean over footprints from 8 MiB to half the L2 capacity (resident in L2,
  /// clear of the small-footprint start-up and of partition effects).
  double l2_read = 0;
  double l1_ns = 0;       ///< chase .ca: mean over all footprints (8-128 KiB)
  double l2_near_ns = 0;  ///< chase .cg: mean over footprints of 1-8 MiB (the near plateau)
  double l2_far_ns = 0;   ///< chase .cg: mean over footprints in [0.6, 0.8] x L2 capacity
  double dram_ns = 0;     ///< chase .cg: mean over footprints of at least 2 x L2 capacity
  double clock_hz = 0;    ///< the clock the chase cycles were converted to ns at
  double l2_near_cycles = 0, l2_far_cycles = 0, dram_cycles = 0, l1_cycles = 0;
};
MemoryMeasurement measure_memory(const std::vector<std::string>& runs);

}  // namespace systole::test::gpu
