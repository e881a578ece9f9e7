#pragma once
// Base of every program-executing SystemC unit (MXU, DMA engine, vector unit). A unit runs its
// queue of ops in order: it waits for each op's dependencies, lets the derived class spend the
// op's occupancy (blocking waits), and retires the op after the returned pipeline latency, so
// the next op may start while the previous one drains (ops retire in order of completion time).
// Time advances only through events. Counters are kept per workload layer (the op's `layer`).

#include <systemc>

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "models/common/program.h"
#include "models/common/scoreboard.h"
#include "models/common/unit_stats.h"
#include "sim/stats/result.h"

namespace systole::models {

class UnitModule : public sc_core::sc_module {
 public:
  UnitModule(const sc_core::sc_module_name& name, std::uint16_t id, std::string kind,
             Scoreboard& board, stats::Trace* trace);

  std::uint16_t id() const { return id_; }
  /// This unit's index in the running program's unit table (Program::units): what its ops'
  /// `unit` says. Set by the netlist when it resolves a program's paths.
  std::uint16_t index() const { return index_; }
  void set_index(std::uint16_t index) { index_ = index; }
  const std::string& unit_kind() const { return kind_; }
  void enqueue(std::uint32_t op) { queue_.push_back(op); }
  /// Starts the program (its ops enqueued, `layers` workload layers): wakes the thread.
  void kick(std::uint32_t layers) {
    layers_.assign(layers, UnitCounters{});
    begin_run(layers);
    work_.notify(sc_core::SC_ZERO_TIME);
  }
  /// Called once the program has finished (time stands at its end).
  virtual void end_run() {}
  const UnitCounters& layer_counters(std::uint32_t layer) const { return layers_[layer]; }
  UnitCounters total_counters() const;

 protected:
  /// Executes `op`: spends its occupancy with wait() and adds it to counters().busy_ps; returns
  /// the remaining latency until the op's result is complete. `deps_done` is when its last
  /// dependency completed.
  virtual sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) = 0;
  /// Called when the unit takes `op` from its queue, before waiting for its dependencies.
  virtual void dequeued(const Op& /*op*/) {}
  /// Called by kick(), at the time the program starts.
  virtual void begin_run(std::uint32_t /*layers*/) {}
  /// Sets a traced op's source and destination memories (TraceEvent::src, dst, places of
  /// `trace`); by default it moves no data between memories.
  virtual void trace_route(const Op& /*op*/, stats::Trace& /*trace*/,
                           stats::TraceEvent& /*e*/) const {}
  UnitCounters& counters(std::uint32_t layer) { return layers_[layer]; }
  const Scoreboard& board() const { return board_; }

 private:
  void run();
  void retire();

  std::uint16_t id_;
  std::uint16_t index_;
  std::string kind_;
  Scoreboard& board_;
  stats::Trace* trace_;
  std::deque<std::uint32_t> queue_;
  std::deque<std::pair<std::uint32_t, sc_core::sc_time>> retiring_;  // op, begin
  std::deque<sc_core::sc_time> retire_at_;
  sc_core::sc_event work_;
  sc_core::sc_event retire_ev_;
  std::vector<UnitCounters> layers_;
};

}  // namespace systole::models
