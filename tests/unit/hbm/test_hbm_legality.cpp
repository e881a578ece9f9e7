// Timing legality of the HBM device, as Ramulator 2.1's device-timing tests do it: issue a
// command at cycle t0, probe the earliest legal cycle of the next one, and assert that it is t0
// plus what the named parameter requires (and that one cycle earlier is illegal). Every case
// runs on a synthetic device whose parameters all differ, so a rule that used the wrong
// parameter cannot pass, and again on each preset (FACTS.md §D).
#include <catch2/catch.hpp>

#include "models/hbm/hbm_device.h"

using namespace systole::models;

namespace {

// Distinct values: no two rules can be confused (4 x tRRD_S < tFAW, tRC > tRAS + tRP,
// tCCD_S > tBL).
HbmConfig distinct() {
  HbmConfig c = HbmConfig::from_preset(HbmPreset::kHbm2);
  c.t_cl = 11;
  c.t_cwl = 5;
  c.t_rcd_rd = 13;
  c.t_rcd_wr = 9;
  c.t_rp = 12;
  c.t_ras = 31;
  c.t_rc = 47;
  c.t_wr = 14;
  c.t_rtp = 7;
  c.t_ccd_s = 3;
  c.t_ccd_l = 6;
  c.t_rrd_s = 4;
  c.t_rrd_l = 8;
  c.t_faw = 29;
  c.t_wtr_s = 15;
  c.t_wtr_l = 19;
  c.t_refi = 3000;
  c.t_rfc = 250;
  c.t_btr = 1;
  return c;
}

struct Case {
  const char* name;
  HbmConfig cfg;
};

std::vector<Case> devices() {
  return {{"distinct", distinct()},
          {"hbm2", HbmConfig::from_preset(HbmPreset::kHbm2)},
          {"hbm2e", HbmConfig::from_preset(HbmPreset::kHbm2e)},
          {"hbm3", HbmConfig::from_preset(HbmPreset::kHbm3)},
          {"hbm3e", HbmConfig::from_preset(HbmPreset::kHbm3e)}};
}

/// Asserts that `c` to `target` is legal from exactly `expected`, not a cycle before.
void expect_earliest(const HbmDevice& d, HbmCommand c, std::uint32_t target, Cycle expected) {
  INFO(hbm_command_name(c) << " to " << target);
  CHECK(d.earliest(c, target) == expected);
  CHECK(d.earliest(c, target) > expected - 1);
}

constexpr Cycle t0 = 1000;  // late enough that the power-up state constrains nothing

}  // namespace

TEST_CASE("HBM legality: bank-level rules (tRCD, tRAS, tRP, tRC, tRTP, tWR)", "[unit][hbm]") {
  for (const auto& [name, cfg] : devices()) {
    INFO(name);
    const HbmTimingParams p(cfg);
    HbmDevice d(cfg);
    const std::uint32_t b = d.bank_index(0, 0, 0);
    d.issue(HbmCommand::kAct, b, 7, t0);
    expect_earliest(d, HbmCommand::kRead, b, t0 + cfg.t_rcd_rd);   // tRCD (read)
    expect_earliest(d, HbmCommand::kWrite, b, t0 + cfg.t_rcd_wr);  // tRCD (write)
    expect_earliest(d, HbmCommand::kPre, b, t0 + cfg.t_ras);       // tRAS
    CHECK(d.earliest(HbmCommand::kAct, b) == kNever);              // the bank is open

    // tRC: precharge as early as tRAS allows; the next activate waits for tRC (which covers
    // tRAS + tRP on every device here: tRC >= tRAS + tRP is validated).
    d.issue(HbmCommand::kPre, b, 0, t0 + cfg.t_ras);
    expect_earliest(d, HbmCommand::kAct, b, t0 + cfg.t_rc);
    if (name == std::string("distinct")) CHECK(cfg.t_rc > cfg.t_ras + cfg.t_rp);

    // tRP: a precharge late enough that tRC is long satisfied.
    HbmDevice d2(cfg);
    d2.issue(HbmCommand::kAct, b, 3, t0);
    d2.issue(HbmCommand::kPre, b, 0, t0 + 2 * cfg.t_rc);
    expect_earliest(d2, HbmCommand::kAct, b, t0 + 2 * cfg.t_rc + cfg.t_rp);

    // tRTP: read to precharge, tRAS long satisfied.
    HbmDevice d3(cfg);
    d3.issue(HbmCommand::kAct, b, 1, t0);
    const Cycle rd = t0 + 2 * cfg.t_ras;
    d3.issue(HbmCommand::kRead, b, 0, rd);
    expect_earliest(d3, HbmCommand::kPre, b, rd + cfg.t_rtp);

    // tWR: write to precharge = tCWL + tBL + tWR.
    HbmDevice d4(cfg);
    d4.issue(HbmCommand::kAct, b, 1, t0);
    const Cycle wr = t0 + 2 * cfg.t_ras;
    d4.issue(HbmCommand::kWrite, b, 0, wr);
    expect_earliest(d4, HbmCommand::kPre, b, wr + cfg.t_cwl + p.bl + cfg.t_wr);
  }
}

