// libFuzzer target: the SCALE-Sim .cfg reader (INI text) and its YAML rendering for /config.
#include <cstdint>

#include "tests/fuzz/fuzz_support.h"
#include "workloads/frontends/scalesim_cfg.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const std::string path = fuzz::write_input("scale.cfg", data, size);
  fuzz::expect_clean([&] {
    const workloads::ScalesimConfig cfg = workloads::load_scalesim_cfg(path);
    (void)cfg.to_yaml();
  });
  return 0;
}
