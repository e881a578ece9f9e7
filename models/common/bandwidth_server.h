#pragma once
// A first-come-first-served bandwidth server: transfers occupy the resource for bytes/bandwidth
// one after another (FcfsServer) and complete `latency` later. The timing of the bandwidth/latency
// memory model (hbm.model: bandwidth). Plain C++, time in picoseconds.

#include <cstdint>

#include "models/common/fcfs_server.h"

namespace systole::models {

class BandwidthServer {
 public:
  struct Grant {
    double issue_end_ps;  ///< when the transfer has left the resource (the next may start)
    double done_ps;       ///< when its data has arrived
  };

  BandwidthServer(double bytes_per_second, double latency_ps)
      : ps_per_byte_(1e12 / bytes_per_second), latency_ps_(latency_ps) {}

  Grant transfer(double now_ps, std::uint64_t bytes) {
    const double end = server_.serve(now_ps, static_cast<double>(bytes) * ps_per_byte_).end;
    bytes_ += bytes;
    return {end, end + latency_ps_};
  }

  double busy_ps() const { return server_.busy(); }
  std::uint64_t bytes() const { return bytes_; }
  double ps_per_byte() const { return ps_per_byte_; }
  double latency_ps() const { return latency_ps_; }

 private:
  double ps_per_byte_;
  double latency_ps_;
  FcfsServer server_;
  std::uint64_t bytes_ = 0;
};

}  // namespace systole::models