TEST_CASE("HBM legality: auto-precharge closes the bank after tRTP / tWR", "[unit][hbm]") {
  for (const auto& [name, cfg] : devices()) {
    INFO(name);
    const HbmTimingParams p(cfg);
    HbmDevice d(cfg);
    const std::uint32_t b = d.bank_index(0, 0, 0), c = d.bank_index(0, 1, 0);
    d.issue(HbmCommand::kAct, b, 1, t0);
    d.issue(HbmCommand::kAct, c, 1, t0 + cfg.t_rrd_s);
    const Cycle rd = t0 + 2 * cfg.t_rc;  // tRAS and tRC long satisfied
    d.issue(HbmCommand::kReadAp, b, 0, rd);
    CHECK_FALSE(d.is_open(b));
    expect_earliest(d, HbmCommand::kAct, b, rd + cfg.t_rtp + cfg.t_rp);
    const Cycle wr = rd + 100;
    d.issue(HbmCommand::kWriteAp, c, 0, wr);
    expect_earliest(d, HbmCommand::kAct, c, wr + cfg.t_cwl + p.bl + cfg.t_wr + cfg.t_rp);
  }
}

TEST_CASE("HBM legality: activate spacing (tRRD_S, tRRD_L, tFAW)", "[unit][hbm]") {
  for (const auto& [name, cfg] : devices()) {
    INFO(name);
    HbmDevice d(cfg);
    d.issue(HbmCommand::kAct, d.bank_index(0, 0, 0), 1, t0);
    expect_earliest(d, HbmCommand::kAct, d.bank_index(0, 1, 0), t0 + cfg.t_rrd_s);  // tRRD_S
    expect_earliest(d, HbmCommand::kAct, d.bank_index(0, 0, 1),
                    t0 + std::max(cfg.t_rrd_l, cfg.t_rrd_s));  // tRRD_L
    // The other pseudo-channel only shares the row command bus (one command per clock).
    expect_earliest(d, HbmCommand::kAct, d.bank_index(1, 0, 0), t0 + 1);
  }
  // tFAW: four activates at tRRD_S spacing to four bank groups; the fifth waits for the window
  // (on the distinct device 4 x tRRD_S = 16 < tFAW = 29, so tFAW is what binds).
  const HbmConfig cfg = distinct();
  HbmDevice d(cfg);
  for (std::uint32_t g = 0; g < 4; ++g)
    d.issue(HbmCommand::kAct, d.bank_index(0, g, 0), 1, t0 + g * cfg.t_rrd_s);
  expect_earliest(d, HbmCommand::kAct, d.bank_index(0, 1, 1), t0 + cfg.t_faw);
}

