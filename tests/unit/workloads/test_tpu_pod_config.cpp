// The tpu_pod system section: parallel degrees against the slice, and which torus axes each
// parallel group spans.
#include <catch2/catch.hpp>

#include "models/systems/tpu_pod/tpu_pod_config.h"
#include "sim/config/node.h"
#include "tests/support/config_error.h"

using namespace systole;

namespace {

models::TpuPodConfig load(const std::string& shape, const std::string& parallel) {
  return test::load_section<models::TpuPodConfig>(
      "ici: {shape: \"" + shape + "\"}\nparallel: " + parallel + "\n", "pod.yaml", "system");
}

using Axes = std::array<bool, 3>;

}  // namespace

TEST_CASE("tpu_pod: the tensor group takes the first whole axes that give its size",
          "[pod][config]") {
  struct Case {
    const char* shape;
    const char* parallel;
    Axes tensor, data;
    std::int64_t d;
  };
  const Case cases[] = {
      {"8", "{tensor: 8}", {{true, false, false}}, {{false, false, false}}, 1},
      {"4x2x2", "{tensor: 8}", {{true, true, false}}, {{false, false, true}}, 2},
      {"2x2x4", "{tensor: 8}", {{true, false, true}}, {{false, true, false}}, 2},
      {"2x2x2", "{tensor: 8}", {{true, true, true}}, {{false, false, false}}, 1},
      {"4x4x4", "{tensor: 16}", {{true, true, false}}, {{false, false, true}}, 4},
      {"4x4x4", "{tensor: 4, data: 16}", {{true, false, false}}, {{false, true, true}}, 16},
      {"4x4", "{}", {{false, false, false}}, {{true, true, false}}, 16},
  };
  for (const auto& c : cases) {
    INFO(c.shape << " " << c.parallel);
    const auto cfg = load(c.shape, c.parallel);
    CHECK(cfg.axes().tensor == c.tensor);
    CHECK(cfg.axes().data == c.data);
    CHECK(cfg.degrees().data == c.d);
  }
}

TEST_CASE("tpu_pod: parallel degrees that do not fit the slice are errors", "[pod][config]") {
  const auto err = [](const char* shape, const char* parallel) {
    return test::config_error([&] { load(shape, parallel); });
  };
  CHECK_THAT(err("4x4x4", "{tensor: 8}"),
             Catch::Contains("system.parallel.tensor") &&
                 Catch::Contains("the 4x4x4 slice's axes give groups of 4, 16, 64"));
  CHECK_THAT(err("4x4", "{tensor: 3}"),
             Catch::Contains("system.parallel.tensor") &&
                 Catch::Contains("tensor x pipeline = 3 does not divide the 16 chips"));
  CHECK_THAT(err("4x4", "{tensor: 4, data: 2}"),
             Catch::Contains("system.parallel.data") &&
                 Catch::Contains("2 x 4 x 1 = 8, but the 4x4 slice has 16 chips"));
  CHECK_THAT(err("4x4x4", "{tensor: 4, pipeline: 8}"),
             Catch::Contains("system.parallel.pipeline") &&
                 Catch::Contains("the pipeline stages (8) must span whole torus axes"));
  CHECK_THAT(
      err("4x4", "{tensor: 4, microbatches: 4}"),
      Catch::Contains("system.parallel.microbatches") && Catch::Contains("need pipeline stages"));
  CHECK_THAT(err("4x4", "{pipeline: 2, microbatches: 0}"),
             Catch::Contains("system.parallel.microbatches"));
  CHECK_THAT(err("4x4", "{tensr: 4}"), Catch::Contains("tensor"));
}

TEST_CASE("tpu_pod: pipeline stages take whole axes after the tensor group", "[pod][config]") {
  struct Case {
    const char* shape;
    const char* parallel;
    Axes tensor, pipeline, data;
  };
  const Case cases[] = {
      {"2x2x2",
       "{tensor: 4, pipeline: 2}",
       {{true, true, false}},
       {{false, false, true}},
       {{false, false, false}}},
      {"4x4x4",
       "{tensor: 4, pipeline: 4}",
       {{true, false, false}},
       {{false, true, false}},
       {{false, false, true}}},
      {"4x4x4",
       "{tensor: 4, pipeline: 16}",
       {{true, false, false}},
       {{false, true, true}},
       {{false, false, false}}},
      {"8",
       "{pipeline: 8, microbatches: 4}",
       {{false, false, false}},
       {{true, false, false}},
       {{false, false, false}}},
  };
  for (const auto& c : cases) {
    INFO(c.shape << " " << c.parallel);
    const auto cfg = load(c.shape, c.parallel);
    CHECK(cfg.axes().tensor == c.tensor);
    CHECK(cfg.axes().pipeline == c.pipeline);
    CHECK(cfg.axes().data == c.data);
  }
}
