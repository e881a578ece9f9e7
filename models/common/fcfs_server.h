#pragma once
// One first-come-first-served resource (plain C++; time in whatever unit the caller uses, as a
// double): a job arriving at `at` starts once the resource is free and holds it for `service`.
// The one server behind the bandwidth memory model (BandwidthServer), a core's VMEM read port
// (VmemPort) and each port of an SRAM bank (SramTiming). Fidelity: jobs in arrival order, no
// preemption, no interleaving of two jobs.

#include <algorithm>

namespace systole::models {

/// A resource served first come first served: start = max(arrival, free), free += service.
class FcfsServer {
 public:
  struct Slot {
    double start;  ///< the job begins
    double end;    ///< the job ends: the resource is free again
  };
  Slot serve(double at, double service) {
    const double start = std::max(at, free_);
    free_ = start + service;
    busy_ += service;
    return {start, free_};
  }
  double free_at() const { return free_; }
  double busy() const { return busy_; }

 private:
  double free_ = 0;
  double busy_ = 0;
};

}  // namespace systole::models
