#pragma once
// Base of every program-executing SystemC unit (MXU, DMA engine). A unit runs its queue of ops
// in order: it waits for each op's dependencies, lets the derived class spend the op's
// occupancy (blocking waits), and retires the op after the returned pipeline latency, so the
// next op may start while the previous one drains (ops retire in order of completion time).
// Time advances only through events.

#include <systemc>

#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "models/common/program.h"
#include "models/common/scoreboard.h"
#include "sim/stats/result.h"

namespace systole::models {

/// Per-unit counters, reset per layer by the owner (it keeps the running totals).
struct UnitCounters {
  double busy_ps = 0;   ///< occupancy (for an MXU: streaming, not waiting for weights)
  double stall_ps = 0;  ///< waiting on dependencies with work queued
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  void add(const UnitCounters& o) {
    busy_ps += o.busy_ps;
    stall_ps += o.stall_ps;
    ops += o.ops;
    bytes += o.bytes;
  }
};

class UnitModule : public sc_core::sc_module {
 public:
  UnitModule(const sc_core::sc_module_name& name, std::uint16_t id, std::string kind,
             Scoreboard& board, stats::Trace* trace);

  std::uint16_t id() const { return id_; }
  const std::string& unit_kind() const { return kind_; }
  void enqueue(std::uint32_t op) { queue_.push_back(op); }
  /// Starts the next layer (or repetition of one): wakes the thread.
  void kick(std::uint32_t layer) {
    layer_index_ = layer;
    begin_layer();
    work_.notify(sc_core::SC_ZERO_TIME);
  }
  const UnitCounters& layer_counters() const { return layer_; }
  const UnitCounters& total_counters() const { return total_; }
  /// Folds the layer counters into the totals and clears them.
  virtual void end_layer();

 protected:
  /// Executes `op`: spends its occupancy with wait() and adds it to counters().busy_ps; returns
  /// the remaining latency until the op's result is complete. `deps_done` is when its last
  /// dependency completed.
  virtual sc_core::sc_time execute(const Op& op, sc_core::sc_time deps_done) = 0;
  /// Called when the unit takes `op` from its queue, before waiting for its dependencies.
  virtual void dequeued(const Op& /*op*/) {}
  /// Called by kick(), at the time the layer starts.
  virtual void begin_layer() {}
  UnitCounters& counters() { return layer_; }
  const Scoreboard& board() const { return board_; }

 private:
  void run();
  void retire();

  std::uint16_t id_;
  std::string kind_;
  Scoreboard& board_;
  stats::Trace* trace_;
  std::deque<std::uint32_t> queue_;
  std::deque<std::pair<std::uint32_t, sc_core::sc_time>> retiring_;  // op, begin
  std::deque<sc_core::sc_time> retire_at_;
  sc_core::sc_event work_;
  sc_core::sc_event retire_ev_;
  std::uint32_t layer_index_ = 0;
  UnitCounters layer_{};
  UnitCounters total_{};
};

}  // namespace systole::models
