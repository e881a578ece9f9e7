// libFuzzer target: the workload loader with its integer expressions. The input is a workload
// file (name, source, params, layers), read as `workload: {file: w.yaml}`; when it parses as a
// mapping it is also read as an inline workload (`workload: {layers: ...}`).
#include <cstdint>

#include "sim/config/node.h"
#include "tests/fuzz/fuzz_support.h"
#include "workloads/frontends/yaml_workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const std::string path = fuzz::write_input("w.yaml", data, size);
  fuzz::expect_clean([&] {
    config::Node section = config::Node::map({"e.yaml", 1, 1});
    section.set("file", config::Node::scalar(path, {"e.yaml", 1, 11}));
    (void)workloads::load_workload(section, "workload");
  });
  fuzz::expect_clean([&] {
    const config::Node inline_section =
        config::parse_yaml(std::string(reinterpret_cast<const char*>(data), size), "e.yaml");
    if (inline_section.is_map() && !inline_section.find("file"))
      (void)workloads::load_workload(inline_section, "workload");
  });
  return 0;
}
