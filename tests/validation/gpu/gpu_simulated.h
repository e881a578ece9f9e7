#pragma once
// Runs a validation experiment of this folder through simrun and reads each point's layer times
// (the networks and LLM block tests compare them with whole-network / whole-block measurements).

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace systole::test::gpu {

/// One design point: its swept assignments, each layer's time (all repeats) and their sum.
struct SimulatedPoint {
  std::vector<std::pair<std::string, std::string>> assignments;
  std::map<std::string, double> layers;  ///< layer name -> seconds
  double whole = 0;
};

/// simrun tests/validation/gpu/<file> -q -j 2 `extra` (more options, e.g. "-p system.warmup=1")
/// into a temporary folder; every point must succeed.
std::vector<SimulatedPoint> simulate_points(const std::string& file, const std::string& extra = "");

/// Prints "| layer | measured | simulated | error |" rows (us) under `title`; every simulated
/// layer must have a measurement.
void print_layer_table(const std::string& title, const std::map<std::string, double>& simulated,
                       const std::map<std::string, double>& measured);

}  // namespace systole::test::gpu
