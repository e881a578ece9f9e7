#pragma once
// Configuration of the HBM main memory: which model times it (bank level or bandwidth/latency),
// the device generation preset (organisation and JEDEC-style timings, overridable key by key),
// the memory controller (address mapping, scheduler, page policy, queues, refresh) and the
// fixed interface latency. Timings are in memory-clock cycles (tCK).

#include <cstdint>
#include <string>

#include "sim/config/schema.h"

namespace systole::models {

enum class HbmModel { kBank, kBandwidth };
enum class HbmPreset { kHbm2, kHbm2e, kHbm3, kHbm3e, kDdr3_2133 };
enum class PagePolicy { kOpen, kClosed };
enum class SchedulerKind { kFrFcfs, kFcfs };
enum class RefreshKind { kAllBank, kNone };
enum class AddressHash { kXor, kMix, kNone };

const char* hbm_preset_name(HbmPreset p);

/// The `hbm` section, presets applied; timings in memory-clock cycles.
struct HbmConfig {
  HbmModel model = HbmModel::kBank;
  HbmPreset preset = HbmPreset::kHbm2;
  std::int64_t stacks = 0;
  Bytes capacity{0};
  BytesPerSecond bandwidth{0};  ///< peak; derived from the organisation unless given
  Picoseconds latency{0};       ///< fixed latency outside the DRAM timing (interface, network)
  double efficiency = 1.0;      ///< bandwidth model: sustained fraction of peak

  // Organisation (per stack); filled by the preset.
  std::int64_t channels = 0;         ///< channels per stack
  std::int64_t pseudo_channels = 0;  ///< pseudo-channels per channel (independent data buses)
  std::int64_t channel_width = 0;    ///< data bits per channel (split over its pseudo-channels)
  std::int64_t bank_groups = 0;      ///< per pseudo-channel
  std::int64_t banks_per_group = 0;
  std::int64_t columns = 0;          ///< column (burst) addresses per row
  std::int64_t burst_length = 0;     ///< beats per column access
  std::int64_t beats_per_clock = 0;  ///< data beats per memory clock (2: DDR on CK; 4: HBM3)
  double data_rate = 0;              ///< Mb/s per pin
  std::int64_t command_buses = 0;    ///< per channel: 2, row and column (HBM); 1, shared (DDR3)

  // Timings in memory-clock cycles (tCK = beats_per_clock / data_rate).
  std::int64_t t_cl = 0, t_cwl = 0, t_rcd_rd = 0, t_rcd_wr = 0, t_rp = 0, t_ras = 0, t_rc = 0,
               t_wr = 0, t_rtp = 0, t_ccd_s = 0, t_ccd_l = 0, t_rrd_s = 0, t_rrd_l = 0, t_faw = 0,
               t_wtr_s = 0, t_wtr_l = 0, t_refi = 0, t_rfc = 0, t_btr = 0;

  // Controller.
  std::string address_mapping;  ///< fields MSB -> LSB above the interleave block
  Bytes interleave{0};          ///< contiguous bytes mapped to one channel and row
  AddressHash address_hash = AddressHash::kXor;
  PagePolicy page_policy = PagePolicy::kOpen;
  SchedulerKind scheduler = SchedulerKind::kFrFcfs;
  RefreshKind refresh = RefreshKind::kAllBank;
  std::int64_t read_queue = 0, write_queue = 0;
  /// Transfers a requester may have accepted and not yet completed (its acceptance queue).
  std::int64_t transfer_queue = 0;
  double write_drain_high = 0,
         write_drain_low = 0;  ///< write-queue fill that starts / ends a drain

  // Set while loading: which derived values the user gave explicitly.
  bool data_rate_given = false;
  bool bandwidth_given = false;

  /// The organisation and timings of a preset with every other field at its schema default.
  static HbmConfig from_preset(HbmPreset p);
  /// Copies the organisation and timings of `p` into this config.
  void apply_preset(HbmPreset p);
  static const config::SchemaOf<HbmConfig>& schema();

  std::int64_t total_channels() const { return stacks * channels; }
  std::int64_t banks_per_pc() const { return bank_groups * banks_per_group; }
  std::int64_t pc_width_bits() const { return channel_width / pseudo_channels; }
  /// Bytes moved by one column access (one burst on one pseudo-channel).
  std::int64_t atom_bytes() const { return pc_width_bits() / 8 * burst_length; }
  std::int64_t row_bytes() const { return columns * atom_bytes(); }
  /// Rows per bank, from the capacity (may be fractional for a bad capacity: see validation).
  double rows_exact() const;
  std::int64_t rows() const { return static_cast<std::int64_t>(rows_exact()); }
  /// Data-bus cycles of one burst.
  std::int64_t t_bl() const { return burst_length / beats_per_clock; }
  double tck_ps() const { return static_cast<double>(beats_per_clock) * 1e6 / data_rate; }
  /// stacks x channels x width x data rate.
  double organisation_peak() const {
    return static_cast<double>(total_channels() * channel_width) / 8.0 * data_rate * 1e6;
  }
};

}  // namespace systole::models
