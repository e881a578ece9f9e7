// HBM device presets: organisation and timings of one generation, as data. Every number cites
// ../shared/reference/FACTS.md §D and the simulator configuration it was read from there:
//   [RAM2-HBM2]  CMU-SAFARI/ramulator2 python/ramulator/dram/hbm2.py (JESD235 presets)
//   [RAM2-HBM3]  CMU-SAFARI/ramulator2 python/ramulator/dram/hbm3.py (JESD238 Table 4 presets)
//   [DRAMSIM3-HBM2] umd-memsys/DRAMsim3 configs/HBM2_8Gb_x128.ini (cross-check)
//   [MLENG]      stas00/ml-engineering HBM generations table (data rates per generation)
//   [TPU1]       N. P. Jouppi et al., "In-Datacenter Performance Analysis of a Tensor Processing
//                Unit", ISCA 2017 (arXiv:1704.04760)
//   [RAM2-DDR3]  CMU-SAFARI/ramulator2 src/dram/impl/DDR3.cpp (commit 1fb94b8): JEDEC DDR3
//                speed bins, organisations, tRRD/tFAW by width, tRFC by density
// Timings are memory-clock cycles (tCK). Where a generation has no simulator preset (HBM2E,
// HBM3E), the core timings in nanoseconds of the previous generation are converted to the new
// tCK with ceil(ns / tCK): JEDEC core timings stay roughly constant in nanoseconds across speed
// bins, the cycle counts grow. Those presets are marked "derived".
#include "models/hbm/hbm_config.h"