TEST_CASE("HBM legality: column spacing (tCCD_S, tCCD_L, tWTR_S, tWTR_L, tCL, tCWL)",
          "[unit][hbm]") {
  for (const auto& [name, cfg] : devices()) {
    INFO(name);
    const HbmTimingParams p(cfg);
    HbmDevice d(cfg);
    const std::uint32_t a = d.bank_index(0, 0, 0), same = d.bank_index(0, 0, 1),
                        other = d.bank_index(0, 1, 0), pc1 = d.bank_index(1, 0, 0);
    d.issue(HbmCommand::kAct, a, 1, t0);
    d.issue(HbmCommand::kAct, pc1, 1, t0 + 1);
    d.issue(HbmCommand::kAct, other, 1, t0 + cfg.t_rrd_l);
    d.issue(HbmCommand::kAct, same, 1, t0 + 2 * cfg.t_rrd_l);
    Cycle t = t0 + 3 * cfg.t_rc;  // every activate's tRCD long satisfied
    d.issue(HbmCommand::kRead, a, 0, t);
    expect_earliest(d, HbmCommand::kRead, other, t + std::max(cfg.t_ccd_s, p.bl));  // tCCD_S
    expect_earliest(d, HbmCommand::kRead, same, t + cfg.t_ccd_l);                   // tCCD_L
    // tCL: the data of a read ends tCL + tBL after it; a write may follow on the same
    // pseudo-channel once the bus has turned around: tCL + tBL + tBTR - tCWL.
    CHECK(d.data_end(HbmCommand::kRead, t) == t + cfg.t_cl + p.bl);
    expect_earliest(d, HbmCommand::kWrite, other, t + cfg.t_cl + p.bl + cfg.t_btr - cfg.t_cwl);

    t += 200;
    d.issue(HbmCommand::kWrite, a, 0, t);
    // tCWL: write data ends tCWL + tBL after the command.
    CHECK(d.data_end(HbmCommand::kWrite, t) == t + cfg.t_cwl + p.bl);
    expect_earliest(d, HbmCommand::kRead, other, t + cfg.t_cwl + p.bl + cfg.t_wtr_s);  // tWTR_S
    expect_earliest(d, HbmCommand::kRead, same, t + cfg.t_cwl + p.bl + cfg.t_wtr_l);   // tWTR_L
    expect_earliest(d, HbmCommand::kWrite, other, t + std::max(cfg.t_ccd_s, p.bl));
    expect_earliest(d, HbmCommand::kWrite, same, t + cfg.t_ccd_l);
    // The other pseudo-channel has its own data bus: only the column command bus is shared.
    expect_earliest(d, HbmCommand::kRead, pc1, t + 1);
  }
}

TEST_CASE("HBM legality: refresh (tRFC, precharge-all before refresh)", "[unit][hbm]") {
  for (const auto& [name, cfg] : devices()) {
    INFO(name);
    HbmDevice d(cfg);
    const std::uint32_t b = d.bank_index(0, 2, 1);
    d.issue(HbmCommand::kAct, b, 1, t0);
    CHECK(d.earliest(HbmCommand::kRefresh, 0) == kNever);  // a bank is open
    expect_earliest(d, HbmCommand::kPreAll, 0, t0 + cfg.t_ras);
    d.issue(HbmCommand::kPreAll, 0, 0, t0 + cfg.t_ras);
    // REF after the activate's tRC and the precharge's tRP.
    expect_earliest(d, HbmCommand::kRefresh, 0, std::max(t0 + cfg.t_ras + cfg.t_rp, t0 + cfg.t_rc));
    const Cycle ref = t0 + 5 * cfg.t_rc;
    d.issue(HbmCommand::kRefresh, 0, 0, ref);
    expect_earliest(d, HbmCommand::kAct, b, ref + cfg.t_rfc);  // tRFC
    expect_earliest(d, HbmCommand::kAct, d.bank_index(0, 0, 0), ref + cfg.t_rfc);
    expect_earliest(d, HbmCommand::kAct, d.bank_index(1, 0, 0), ref + 1);  // other PC: bus only
  }
}

