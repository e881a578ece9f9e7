#include "models/hbm/hbm_stats.h"

#include <fmt/format.h>

#include <algorithm>

#include "models/hbm/hbm_timing.h"

namespace systole::models {

namespace {

/// One channel's stats; `channel` indexes the model's controllers.
void declare_channel(stats::StatGroup& g, std::function<const HbmTiming&()> timing,
                     std::size_t channel) {
  using stats::ColumnType;
  // Every stat reads the channel's counters and the run's length through `with`.
  struct View {
    const HbmConfig& cfg;
    HbmChannelStats s;
    double now;
    double seconds;
    double per(double v) const { return now > 0 ? v / now : 0.0; }
    double atom() const { return static_cast<double>(cfg.atom_bytes()); }
    double rd() const { return static_cast<double>(s.read_bursts) * atom(); }
    double wr() const { return static_cast<double>(s.write_bursts) * atom(); }
    double refresh_cycles() const { return static_cast<double>(s.refreshes * cfg.t_rfc); }
  };
  const auto with = [timing, channel](auto f) {
    return [timing, channel, f](std::size_t) -> stats::Cell {
      const HbmTiming& hbm = timing();
      const double now = static_cast<double>(hbm.now());
      return f(View{hbm.config(), hbm.controller(channel).stats(hbm.now()), now,
                    now * hbm.tck_ps() * 1e-12},
               hbm);
    };
  };
  const auto run = [](const char* name, const char* unit, const char* desc,
                      ColumnType t = ColumnType::kInt) {
    return stats::StatInfo{name, unit, desc, t, stats::StatScope::kRunOnly};
  };
  const auto i64 = [](auto v) { return static_cast<std::int64_t>(v); };
  g.formula(run("bytes_read", "B", "bytes read (bursts x burst bytes)"),
            with([=](const View& v, const HbmTiming&) { return i64(v.rd()); }));
  g.formula(run("bytes_written", "B", "bytes written"),
            with([=](const View& v, const HbmTiming&) { return i64(v.wr()); }));
  g.formula(run("reads", "", "read requests"),
            with([=](const View& v, const HbmTiming&) { return i64(v.s.reads); }));
  g.formula(run("writes", "", "write requests"),
            with([=](const View& v, const HbmTiming&) { return i64(v.s.writes); }));
  g.formula(run("activates", "", "row activations"),
            with([=](const View& v, const HbmTiming&) { return i64(v.s.activates); }));
  g.formula(
      run("row_hit_rate", "", "requests served from an already open row: 1 - activates / requests",
          ColumnType::kFloat),
      with([](const View& v, const HbmTiming&) {
        const double requests = static_cast<double>(v.s.reads + v.s.writes);
        return requests > 0 ? std::max(0.0, 1.0 - static_cast<double>(v.s.activates) / requests)
                            : 0.0;
      }));
  g.formula(run("bank_utilization", "", "fraction of bank time with a row open or precharging",
                ColumnType::kFloat),
            with([](const View& v, const HbmTiming&) {
              const double banks = static_cast<double>(v.cfg.pseudo_channels) *
                                   static_cast<double>(v.cfg.banks_per_pc());
              return v.per(static_cast<double>(v.s.bank_busy_cycles) / banks);
            }));
  g.formula(
      run("data_bus_utilization", "", "fraction of pseudo-channel data-bus time moving data",
          ColumnType::kFloat),
      with([](const View& v, const HbmTiming&) {
        return v.per(static_cast<double>((v.s.read_bursts + v.s.write_bursts) * v.cfg.t_bl()) /
                     static_cast<double>(v.cfg.pseudo_channels));
      }));
  g.formula(run("read_queue_occupancy", "requests",
                "mean read requests queued (both pseudo-channels)", ColumnType::kFloat),
            with([](const View& v, const HbmTiming&) { return v.per(v.s.read_queue_area); }));
  g.formula(run("write_queue_occupancy", "requests",
                "mean write requests queued (both pseudo-channels)", ColumnType::kFloat),
            with([](const View& v, const HbmTiming&) { return v.per(v.s.write_queue_area); }));
  g.formula(run("refreshes", "", "all-bank refreshes (per pseudo-channel, summed)"),
            with([=](const View& v, const HbmTiming&) { return i64(v.s.refreshes); }));
  g.formula(run("refresh_cycles", "tCK",
                "memory-clock cycles pseudo-channels spent refreshing (tRFC each)"),
            with([=](const View& v, const HbmTiming&) { return i64(v.refresh_cycles()); }));
  g.formula(run("refresh_time", "s", "time pseudo-channels spent refreshing", ColumnType::kFloat),
            with([](const View& v, const HbmTiming& hbm) {
              return v.refresh_cycles() * hbm.tck_ps() * 1e-12;
            }));
  g.formula(run("bandwidth", "B/s", "achieved bandwidth over the run", ColumnType::kFloat),
            with([](const View& v, const HbmTiming&) {
              return v.seconds > 0 ? (v.rd() + v.wr()) / v.seconds : 0.0;
            }));
  g.formula(run("utilization", "", "achieved / peak bandwidth of the channel", ColumnType::kFloat),
            with([](const View& v, const HbmTiming&) {
              const double peak =
                  v.cfg.organisation_peak() / static_cast<double>(v.cfg.total_channels());
              return v.seconds > 0 ? (v.rd() + v.wr()) / v.seconds / peak : 0.0;
            }));
}

}  // namespace

void declare_hbm_channel_stats(stats::StatGroup& hbm, const HbmConfig& cfg,
                               std::function<const HbmTiming&()> timing, bool pattern) {
  if (pattern) {
    declare_channel(hbm.group("stack<s>", "hbm_stack").group("ch<c>", "hbm_channel"), timing, 0);
    return;
  }
  for (std::int64_t st = 0; st < cfg.stacks; ++st) {
    stats::StatGroup& stack = hbm.group(fmt::format("stack{}", st), "hbm_stack");
    for (std::int64_t ch = 0; ch < cfg.channels; ++ch)
      declare_channel(stack.group(fmt::format("ch{}", ch), "hbm_channel"), timing,
                      static_cast<std::size_t>(st * cfg.channels + ch));
  }
}

}  // namespace systole::models
