// L2 configuration: the schema's defaults are the A100's organisation, and an organisation
// that does not cut into whole power-of-two sets per slice, or lines into sectors, is an error
// naming the key.
#include <catch2/catch.hpp>

#include "models/l2/l2_config.h"
#include "tests/support/config_error.h"

using namespace systole;
using models::L2Config;

namespace {

L2Config load(const std::string& yaml) {
  return test::load_section<L2Config>(yaml, "l2.yaml", "l2");
}

std::string error(const std::string& yaml) {
  return test::config_error([&] { load(yaml); });
}

}  // namespace

TEST_CASE("L2 defaults: A100, 2 partitions x 40 slices of 512 KiB, 256 sets of 16 x 128 B",
          "[unit][l2][config]") {
  const L2Config c = load("{}");
  CHECK(c.capacity.value() == 40ull << 20);
  CHECK(c.slices() == 80);
  CHECK(c.slice_bytes() == 512 * 1024);
  CHECK(c.sectors_per_line() == 4);
  CHECK(c.sets_per_slice() == 256);
  // 80 slices x 64 B/clk = 5120 B/clk, the A100 whitepaper's L2 read bandwidth.
  CHECK(c.slices() * c.slice_bandwidth == 5120);
  CHECK(c.hit_latency == 211);
  CHECK(c.hit_latency + c.far_penalty == 369);  // 1.75 x 211, rounded
  // H100: 50 MiB as 2 x 50 slices of 512 KiB (ASSUMPTION on the slice count) is legal too.
  const L2Config h = load("{capacity: 50MiB, slices_per_partition: 50}");
  CHECK(h.sets_per_slice() == 256);
}

TEST_CASE("L2 config: organisations that do not cut evenly are errors", "[unit][l2][config]") {
  CHECK_THAT(error("{capacity: 41MiB}"),
             Catch::Contains("l2.capacity") && Catch::Contains("power of two of whole sets"));
  CHECK_THAT(error("{associativity: 12}"), Catch::Contains("l2.capacity"));
  CHECK_THAT(error("{sector: 48B}"), Catch::Contains("l2.sector"));
  CHECK_THAT(error("{line: 256B, sector: 16B}"), Catch::Contains("at most 8 sectors"));
  CHECK_THAT(error("{line: 96B}"), Catch::Contains("l2.line"));
  CHECK_THAT(error("{asociativity: 8}"), Catch::Contains("associativity"));
}