TEST_CASE("HBM legality: one row and one column command per clock on the channel", "[unit][hbm]") {
  const HbmConfig cfg = distinct();
  HbmDevice d(cfg);
  const std::uint32_t a = d.bank_index(0, 0, 0), b = d.bank_index(1, 0, 0);
  d.issue(HbmCommand::kAct, a, 1, t0);
  d.issue(HbmCommand::kAct, b, 1, t0 + 1);
  const Cycle t = t0 + 100;
  d.issue(HbmCommand::kRead, a, 0, t);
  expect_earliest(d, HbmCommand::kRead, b, t + 1);  // column bus
  d.issue(HbmCommand::kPre, b, 0, t);               // the row bus is free in the same clock
  expect_earliest(d, HbmCommand::kAct, d.bank_index(1, 1, 0), t + 1);
}

TEST_CASE("HBM legality: one command bus (command_buses 1) takes one command a clock",
          "[unit][hbm]") {
  for (const HbmConfig& base : {distinct(), HbmConfig::from_preset(HbmPreset::kDdr3_2133)}) {
    HbmConfig cfg = base;
    cfg.command_buses = 1;
    HbmDevice d(cfg);
    const std::uint32_t a = d.bank_index(0, 0, 0), b = d.bank_index(0, 0, 1);
    d.issue(HbmCommand::kAct, a, 1, t0);
    expect_earliest(d, HbmCommand::kRead, a, t0 + cfg.t_rcd_rd);
    d.issue(HbmCommand::kAct, b, 1, t0 + 50);
    const Cycle t = t0 + 100;
    d.issue(HbmCommand::kRead, a, 0, t);
    expect_earliest(d, HbmCommand::kPre, b, t + 1);  // the column command took the bus
    CHECK_THROWS(d.issue(HbmCommand::kPre, b, 0, t));
    // A row command takes the clock a column command could have had: at the first cycle the
    // next read to `a` is legal, a precharge of `b` moves that read one clock later.
    const Cycle free = d.earliest(HbmCommand::kRead, a);
    d.issue(HbmCommand::kPre, b, 0, free);
    expect_earliest(d, HbmCommand::kRead, a, free + 1);
  }
  {  // (with two buses the precharge leaves that read where it was)
    HbmDevice d(distinct());
    const std::uint32_t a = d.bank_index(0, 0, 0), b = d.bank_index(0, 0, 1);
    d.issue(HbmCommand::kAct, a, 1, t0);
    d.issue(HbmCommand::kAct, b, 1, t0 + 50);
    d.issue(HbmCommand::kRead, a, 0, t0 + 100);
    const Cycle free = d.earliest(HbmCommand::kRead, a);
    d.issue(HbmCommand::kPre, b, 0, free);
    expect_earliest(d, HbmCommand::kRead, a, free);
  }
  // The presets: DDR3 has one bus, the HBM generations two.
  CHECK(HbmConfig::from_preset(HbmPreset::kDdr3_2133).command_buses == 1);
  for (const auto& c : devices()) CHECK(c.cfg.command_buses == 2);
}

TEST_CASE("HBM legality: an illegal command is refused", "[unit][hbm]") {
  const HbmConfig cfg = distinct();
  HbmDevice d(cfg);
  const std::uint32_t b = d.bank_index(0, 0, 0);
  d.issue(HbmCommand::kAct, b, 1, t0);
  CHECK_THROWS_WITH(d.issue(HbmCommand::kRead, b, 0, t0 + cfg.t_rcd_rd - 1),
                    Catch::Contains("HBM RD to bank 0 at cycle 1012 is illegal before cycle 1013"));
}
