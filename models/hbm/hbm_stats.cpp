#include "models/hbm/hbm_stats.h"

#include <fmt/format.h>

#include "models/hbm/hbm_timing.h"

namespace systole::models {

stats::Table hbm_channel_table(const HbmTiming& hbm) {
  const HbmConfig& cfg = hbm.config();
  const double now = static_cast<double>(hbm.now());
  const double seconds = now * hbm.tck_ps() * 1e-12;
  const auto atom = static_cast<double>(cfg.atom_bytes());
  const auto pcs = static_cast<double>(cfg.pseudo_channels);
  const double banks = pcs * static_cast<double>(cfg.banks_per_pc());
  const double channel_peak = cfg.organisation_peak() / static_cast<double>(cfg.total_channels());
  stats::Table t("hbm_channel", "one row per HBM channel (bank-level model), whole run");
  for (std::size_t c = 0; c < hbm.channels(); ++c) {
    const HbmChannelStats s = hbm.controller(c).stats(hbm.now());
    const double rd = static_cast<double>(s.read_bursts) * atom;
    const double wr = static_cast<double>(s.write_bursts) * atom;
    const double requests = static_cast<double>(s.reads + s.writes);
    const double refresh_cycles = static_cast<double>(s.refreshes * cfg.t_rfc);
    const auto per = [&](double v) { return now > 0 ? v / now : 0.0; };
    stats::Record r;
    r.s("name", "channel", fmt::format("stack{}.ch{}", c / cfg.channels, c % cfg.channels))
        .i("bytes_read", "B", "bytes read (bursts x burst bytes)", static_cast<std::int64_t>(rd))
        .i("bytes_written", "B", "bytes written", static_cast<std::int64_t>(wr))
        .i("reads", "", "read requests", static_cast<std::int64_t>(s.reads))
        .i("writes", "", "write requests", static_cast<std::int64_t>(s.writes))
        .i("activates", "", "row activations", static_cast<std::int64_t>(s.activates))
        .f("row_hit_rate", "", "requests served from an already open row: 1 - activates / requests",
           requests > 0 ? std::max(0.0, 1.0 - static_cast<double>(s.activates) / requests) : 0.0)
        .f("bank_utilization", "", "fraction of bank time with a row open or precharging",
           per(static_cast<double>(s.bank_busy_cycles) / banks))
        .f("data_bus_utilization", "", "fraction of pseudo-channel data-bus time moving data",
           per(static_cast<double>((s.read_bursts + s.write_bursts) * cfg.t_bl()) / pcs))
        .f("read_queue_occupancy", "requests", "mean read requests queued (both pseudo-channels)",
           per(s.read_queue_area))
        .f("write_queue_occupancy", "requests", "mean write requests queued (both pseudo-channels)",
           per(s.write_queue_area))
        .i("refreshes", "", "all-bank refreshes (per pseudo-channel, summed)",
           static_cast<std::int64_t>(s.refreshes))
        .i("refresh_cycles", "tCK",
           "memory-clock cycles pseudo-channels spent refreshing (tRFC each)",
           static_cast<std::int64_t>(refresh_cycles))
        .f("refresh_time", "s", "time pseudo-channels spent refreshing",
           refresh_cycles * hbm.tck_ps() * 1e-12)
        .f("bandwidth", "B/s", "achieved bandwidth over the run",
           seconds > 0 ? (rd + wr) / seconds : 0.0)
        .f("utilization", "", "achieved / peak bandwidth of the channel",
           seconds > 0 ? (rd + wr) / seconds / channel_peak : 0.0);
    t.append(r);
  }
  return t;
}

}  // namespace systole::models
