#pragma once
// A DMA-like requester for SystemC tests of a memory boundary (models/common/memory_if.h):
// `issue` offers its transfers in order (blocking while refused), `retire` finishes them in
// order; `start_ps` delays the first offer. Records when each was accepted and finished and the
// time held by back-pressure.
#include <systemc>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/common/memory_if.h"

namespace systole::test {

struct MemoryRequester : sc_core::sc_module {
  sc_core::sc_port<models::MemoryIf> mem;
  std::vector<models::MemoryTransfer> transfers;
  double start_ps = 0;
  std::vector<std::uint64_t> handle;
  std::vector<double> accepted_ps, finished_ps;
  double held_ps = 0;
  std::size_t issued = 0;
  sc_core::sc_event issued_ev;

  MemoryRequester(const sc_core::sc_module_name& name, std::vector<models::MemoryTransfer> t,
                  double start = 0)
      : sc_core::sc_module(name), transfers(std::move(t)), start_ps(start) {
    SC_HAS_PROCESS(MemoryRequester);
    SC_THREAD(issue);
    SC_THREAD(retire);
  }
  static double now() { return static_cast<double>(sc_core::sc_time_stamp().value()); }
  void issue() {
    if (start_ps > 0) sc_core::wait(sc_core::sc_time(start_ps, sc_core::SC_PS));
    for (const auto& t : transfers) {
      const double offered = now();
      handle.push_back(mem->begin(t));
      accepted_ps.push_back(now());
      held_ps += now() - offered;
      ++issued;
      issued_ev.notify();
    }
  }
  void retire() {
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      while (issued <= i) sc_core::wait(issued_ev);
      mem->finish(handle[i]);
      finished_ps.push_back(now());
    }
  }
  /// When the first transfer was accepted (-1: none yet).
  double first_ps() const { return accepted_ps.empty() ? -1 : accepted_ps.front(); }
  /// When the last transfer finished (-1: not all have).
  double last_ps() const { return finished_ps.size() < transfers.size() ? -1 : finished_ps.back(); }
  /// When the latest finished transfer finished (-1: none yet).
  double elapsed_ps() const { return finished_ps.empty() ? -1 : finished_ps.back(); }
};

}  // namespace systole::test
