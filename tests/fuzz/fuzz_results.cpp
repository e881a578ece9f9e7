// libFuzzer target: the results-file reader in this process (read_points, the reader that
// read_points_isolated runs in a child), plus the /meta, /sweep and point-index readers. The
// input is written to a file and read back; a corrupt file must be a ConfigError.
#include <cstdint>

#include "sim/stats/results_file.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const std::string path = fuzz::write_input("r.h5", data, size);
  fuzz::expect_clean([&] { (void)stats::read_points(path); });
  fuzz::expect_clean([&] { (void)stats::read_meta(path); });
  fuzz::expect_clean([&] { (void)stats::read_point_index(path); });
  fuzz::expect_clean([&] { (void)stats::read_sweep(path); });
  return 0;
}
