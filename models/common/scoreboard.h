#pragma once
// Completion tracking for one layer's program: which ops are done and when, with one event per
// unit so a waiting unit wakes only when the unit it depends on retires an op.

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
  /// Marks `op` complete now and wakes threads waiting on its unit.
  void complete(std::uint32_t op);
  /// Blocks (inside an SC_THREAD) until every dependency of `op` is done; returns the time the
  /// last of them completed.
  sc_core::sc_time wait_deps(std::uint32_t op);
  size_t completed() const { return completed_; }
  size_t size() const { return program_ ? program_->ops.size() : 0; }

 private:
  const Program* program_ = nullptr;
  std::vector<char> done_;
  std::vector<sc_core::sc_time> done_at_;
  std::vector<std::unique_ptr<sc_core::sc_event>> unit_events_;
  size_t completed_ = 0;
};

}  // namespace systole::models
