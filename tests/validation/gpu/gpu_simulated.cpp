#include "tests/validation/gpu/gpu_simulated.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <iostream>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

namespace systole::test::gpu {

std::vector<SimulatedPoint> simulate_points(const std::string& file, const std::string& extra) {
  TempDir dir;
  const auto r =
      simrun(source_dir() + "/tests/validation/gpu/" + file + " -o out.h5 -q -j 2 " + extra, dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<SimulatedPoint> out;
  for (const auto& p : stats::read_points(dir.file("out.h5"))) {
    REQUIRE(p.ok());
    SimulatedPoint s;
    s.assignments = {p.assignments.begin(), p.assignments.end()};
    for (std::size_t i = 0; i < p.layers.rows().size(); ++i) {
      const double sec = p.layers.get_number(i, "time");
      s.layers[p.layers.get_string(i, "layer")] += sec;
      s.whole += sec;
    }
    out.push_back(std::move(s));
  }
  return out;
}

void print_layer_table(const std::string& title, const std::map<std::string, double>& simulated,
                       const std::map<std::string, double>& measured) {
  std::cout << "\n" << title << "\n| layer | measured | simulated | error |\n|---|---|---|---|\n";
  for (const auto& [layer, sec] : simulated) {
    const auto m = measured.find(layer);
    INFO("layer " << layer);
    REQUIRE(m != measured.end());
    std::cout << fmt::format("| {} | {:.1f} | {:.1f} | {:+.1f}% |\n", layer, 1e6 * m->second,
                             1e6 * sec, 100 * (sec / m->second - 1));
  }
}

}  // namespace systole::test::gpu
