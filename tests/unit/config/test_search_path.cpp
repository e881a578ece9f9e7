// The search path for files an experiment names (sim/config/search_path.h): its order, the
// first match winning, SYSTOLE_PATH, and the errors for a file found nowhere or not a file.
#include "sim/config/search_path.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "tests/support/paths.h"
#include "tests/support/temp_dir.h"

using namespace systole;
using namespace systole::config;
using systole::test::TempDir;

namespace {

std::string error_of(const std::string& name, const Origin& from) {
  try {
    find_on_search_path(name, from, "workload.file");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE(
    "search path order: naming folder then experiment folder then repository then SYSTOLE_PATH",
    "[config][paths]") {
  TempDir dir;
  ::setenv("SYSTOLE_PATH", (dir.file("env1") + "::" + dir.file("env2")).c_str(), 1);
  set_experiment_file(dir.file("exp/e.yaml"));
  const auto dirs = search_path({dir.file("lib/w.yaml"), 3, 4});
  ::unsetenv("SYSTOLE_PATH");
  REQUIRE(dirs.size() == 8);
  CHECK(dirs[0].dir == dir.file("lib"));
  CHECK(dirs[1].dir == dir.file("exp"));
  CHECK(dirs[2].dir == repository_root() + "/configs");
  CHECK(dirs[3].dir == repository_root() + "/configs/presets");
  CHECK(dirs[4].dir == repository_root() + "/workloads");
  CHECK(dirs[5].dir == repository_root());
  CHECK(dirs[6].dir == dir.file("env1"));
  CHECK(dirs[7].dir == dir.file("env2"));
  CHECK(dirs[5].exists);
  CHECK_FALSE(dirs[6].exists);
  // The repository is this source tree (found from the test executable in build/tests).
  CHECK(std::filesystem::equivalent(repository_root(), test::source_dir()));

  // -p values: the current directory first; a folder named twice is listed once.
  set_experiment_file("e.yaml");
  const auto p = search_path({"<command line -p workload.file=x>"});
  CHECK(p[0].dir == ".");
  CHECK(p[0].source == "current directory (-p)");
  CHECK(p[1].dir == repository_root() + "/configs");
  set_experiment_file("");
}

TEST_CASE(
    "search path: the first match wins and a file found nowhere or not a file is a ConfigError",
    "[config][paths]") {
  TempDir dir;
  dir.write("exp/w.yaml", "layers: []\n");
  dir.write("exp/gemm_shapes.yaml", "layers: []\n");
  dir.write("lib/w.yaml", "layers: []\n");
  std::filesystem::create_directories(dir.file("lib/sub"));
  set_experiment_file(dir.file("exp/e.yaml"));
  const Origin in_lib{dir.file("lib/x.yaml"), 2, 5};
  CHECK(find_on_search_path("w.yaml", in_lib, "workload.file") == dir.file("lib/w.yaml"));
  CHECK(find_on_search_path("w.yaml", {dir.file("other/x.yaml"), 1, 1}, "workload.file") ==
        dir.file("exp/w.yaml"));
  // The experiment's folder comes before the repository's workloads/.
  CHECK(find_on_search_path("gemm_shapes.yaml", in_lib, "w") == dir.file("exp/gemm_shapes.yaml"));
  CHECK(find_on_search_path("resnet50.yaml", in_lib, "w") ==
        repository_root() + "/workloads/resnet50.yaml");
  CHECK(find_on_search_path(dir.file("lib/w.yaml"), in_lib, "w") == dir.file("lib/w.yaml"));

  CHECK(error_of("sub", in_lib) == in_lib.str() + ": workload.file: '" + dir.file("lib/sub") +
                                       "' is a directory, expected a file");
  const std::string missing = error_of("ww.yaml", in_lib);
  CHECK(missing.find("file 'ww.yaml' not found (did you mean 'w.yaml'?); searched " +
                     dir.file("lib") + ", " + dir.file("exp") + ", the repository's") !=
        std::string::npos);

  // Each resolution is recorded once, with where it was named.
  bool seen = false;
  for (const auto& r : resolutions())
    if (r.name == "w.yaml" && r.path == dir.file("lib/w.yaml")) {
      CHECK(r.named_at == in_lib.str());
      CHECK(r.text() == "w.yaml (" + in_lib.str() + ") -> " + dir.file("lib/w.yaml"));
      seen = true;
    }
  CHECK(seen);
  set_experiment_file("");
}
