#pragma once
// SCALE-Sim v2 compatibility timing (plain C++, no SystemC): reproduces, number for number,
// what SCALE-Sim v2 (commit 22f88b1, 2025-02-25) reports for one layer on one systolic array —
// total and stall cycles, overall/compute utilization, mapping efficiency, SRAM and DRAM access
// counts and average bandwidths — for os, ws and is, with InterfaceBandwidth CALC and USER.
// SCALE-Sim walks per-cycle demand matrices; this model derives the same numbers from closed
// forms over folds and event-level walks over prefetch windows (README.md has every formula).

#include <cstdint>
#include <string>

namespace systole::models::scalesim {

enum class Dataflow { kOs, kWs, kIs };
const char* to_string(Dataflow d);

/// The part of a SCALE-Sim .cfg that changes the numbers (1 word = 1 byte, as in SCALE-Sim).
struct ArrayConfig {
  std::int64_t rows = 32;  ///< ArrayHeight
  std::int64_t cols = 32;  ///< ArrayWidth
  std::int64_t ifmap_sram_kb = 64;
  std::int64_t filter_sram_kb = 64;
  std::int64_t ofmap_sram_kb = 64;
  Dataflow dataflow = Dataflow::kOs;
  bool user_bandwidth = false;  ///< InterfaceBandwidth: USER (else CALC)
  std::int64_t bandwidth = 10;  ///< words/cycle, the first Bandwidth entry (USER mode only)
};

/// One topology row as SCALE-Sim reads it: a convolution without padding, batch 1; a GEMM row
/// (M, N, K) is H=M, W=K, R=1, S=K, C=1, filters=N. Outputs: ceil((H - R + S) / S), so the last
/// window may run past the input (it reads nothing there).
struct ConvLayer {
  std::string name;
  std::int64_t ifmap_h = 1, ifmap_w = 1, filter_h = 1, filter_w = 1, channels = 1, num_filters = 1,
               stride_h = 1, stride_w = 1;
  std::int64_t ofmap_h() const { return (ifmap_h - filter_h + stride_h - 1) / stride_h + 1; }
  std::int64_t ofmap_w() const { return (ifmap_w - filter_w + stride_w - 1) / stride_w + 1; }
  std::int64_t gemm_m() const { return ofmap_h() * ofmap_w(); }
  std::int64_t gemm_n() const { return num_filters; }
  std::int64_t gemm_k() const { return filter_h * filter_w * channels; }
  std::int64_t macs() const { return gemm_m() * gemm_n() * gemm_k(); }
  static ConvLayer gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k);
};

/// Everything SCALE-Sim reports for one layer (COMPUTE_REPORT, BANDWIDTH_REPORT and the access
/// counts of DETAILED_ACCESS_REPORT). Cycles are SCALE-Sim's: Total Cycles is the index of the
/// last cycle (one less than the count), stalls included, the initial SRAM fill excluded.
struct LayerResult {
  // COMPUTE_REPORT.csv
  std::int64_t total_cycles = 0;
  std::int64_t stall_cycles = 0;
  double overall_util_pct = 0;
  double mapping_efficiency_pct = 0;
  double compute_util_pct = 0;
  // Fold geometry
  std::int64_t row_folds = 0, col_folds = 0, cycles_per_fold = 0;
  std::int64_t compute_cycles = 0;  ///< row_folds * col_folds * cycles_per_fold - 1
  // SRAM side (words and words/cycle)
  std::int64_t sram_ifmap_reads = 0, sram_filter_reads = 0, sram_ofmap_writes = 0;
  double avg_ifmap_sram_bw = 0, avg_filter_sram_bw = 0, avg_ofmap_sram_bw = 0;
  /// Serviced cycle of the first and the last demand row holding an address of the operand
  /// (reads: the row's cycle + the hit latency of 1 + its read stall; writes: + its write stall).
  std::int64_t sram_ifmap_start = 0, sram_ifmap_stop = 0;
  std::int64_t sram_filter_start = 0, sram_filter_stop = 0;
  std::int64_t sram_ofmap_start = 0, sram_ofmap_stop = 0;
  // DRAM side: words moved, first and last cycle of the DRAM trace, words/cycle over it
  std::int64_t dram_ifmap_reads = 0, dram_filter_reads = 0, dram_ofmap_writes = 0;
  std::int64_t dram_ifmap_start = 0, dram_ifmap_stop = 0;
  std::int64_t dram_filter_start = 0, dram_filter_stop = 0;
  std::int64_t dram_ofmap_start = 0, dram_ofmap_stop = 0;
  double avg_ifmap_dram_bw = 0, avg_filter_dram_bw = 0, avg_ofmap_dram_bw = 0;
  /// SCALE-Sim v3's "Total Cycles (incl. prefetch)": last OFMAP DRAM write cycle minus the first
  /// IFMAP/FILTER DRAM read cycle.
  std::int64_t cycles_incl_prefetch = 0;
};

/// Simulates one layer with SCALE-Sim v2's semantics. Throws WorkloadError for shapes SCALE-Sim
/// cannot run (a filter larger than the input, non-positive sizes).
LayerResult simulate_layer(const ArrayConfig& arch, const ConvLayer& layer);

/// Checks the shape; throws WorkloadError naming the field.
void validate_layer(const ConvLayer& layer);

/// Python's float-to-text (repr): what SCALE-Sim's reports print, e.g. "100.0", "84.991".
std::string python_float(double v);

}  // namespace systole::models::scalesim
