#include "models/mxu/pe_array_module.h"

namespace systole::models {

PeArrayModule::PeArrayModule(const sc_core::sc_module_name& name, const MxuConfig& cfg,
                             sc_core::sc_time period)
    : sc_core::sc_module(name), clk("clk"), array_(cfg), period_(period) {
  SC_HAS_PROCESS(PeArrayModule);
  SC_METHOD(on_clock);
  sensitive << clk.pos();
  dont_initialize();
}

void PeArrayModule::on_clock() {
  if (!error_.empty()) return;
  const std::uint64_t cycle = sc_core::sc_time_stamp().value() / period_.value();
  try {
    array_.tick(cycle);
    for (auto& r : array_.take_finished()) results_.push_back(std::move(r));
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

}  // namespace systole::models
