#include "models/common/unit_module.h"

#include <algorithm>

namespace systole::models {

UnitModule::UnitModule(const sc_core::sc_module_name& name, std::uint16_t id, std::string kind,
                       Scoreboard& board, stats::Trace* trace)
    : sc_core::sc_module(name),
      id_(id),
      index_(id),
      kind_(std::move(kind)),
      board_(board),
      trace_(trace) {
  SC_HAS_PROCESS(UnitModule);
  SC_THREAD(run);
  SC_METHOD(retire);
  sensitive << retire_ev_;
  dont_initialize();
}

UnitCounters UnitModule::total_counters() const {
  UnitCounters t;
  for (const auto& l : layers_) t.add(l);
  return t;
}

void UnitModule::run() {
  for (;;) {
    while (queue_.empty()) sc_core::wait(work_);
    const std::uint32_t op_index = queue_.front();
    queue_.pop_front();
    const Op& op = board_.program().ops[op_index];
    dequeued(op);
    const sc_core::sc_time asked = sc_core::sc_time_stamp();
    const sc_core::sc_time deps_done = board_.wait_deps(op_index);
    const sc_core::sc_time begin = sc_core::sc_time_stamp();
    board_.began(op_index);
    layers_[op.layer].stall_ps += (begin - asked).to_seconds() * 1e12;
    const sc_core::sc_time latency = execute(op, deps_done);
    ++layers_[op.layer].ops;
    // Keep the retire queue sorted by time (a short op may finish before a long one ahead of
    // it); re-arm the event when the new op retires first.
    const sc_core::sc_time at = sc_core::sc_time_stamp() + latency;
    const auto pos = std::upper_bound(retire_at_.begin(), retire_at_.end(), at);
    const bool first = pos == retire_at_.begin();
    retiring_.emplace(retiring_.begin() + (pos - retire_at_.begin()), op_index, begin);
    retire_at_.insert(pos, at);
    if (first) retire_ev_.notify(latency);
  }
}

void UnitModule::retire() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!retiring_.empty() && retire_at_.front() <= now) {
    const auto [op_index, begin] = retiring_.front();
    retiring_.pop_front();
    retire_at_.pop_front();
    board_.complete(op_index);
    if (trace_ && trace_->enabled) {
      const Op& op = board_.program().ops[op_index];
      stats::TraceEvent e;
      // Times in picoseconds here; the chip converts them to cycles when it collects the trace.
      e.begin = static_cast<std::uint64_t>(begin.value());
      e.end = static_cast<std::uint64_t>(now.value());
      e.bytes = op.bytes;
      e.unit = index_;
      e.layer = op.layer;
      e.instance = op.instance;
      e.kind = static_cast<std::uint16_t>(op.kind);
      trace_route(op, *trace_, e);
      trace_->events.push_back(e);
    }
  }
  if (!retire_at_.empty()) retire_ev_.notify(retire_at_.front() - now);
}

}  // namespace systole::models