namespace systole::models {

namespace {

// The HBM generations: 2 pseudo-channels, 4 bank groups x 4 banks, 32 column bursts x 32 B =
// 1 KiB rows per pseudo-channel bank; separate row and column command buses (JESD235 /
// JESD238: an HBM channel takes a row and a column command in the same clock).
void organisation(HbmConfig& c, std::int64_t channels, std::int64_t width, std::int64_t bl,
                  std::int64_t beats, double rate, std::int64_t pcs = 2, std::int64_t groups = 4,
                  std::int64_t banks = 4, std::int64_t columns = 32, std::int64_t buses = 2) {
  c.command_buses = buses;
  c.channels = channels;
  c.pseudo_channels = pcs;
  c.channel_width = width;
  c.bank_groups = groups;
  c.banks_per_group = banks;
  c.columns = columns;
  c.burst_length = bl;
  c.beats_per_clock = beats;
  c.data_rate = rate;
}

// HBM2, 2.4 Gb/s: [RAM2-HBM2] timing preset HBM2_2400Mbps (tCK 0.833 ns) and org HBM2_4Gb
// (4 Gb per pseudo-channel: 8 channels x 2 PCs x 4 Gb = 8 GiB per stack, TPU v4's 32 GiB over
// 4 stacks, FACTS.md §A.3); FACTS.md §D "HBM2 Ramulator2 2400 Mbps" column.
void hbm2(HbmConfig& c) {
  organisation(c, 8, 128, 4, 2, 2400);  // 8 x 128 bit, 2 PCs x 64 bit, BL4 = 32 B
  c.t_cl = 17;
  c.t_cwl = 6;
  c.t_rcd_rd = 17;
  c.t_rcd_wr = 14;
  c.t_rp = 17;
  c.t_ras = 40;
  c.t_rc = 57;
  c.t_wr = 19;
  c.t_rtp = 6;
  c.t_ccd_s = 2;
  c.t_ccd_l = 4;
  c.t_rrd_s = 5;  // 4 ns
  c.t_rrd_l = 5;  // 4 ns
  c.t_faw = 18;   // 15 ns ("vendor specific"); Ramulator2 rounds tCK to 833 ps and gets 19
  c.t_wtr_s = 8;
  c.t_wtr_l = 10;
  c.t_refi = 4680;  // 3.9 us
  c.t_rfc = 312;    // 260 ns all-bank refresh at 4 Gb per PC ([DRAMSIM3-HBM2] also 260)
  c.t_btr = 2;      // read-to-write bus turnaround: RD->WR = tCL + tBL + 2 - tCWL [RAM2-HBM2]
}

// HBM2E, 3.2 Gb/s (A100 80GB runs 3.19 Gb/s; JESD235C speed, [MLENG]); derived: the HBM2-2400
// timings above in ns, over tCK = 0.625 ns. Cross-check, Accel-Sim's A100 model at 0.661 ns
// (FACTS.md §D): CL/RCD/RP 22, RAS 50, RC 72 -- within a cycle or two of these. tRFC 350 ns:
// 16 Gb dies (8 Gb per PC) per [RAM2-HBM2]'s density table.
void hbm2e(HbmConfig& c) {
  organisation(c, 8, 128, 4, 2, 3200);
  c.t_cl = 23;      // 14.2 ns
  c.t_cwl = 8;      // 5.0 ns
  c.t_rcd_rd = 23;  // 14.2 ns
  c.t_rcd_wr = 19;  // 11.7 ns
  c.t_rp = 23;      // 14.2 ns
  c.t_ras = 54;     // 33.3 ns
  c.t_rc = 77;      // 47.5 ns is 76 cycles; raised to tRAS + tRP after rounding
  c.t_wr = 26;      // 15.8 ns
  c.t_rtp = 8;      // 5.0 ns
  c.t_ccd_s = 2;    // one burst
  c.t_ccd_l = 6;    // 3.3 ns
  c.t_rrd_s = 7;    // 4 ns
  c.t_rrd_l = 7;    // 4 ns
  c.t_faw = 24;     // 15 ns
  c.t_wtr_s = 11;   // 6.7 ns
  c.t_wtr_l = 14;   // 8.3 ns
  c.t_refi = 6240;  // 3.9 us
  c.t_rfc = 560;    // 350 ns
  c.t_btr = 2;
}

// HBM3, 6.4 Gb/s: [RAM2-HBM3] HBM3_6400Mbps (tCK 0.625 ns, CK at a quarter of the data rate),
// FACTS.md §D "HBM3 Ramulator2 6400 Mbps" column; 16 x 64-bit channels, 2 PCs x 32 bit, BL8.
// tRFC 350 ns: 4 Gb per PC (H100's 16 GB stacks) per [RAM2-HBM3]'s density table.
void hbm3(HbmConfig& c) {
  organisation(c, 16, 64, 8, 4, 6400);
  c.t_cl = 20;
  c.t_cwl = 10;
  c.t_rcd_rd = 31;
  c.t_rcd_wr = 15;
  c.t_rp = 26;
  c.t_ras = 45;
  c.t_rc = 72;
  c.t_wr = 33;
  c.t_rtp = 9;
  c.t_ccd_s = 2;
  c.t_ccd_l = 4;
  c.t_rrd_s = 4;
  c.t_rrd_l = 5;
  c.t_faw = 24;
  c.t_wtr_s = 7;
  c.t_wtr_l = 10;
  c.t_refi = 6240;  // 3.9 us
  c.t_rfc = 560;    // 350 ns
  c.t_btr = 2;      // nBTR [RAM2-HBM3]
}

// HBM3E, 9.6 Gb/s ([MLENG]: up to 9.6 Gb/s, ~1.2 TB/s per stack); derived: the HBM3 timings
// above in ns over tCK = 4 / 9.6 GHz = 0.417 ns. tRFC 450 ns: 24 Gb dies (6 Gb per PC).
void hbm3e(HbmConfig& c) {
  organisation(c, 16, 64, 8, 4, 9600);
  c.t_cl = 30;      // 12.5 ns
  c.t_cwl = 15;     // 6.25 ns
  c.t_rcd_rd = 47;  // 19.4 ns
  c.t_rcd_wr = 23;  // 9.4 ns
  c.t_rp = 39;      // 16.3 ns
  c.t_ras = 68;     // 28.1 ns
  c.t_rc = 108;     // 45 ns
  c.t_wr = 50;      // 20.6 ns
  c.t_rtp = 14;     // 5.6 ns
  c.t_ccd_s = 2;    // one burst
  c.t_ccd_l = 6;    // 2.5 ns
  c.t_rrd_s = 6;    // 2.5 ns
  c.t_rrd_l = 8;    // 3.1 ns
  c.t_faw = 36;     // 15 ns
  c.t_wtr_s = 11;   // 4.4 ns
  c.t_wtr_l = 15;   // 6.25 ns
  c.t_refi = 9360;  // 3.9 us
  c.t_rfc = 1080;   // 450 ns
  c.t_btr = 2;
}

// DDR3-2133, one 64-bit channel (a rank of eight x8 chips; `stacks` counts channels), the
// TPU v1 weight memory's interface ([TPU1] Fig. 1: "DDR3-2133 Interfaces"; two channels give
// Table 2's 34 GB/s). [RAM2-DDR3] timing preset DDR3_2133L (tCK 0.937 ns, CL-RCD-RP 12-12-12)
// and organisation DDR3_4Gb_x8 (8 banks, 2^16 rows, 1 KiB page per chip: 8 KiB per rank
// row); no bank groups (tCCD_S = tCCD_L, tRRD_S = tRRD_L, tWTR_S = tWTR_L); tRRD and tFAW are
// its x8 values at 2133; tRFC 260 ns (4 Gb) and tREFI 7.8 us rounded up to whole tCK. tCWL 10
// is JESD79-3's at this speed ([RAM2-DDR3] lists 9 for every bin; TPU v1 never writes it).
void ddr3_2133(HbmConfig& c) {
  // One 64-bit channel, BL8 at two beats a clock, 2133 MT/s; one pseudo-channel, one bank
  // group of 8 banks, 128 bursts x 64 B = 8 KiB rows; one command bus (JESD79-3: one command
  // a clock on RAS#/CAS#/WE#; [RAM2-DDR3] issues at most one command per channel a cycle).
  organisation(c, 1, 64, 8, 2, 2133, 1, 1, 8, 128, 1);
  c.t_cl = 12;
  c.t_cwl = 10;
  c.t_rcd_rd = 12;
  c.t_rcd_wr = 12;
  c.t_rp = 12;
  c.t_ras = 36;
  c.t_rc = 48;
  c.t_wr = 16;
  c.t_rtp = 8;
  c.t_ccd_s = 4;  // one burst (BL8 at two beats per clock)
  c.t_ccd_l = 4;
  c.t_rrd_s = 6;
  c.t_rrd_l = 6;
  c.t_faw = 27;
  c.t_wtr_s = 8;
  c.t_wtr_l = 8;
  c.t_refi = 8325;  // 7.8 us
  c.t_rfc = 278;    // 260 ns
  c.t_btr = 2;      // RD->WR = tCL + tBL + 2 - tCWL [RAM2-DDR3]
}

}  // namespace

const char* hbm_preset_name(HbmPreset p) {
  switch (p) {
    case HbmPreset::kHbm2:
      return "hbm2";
    case HbmPreset::kHbm2e:
      return "hbm2e";
    case HbmPreset::kHbm3:
      return "hbm3";
    case HbmPreset::kHbm3e:
      return "hbm3e";
    case HbmPreset::kDdr3_2133:
      return "ddr3_2133";
  }
  return "?";
}

void HbmConfig::apply_preset(HbmPreset p) {
  preset = p;
  switch (p) {
    case HbmPreset::kHbm2:
      hbm2(*this);
      break;
    case HbmPreset::kHbm2e:
      hbm2e(*this);
      break;
    case HbmPreset::kHbm3:
      hbm3(*this);
      break;
    case HbmPreset::kHbm3e:
      hbm3e(*this);
      break;
    case HbmPreset::kDdr3_2133:
      ddr3_2133(*this);
      break;
  }
}

}  // namespace systole::models
