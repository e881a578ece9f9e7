// libFuzzer target: the SCALE-Sim topology CSV reader (conv and GEMM formats).
#include <cstdint>

#include "tests/fuzz/fuzz_support.h"
#include "workloads/frontends/scalesim_topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const std::string path = fuzz::write_input("net.csv", data, size);
  fuzz::expect_clean([&] { (void)workloads::load_scalesim_topology(path); });
  return 0;
}
