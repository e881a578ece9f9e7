#include "models/hbm/hbm_module.h"

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"

namespace systole::models {

HbmModule::HbmModule(const sc_core::sc_module_name& name, const HbmConfig& cfg)
    : sc_core::sc_module(name),
      model_(cfg),
      latency_(static_cast<Cycle>(
          std::ceil(static_cast<double>(cfg.latency.value()) / model_.tck_ps() - 1e-9))),
      depth_(static_cast<std::uint32_t>(std::max<std::int64_t>(cfg.transfer_queue, 1))) {
  SYSTOLE_ASSERT(sc_core::sc_get_time_resolution() == sc_core::sc_time(1, sc_core::SC_PS),
                 "the HBM shell converts picoseconds: SystemC's time resolution must be 1 ps");
  SC_HAS_PROCESS(HbmModule);
  SC_METHOD(wake);
  sensitive << wake_ev_;
  dont_initialize();
}

Cycle hbm_cycle_of_ps(std::uint64_t ps, double tck_ps) {
  return static_cast<Cycle>(std::floor((static_cast<double>(ps) + 1e-6) / tck_ps));
}

std::uint64_t hbm_cycle_start_ps(Cycle c, double tck_ps) {
  auto ps = static_cast<std::uint64_t>(std::ceil(static_cast<double>(c) * tck_ps - 1e-6));
  // Where c x tCK is beyond a double's resolution (the 1e-6 terms vanish), the estimate can be
  // a picosecond of cycle c - 1 or past the first of c: step to the first one in c.
  while (hbm_cycle_of_ps(ps, tck_ps) < c) ++ps;
  while (ps > 0 && hbm_cycle_of_ps(ps - 1, tck_ps) >= c) --ps;
  return ps;
}

// SystemC time is in whole picoseconds (hbm_cycle_of_ps, hbm_cycle_start_ps).
Cycle HbmModule::to_cycle(sc_core::sc_time t) const {
  return hbm_cycle_of_ps(t.value(), model_.tck_ps());
}

sc_core::sc_time HbmModule::from_cycle(Cycle c) const {
  return sc_core::sc_time::from_value(
      static_cast<sc_dt::uint64>(hbm_cycle_start_ps(c, model_.tck_ps())));
}

HbmModule::Requester& HbmModule::requester(const MemoryTransfer& t) {
  auto& r = requesters_[t.requester];
  if (!r) {
    r = std::make_unique<Requester>();
    r->port = model_.add_port(t.max_outstanding, t.request_bytes, latency_);
  }
  return *r;
}

void HbmModule::sync() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  model_.advance_to(to_cycle(now));
  for (const HbmCompletion& c : model_.take_completed()) {
    SYSTOLE_ASSERT(from_cycle(c.at) == now, "HBM transfer completed between wake-ups");
    Open& o = open_.at(c.id);
    o.done = true;
    --o.requester->accepted;
    o.requester->finished.notify();  // also its retry event: a place of its queue freed
    if (--active_ == 0) busy_ps_ += static_cast<double>(now.value()) - busy_since_ps_;
    ++transfers_;
  }
}

void HbmModule::reschedule() {
  wake_ev_.cancel();
  const Cycle b = model_.next_completion_bound();
  if (b == kNever) return;
  wake_ev_.notify(from_cycle(b) - sc_core::sc_time_stamp());
}

void HbmModule::wake() {
  ++wakeups_;
  sync();
  reschedule();
}

std::uint64_t HbmModule::try_begin(const MemoryTransfer& t) {
  sync();
  Requester& r = requester(t);
  if (r.accepted >= depth_) {
    ++refusals_;  // retried when one of its transfers completes (sync notifies `finished`)
    reschedule();
    return kRefused;
  }
  ++r.accepted;
  (t.write ? written_ : read_) += t.bytes();
  if (active_++ == 0) busy_since_ps_ = static_cast<double>(sc_core::sc_time_stamp().value());
  const TransferId id = model_.submit(r.port, t.desc, t.write);
  open_[id] = {&r, false};
  sync();  // an empty transfer completes at once
  reschedule();
  return id;
}

const sc_core::sc_event& HbmModule::retry_event(std::uint16_t requester) const {
  const auto it = requesters_.find(requester);
  return it == requesters_.end() ? never_ : it->second->finished;
}

sc_core::sc_time HbmModule::finish(std::uint64_t h) {
  const auto it = open_.find(h);
  SYSTOLE_ASSERT(it != open_.end(), "HBM finish() of an unknown transfer");
  while (!it->second.done) sc_core::wait(it->second.requester->finished);
  open_.erase(it);
  return sc_core::SC_ZERO_TIME;  // its data has arrived: the latency was inside the window
}

MemoryCounters HbmModule::counters() const {
  double busy = busy_ps_;
  if (active_) busy += static_cast<double>(sc_core::sc_time_stamp().value()) - busy_since_ps_;
  return {read_, written_, busy, model_.config().bandwidth.value()};
}

}  // namespace systole::models
