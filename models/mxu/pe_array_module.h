#pragma once
// SystemC shell of the PE-level MXU reference: a clocked SC_METHOD that runs one PeArray cycle
// per rising clock edge (cycle = simulated time / period), every PE every cycle. A hazard stops
// this array and is kept as its error (an exception must not unwind through the kernel).

#include <systemc>

#include <string>
#include <vector>

#include "models/mxu/pe_array.h"

namespace systole::models {

/// Clocks one PeArray from a SystemC clock (reference fidelity: one activation per cycle).
class PeArrayModule : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk;

  PeArrayModule(const sc_core::sc_module_name& name, const MxuConfig& cfg, sc_core::sc_time period);

  /// Queues a job (before or during the simulation).
  std::uint64_t submit(PeJob job) { return array_.submit(std::move(job)); }
  const PeArray& array() const { return array_; }
  PeArray& array() { return array_; }
  const std::vector<PeResult>& results() const { return results_; }
  const std::string& error() const { return error_; }
  bool finished() const { return array_.idle() || !error_.empty(); }

 private:
  void on_clock();

  PeArray array_;
  sc_core::sc_time period_;
  std::vector<PeResult> results_;
  std::string error_;
};

}  // namespace systole::models
