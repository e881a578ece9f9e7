#include "models/common/scoreboard.h"

namespace systole::models {

void Scoreboard::start(const Program* program, size_t n_units) {
  program_ = program;
  done_.assign(program->ops.size(), 0);
  done_at_.assign(program->ops.size(), sc_core::SC_ZERO_TIME);
  while (unit_events_.size() < n_units)
    unit_events_.push_back(std::make_unique<sc_core::sc_event>());
  completed_ = 0;
}

void Scoreboard::complete(std::uint32_t op) {
  done_[op] = 1;
  done_at_[op] = sc_core::sc_time_stamp();
  ++completed_;
  unit_events_[program_->ops[op].unit]->notify(sc_core::SC_ZERO_TIME);
}

sc_core::sc_time Scoreboard::wait_deps(std::uint32_t op) {
  sc_core::sc_time last = sc_core::SC_ZERO_TIME;
  for (std::uint32_t d : program_->ops[op].deps) {
    while (!done_[d]) sc_core::wait(*unit_events_[program_->ops[d].unit]);
    if (done_at_[d] > last) last = done_at_[d];
  }
  return last;
}

}  // namespace systole::models
