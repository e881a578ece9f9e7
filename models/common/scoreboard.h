#pragma once
// Completion tracking for a program: which ops are done and when, with one event per unit so a
// waiting unit wakes only when the unit it depends on retires an op, and one event for the
// completion of a whole layer instance (an op's `after`).

#include <systemc>

#include <memory>
#include <vector>

#include "models/common/program.h"

namespace systole::models {

class Scoreboard {
 public:
  void start(const Program* program, size_t n_units);
  const Program& program() const { return *program_; }
  bool done(std::uint32_t op) const { return done_[op]; }
  sc_core::sc_time done_at(std::uint32_t op) const { return done_at_[op]; }
  /// Notes that `op` has begun now (the first begun op of an instance marks its start).
  void began(std::uint32_t op) {
    auto& b = instance_begin_[program_->ops[op].instance];
    if (b < 0) b = static_cast<double>(sc_core::sc_time_stamp().value());
  }
  /// When the first op of `instance` began (ps), or a negative value if none has yet.
  double instance_begin(std::uint32_t instance) const { return instance_begin_[instance]; }
  /// Marks `op` complete now and wakes threads waiting on its unit (or on its instance).
  void complete(std::uint32_t op);
  /// Blocks (inside an SC_THREAD) until every dependency of `op` is done, and the instance it
  /// comes after; returns the time the last of them completed.
  sc_core::sc_time wait_deps(std::uint32_t op);
  size_t completed() const { return completed_; }
  size_t size() const { return program_ ? program_->ops.size() : 0; }

 private:
  const Program* program_ = nullptr;
  std::vector<char> done_;
  std::vector<sc_core::sc_time> done_at_;
  std::vector<std::unique_ptr<sc_core::sc_event>> unit_events_;
  std::vector<std::uint32_t> instance_left_;  // ops of each instance not yet complete
  std::vector<sc_core::sc_time> instance_done_;
  std::vector<double> instance_begin_;
  sc_core::sc_event instance_ev_;
  size_t completed_ = 0;
};

}  // namespace systole::models
