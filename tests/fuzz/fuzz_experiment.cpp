// libFuzzer target: the experiment loader. The input is an experiment file; its lines that start
// with "#-p " are also given as -p overrides (they stay YAML comments). The loaded experiment
// is planned and its first design points built, as simrun --validate does before it prepares
// each point's system and workload.
#include <algorithm>
#include <cstdint>
#include <sstream>

#include "sim/config/experiment.h"
#include "sim/sweep/expand.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const std::string path = fuzz::write_input("e.yaml", data, size);
  std::vector<std::string> overrides;
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#-p ", 0) == 0) overrides.push_back(line.substr(4));
  fuzz::expect_clean([&] {
    const config::Experiment ex = config::load_experiment(path, overrides);
    if (sweep::count_points(ex) > 1000000) return;
    const sweep::Plan plan = sweep::plan(ex);
    for (size_t i = 0; i < std::min<size_t>(plan.size(), 8); ++i) (void)plan.point(i);
  });
  return 0;
}
