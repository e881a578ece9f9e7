#include "models/common/scoreboard.h"

#include "sim/core/error.h"

namespace systole::models {

void Scoreboard::start(const Program* program, size_t n_units) {
  program_ = program;
  done_.assign(program->ops.size(), 0);
  done_at_.assign(program->ops.size(), sc_core::SC_ZERO_TIME);
  while (unit_events_.size() < n_units)
    unit_events_.push_back(std::make_unique<sc_core::sc_event>());
  instance_left_.assign(program->instances, 0);
  instance_done_.assign(program->instances, sc_core::SC_ZERO_TIME);
  instance_begin_.assign(program->instances, -1.0);
  for (const Op& op : program->ops) {
    SYSTOLE_ASSERT(op.instance < program->instances && op.after <= op.instance,
                   "op of an unknown instance, or after a later one");
    ++instance_left_[op.instance];
  }
  completed_ = 0;
}

void Scoreboard::complete(std::uint32_t op) {
  done_[op] = 1;
  done_at_[op] = sc_core::sc_time_stamp();
  ++completed_;
  const Op& o = program_->ops[op];
  unit_events_[o.unit]->notify(sc_core::SC_ZERO_TIME);
  if (--instance_left_[o.instance] == 0) {
    instance_done_[o.instance] = sc_core::sc_time_stamp();
    instance_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

sc_core::sc_time Scoreboard::wait_deps(std::uint32_t op) {
  sc_core::sc_time last = sc_core::SC_ZERO_TIME;
  const Op& o = program_->ops[op];
  if (o.after) {
    const std::uint32_t i = o.after - 1;
    while (instance_left_[i]) sc_core::wait(instance_ev_);
    last = instance_done_[i];
  }
  for (std::uint32_t d : o.deps) {
    while (!done_[d]) sc_core::wait(*unit_events_[program_->ops[d].unit]);
    if (done_at_[d] > last) last = done_at_[d];
  }
  return last;
}

}  // namespace systole::models
