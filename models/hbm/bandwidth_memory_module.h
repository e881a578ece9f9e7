#pragma once
// SystemC channel for a memory timed by a bandwidth/latency model (HBM quick mode, CMEM):
// transfers are served first come first served at the configured bandwidth.

#include <string>

#include "models/common/bandwidth_server.h"
#include "models/common/memory_if.h"

namespace systole::models {

class BandwidthMemoryModule : public sc_core::sc_module, public MemoryIf {
 public:
  BandwidthMemoryModule(const sc_core::sc_module_name& name, double bytes_per_second,
                        double latency_ps);
  sc_core::sc_time transfer(std::uint64_t bytes, bool write) override;

  std::uint64_t bytes_read() const { return read_; }
  std::uint64_t bytes_written() const { return written_; }
  double busy_ps() const { return server_.busy_ps(); }
  double peak_bytes_per_second() const { return 1e12 / server_.ps_per_byte(); }

 private:
  BandwidthServer server_;
  std::uint64_t read_ = 0;
  std::uint64_t written_ = 0;
};

}  // namespace systole::models
