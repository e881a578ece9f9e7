#include "models/common/timed_memory_module.h"

#include <cmath>

namespace systole::models {

TimedMemoryModule::TimedMemoryModule(const sc_core::sc_module_name& name, std::uint32_t depth)
    : sc_core::sc_module(name), depth_(depth) {}

TimedMemoryModule::Port& TimedMemoryModule::port(const MemoryTransfer& t) {
  auto& p = ports_[t.requester];
  if (!p) p = std::make_unique<Port>(t.max_outstanding, t.request_bytes, depth_);
  return *p;
}

std::uint64_t TimedMemoryModule::try_begin(const MemoryTransfer& t) {
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  Port& p = port(t);
  if (!p.queue.has_room(now)) {
    // A place frees when the earliest accepted transfer's data has arrived (whole picoseconds,
    // as finish() rounds).
    ++refusals_;
    p.retry.notify(sc_core::sc_time(std::ceil(p.queue.next_free_ps()) - now, sc_core::SC_PS));
    return kRefused;
  }
  const double done = accept(t, now, p.window);
  p.queue.accept(done);
  pending_[next_] = done;
  return next_++;
}

const sc_core::sc_event& TimedMemoryModule::retry_event(std::uint16_t requester) const {
  const auto it = ports_.find(requester);
  return it == ports_.end() ? never_ : it->second->retry;
}

sc_core::sc_time TimedMemoryModule::finish(std::uint64_t h) {
  const double done = pending_.at(h);
  pending_.erase(h);
  // Round up to whole picoseconds so a transfer never finishes early.
  const double now = static_cast<double>(sc_core::sc_time_stamp().value());
  const double until = std::ceil(done);
  if (until > now) sc_core::wait(sc_core::sc_time(until - now, sc_core::SC_PS));
  return sc_core::SC_ZERO_TIME;  // its data has arrived: the latency was inside the window
}

}  // namespace systole::models
