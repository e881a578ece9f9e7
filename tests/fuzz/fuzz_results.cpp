// libFuzzer target: the results-file reader in this process (read_points, the reader that
// read_points_isolated runs in a child), plus the /meta, /sweep and point-index readers. The
// input is written to a file and read back; a corrupt file must be a ConfigError. What was read
// is then exported as systole-trace does and summarised as simrun does: a reader must not hand
// on what its users cannot use (trace events naming no unit did).
#include <cstdint>
#include <sstream>
#include <vector>

#include "sim/stats/results_file.h"
#include "sim/stats/summary.h"
#include "tests/fuzz/fuzz_support.h"
#include "tools/trace/chrome_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const std::string path = fuzz::write_input("r.h5", data, size);
  fuzz::expect_clean([&] {
    const auto points = stats::read_points(path);
    std::vector<const stats::PointResult*> traced;
    for (const auto& p : points)
      if (p.trace.enabled) traced.push_back(&p);
    std::ostringstream sink;
    if (!traced.empty()) (void)trace::write_chrome_trace(traced, sink);
    (void)stats::points_summary(points, {});
  });
  fuzz::expect_clean([&] { (void)stats::read_meta(path); });
  fuzz::expect_clean([&] { (void)stats::read_point_index(path); });
  fuzz::expect_clean([&] { (void)stats::read_sweep(path); });
  return 0;
}
