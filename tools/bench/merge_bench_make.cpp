// Makes the input of tools/bench/merge_bench.sh: FILES shard files holding POINTS design points
// in all, each point a copy of a real simulated point of TEMPLATE.h5 (its layer and unit tables
// as simrun writes them) under its own swept value, id and index. Writing them this way takes
// seconds; simulating 10,000 points would take minutes and is what sweep_throughput.sh times.
//
//   bench_merge_make TEMPLATE.h5 OUTDIR FILES POINTS
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "sim/core/hash.h"
#include "sim/stats/results_file.h"

using namespace systole;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: bench_merge_make TEMPLATE.h5 OUTDIR FILES POINTS\n";
    return 2;
  }
  const std::string dir = argv[2];
  const int files = std::atoi(argv[3]);
  const int points = std::atoi(argv[4]);
  if (files < 1 || points < files) {
    std::cerr << "bench_merge_make: need 1 <= FILES <= POINTS\n";
    return 2;
  }
  try {
    const auto tpl = stats::read_points(argv[1]);
    if (tpl.empty()) throw std::runtime_error("the template file holds no point");
    stats::RunMeta meta = stats::read_meta(argv[1]);
    const std::string path = "workload.params.m";
    meta.swept_paths = {path};
    meta.points_total = static_cast<std::uint64_t>(points);
    meta.shard_count = files;
    for (int f = 0; f < files; ++f) {
      meta.shard_index = f;
      stats::ResultsWriter w(fmt::format("{}/results.shard-{}-of-{}.h5", dir, f, files), meta);
      for (int i = f; i < points; i += files) {
        stats::PointResult r = tpl[static_cast<size_t>(i) % tpl.size()];
        r.id = i;
        r.assignments = {{path, std::to_string(8 + i)}};
        r.label = path + "=" + r.assignments[0].second;
        r.key = short_hash(r.label);  // as sweep::point_key writes one assignment
        w.write_point(r);
      }
      w.commit();
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_merge_make: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
