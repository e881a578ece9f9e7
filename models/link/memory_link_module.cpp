#include "models/link/memory_link_module.h"

#include "sim/core/error.h"

namespace systole::models {

MemoryLinkModule::MemoryLinkModule(const sc_core::sc_module_name& name, const MemoryLinkConfig& cfg)
    : sc_core::sc_module(name), memory("memory"), cfg_(cfg) {
  SYSTOLE_ASSERT(cfg.depth >= 1, "a memory link needs a FIFO of at least one transfer");
  SC_HAS_PROCESS(MemoryLinkModule);
  SC_THREAD(forward);
}

std::uint64_t MemoryLinkModule::try_begin(const MemoryTransfer& t) {
  if (fifo_.size() >= static_cast<std::size_t>(cfg_.depth)) {
    ++refusals_;  // retried when the head leaves for the memory
    return kRefused;
  }
  const std::uint64_t h = next_++;
  Entry& e = open_[h];
  e.t = t;
  e.ready = sc_core::sc_time_stamp() +
            sc_core::sc_time(static_cast<double>(cfg_.latency.value()), sc_core::SC_PS);
  // Nothing ahead of it and no time to spend: straight to the memory, in the caller's call.
  if (fifo_.empty() && e.ready == sc_core::sc_time_stamp()) {
    e.down = memory->try_begin(t);
    e.sent = e.down != kRefused;
  }
  if (e.sent) {
    ++forwarded_;
  } else {
    fifo_.push_back(h);
    queued_.notify();
  }
  return h;
}

const sc_core::sc_event& MemoryLinkModule::retry_event(std::uint16_t /*requester*/) const {
  return retry_;  // one FIFO for all requesters
}

void MemoryLinkModule::forward() {
  for (;;) {
    while (fifo_.empty()) sc_core::wait(queued_);
    Entry& e = open_.at(fifo_.front());
    if (e.ready > sc_core::sc_time_stamp()) sc_core::wait(e.ready - sc_core::sc_time_stamp());
    const sc_core::sc_time offered = sc_core::sc_time_stamp();
    e.down = memory->begin(e.t);  // waits while the memory refuses it
    held_ps_ += static_cast<double>((sc_core::sc_time_stamp() - offered).value());
    e.sent = true;
    ++forwarded_;
    fifo_.pop_front();
    sent_.notify();
    retry_.notify();  // a place of the FIFO freed
  }
}

sc_core::sc_time MemoryLinkModule::finish(std::uint64_t h) {
  const auto it = open_.find(h);
  SYSTOLE_ASSERT(it != open_.end(), "memory link finish() of an unknown transfer");
  while (!it->second.sent) sc_core::wait(sent_);
  const std::uint64_t down = it->second.down;
  open_.erase(it);
  return memory->finish(down);
}

}  // namespace systole::models
