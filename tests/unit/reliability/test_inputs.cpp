// Hostile inputs (issue 15): each is a one-line ConfigError, never a crash, a hang or gigabytes
// of memory. Before the fixes the alias cases crashed (SIGSEGV) or grew past 8 GB, the
// expressions trapped (SIGFPE) or overflowed the stack, the SCALE-Sim sizes threw
// std::length_error or ran forever, and /dev/zero or a FIFO were read forever.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "models/scalesim/scalesim_timing.h"
#include "sim/config/node.h"
#include "sim/config/schema.h"
#include "sim/core/input_file.h"
#include "tests/support/config_error.h"
#include "tests/support/temp_dir.h"
#include "workloads/frontends/expr.h"
#include "workloads/frontends/scalesim_topology.h"

using namespace systole;
using test::config_error;

namespace {

std::string yaml_error(const std::string& text) {
  return config_error([&] { config::parse_yaml(text, "x.yaml"); });
}

std::string expr_error(const std::string& text) {
  return config_error([&] {
    workloads::eval_int_expr(text, {{"b", 4}}, {"w.yaml", 3, 7}, "layers[0].m");
  });
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

TEST_CASE("YAML aliases cannot recurse, explode or nest without bound", "[unit][reliability]") {
  CHECK(yaml_error("workload: &w {layers: *w}\n") ==
        "x.yaml:1:11: workload.layers: a YAML alias refers to a node that contains it (the value "
        "would be infinite)");
  CHECK(yaml_error("a: &a [1, *a]\n").find("a YAML alias refers to a node that contains it") !=
        std::string::npos);

  // "Billion laughs": 10 levels of 10 aliases each expand to 10^10 values; under an unknown key
  // it still has to be expanded to be read. The budget stops it at a few hundred thousand.
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    const char p = static_cast<char>(c - 1);
    bomb += fmt::format("{0}: &{0} [*{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}]\n",
                        c, p);
  }
  bomb += "unknown_key: *j\n";
  const long rss0 = max_rss_kib();
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = yaml_error(bomb);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(e.find("the YAML's aliases expand to more than") != std::string::npos);
  CHECK(s < 5);
  CHECK(max_rss_kib() - rss0 < 200 * 1024);  // KiB: well under 200 MB

  // A few aliases are fine.
  CHECK(yaml_error("a: &a {m: 1}\nb: *a\nc: [*a, *a]\n") == "<no error>");

  const auto nested = [](size_t n) { return "a: " + std::string(n, '[') + std::string(n, ']'); };
  std::string path = "a";
  for (int i = 0; i < 63; ++i) path += "[0]";
  CHECK(yaml_error(nested(200)) ==
        "x.yaml:1:67: " + path + ": the YAML nests more than 64 levels deep");
  // yaml-cpp refuses 20,000 levels itself (its message is "bad file").
  CHECK(yaml_error(nested(20000)).find("YAML syntax error") != std::string::npos);
}

TEST_CASE("YAML that yaml-cpp lets through is rejected", "[unit][reliability]") {
  CHECK(yaml_error("a: 1\n---\nb: 2\n") ==
        "x.yaml:3:1: a second YAML document starts here ('---'); a Systole file holds one");
  CHECK(yaml_error("a: !foo 1\n") ==
        "x.yaml:1:4: a: YAML tag '!foo' is not supported (write a plain value)");
  CHECK(yaml_error("a: !!str 1\nb: \"q\"\nc: |\n  text\n") == "<no error>");
  // yaml-cpp 0.7 takes the rest of a file that ends with a newline as the open string.
  CHECK(yaml_error("a: 1\nb: \"x\nc: 2\n") ==
        "x.yaml:2:4: b: YAML syntax error: the quoted string that starts here is never closed "
        "(missing \")");
  CHECK(yaml_error("a: 'it''s'\nb: \"say \\\"hi\\\"\"\n") == "<no error>");
  CHECK(yaml_error("a: 'x\n").find("is never closed (missing ')") != std::string::npos);
}

TEST_CASE("a key given no value is an error, not the default", "[unit][reliability]") {
  struct S {
    std::int64_t rows = 0;
  };
  config::SchemaOf<S> schema("mxu", "test");
  schema.integer("rows", &S::rows, 128, 1, 4096, "rows");
  for (const char* text : {"rows: ~\n", "rows:\n", "rows: null\n"}) {
    INFO(text);
    CHECK(config_error([&] { schema.load(config::parse_yaml(text, "x.yaml"), "mxu"); }) ==
          "x.yaml:1:1: mxu.rows: no value given (~ or nothing): give a value (integer) or leave "
          "the key out to use the default, 128");
  }
}

TEST_CASE("expressions use checked 64-bit arithmetic and bounded nesting", "[unit][reliability]") {
  const std::string min = "(0 - 9223372036854775807 - 1)";
  CHECK(expr_error(min + " / (0 - 1)") ==
        "w.yaml:3:7: layers[0].m: '" + min + " / (0 - 1)' overflows a 64-bit integer");
  CHECK(workloads::eval_int_expr(min + " % (0 - 1)", {}, {}, "m") == 0);
  CHECK(expr_error("-" + min).find("overflows a 64-bit integer") != std::string::npos);
  CHECK(expr_error("9223372036854775807 + 1").find("overflows") != std::string::npos);
  CHECK(expr_error("b % 0").find("division by zero") != std::string::npos);
  CHECK(workloads::eval_int_expr("-(b * 3) % 5", {{"b", 4}}, {}, "m") == -2);

  const std::string deep = std::string(20000, '(') + "1" + std::string(20000, ')');
  CHECK(expr_error(deep).find("nests more than 100 levels of parentheses or signs") !=
        std::string::npos);
  CHECK(expr_error(std::string(20000, '-') + "1").find("nests more than 100 levels") !=
        std::string::npos);
  CHECK(workloads::eval_int_expr(std::string(50, '(') + "b" + std::string(50, ')'), {{"b", 4}}, {},
                                 "m") == 4);
}

TEST_CASE("SCALE-Sim sizes are bounded with clear errors", "[unit][reliability]") {
  auto topo_error = [](const std::string& row) {
    return config_error(
        [&] { workloads::parse_scalesim_topology("Layer, M, N, K,\n" + row + "\n", "net.csv"); });
  };
  CHECK(topo_error("g, 9223372036854775807, 8, 8,") ==
        "net.csv:2: M: 9223372036854775807 is larger than 16777216 (2^24), the most this reader "
        "accepts");
  CHECK(topo_error("g, 4294967296, 8, 8,").find("M: 4294967296 is larger than 16777216") !=
        std::string::npos);
  CHECK(topo_error("g, 16777216, 16777216, 16,") ==
        "net.csv:2: layer 'g': 268435456 IFMAP words (height x width x channels) exceed "
        "67108864 (2^26), the most this reader accepts");
  CHECK(topo_error("g, 4096, 16777216, 16384,") ==
        "net.csv:2: layer 'g': 1125899906842624 MACs exceed 281474976710656 (2^48), the most "
        "this reader accepts");
  const std::string conv =
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num "
      "Filter, Strides,\n";
  CHECK(config_error([&] {
          workloads::parse_scalesim_topology(conv + "c, 8192, 8192, 3, 3, 64, 64, 1,\n", "n.csv");
        }).find("IFMAP words (height x width x channels) exceed 67108864") != std::string::npos);
  CHECK(config_error([&] {
          workloads::parse_scalesim_topology(conv + "DP1, 8, 8, 3, 3, 16777216, 1, 1,\n", "n.csv");
        }).find("exceed 67108864") != std::string::npos);
  CHECK(topo_error("g, 64, 64, 64,") == "<no error>");

  // Folds grow with the array's smallness: a 1 x 1 array on a big GEMM is refused, not run.
  models::scalesim::ArrayConfig one;
  one.rows = one.cols = 1;
  const auto big = models::scalesim::ConvLayer::gemm("g", 1 << 14, 1 << 14, 64);
  CHECK_THROWS_WITH(models::scalesim::simulate_layer(one, big),
                    Catch::Contains("folds on a 1x1 array: more than 67108864 (2^26)"));
}

TEST_CASE("inputs must be regular files", "[unit][reliability]") {
  test::TempDir dir;
  const std::string fifo = dir.file("fifo.yaml");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::filesystem::create_directories(dir.file("d.yaml"));
  CHECK(config_error([&] { config::load_yaml_file("/dev/zero"); }) ==
        "/dev/zero: is a character device, expected a file");
  CHECK(config_error([&] { config::load_yaml_file(fifo); }) ==
        fifo + ": is a FIFO, expected a file");
  CHECK(config_error([&] { config::load_yaml_file(dir.file("d.yaml")); }) ==
        dir.file("d.yaml") + ": is a directory, expected a file");
  CHECK(config_error([&] {
          config::load_yaml_file("/dev/zero", {"e.yaml", 2, 11});
        }) == "e.yaml:2:11: '/dev/zero' is a character device, expected a file");
  CHECK(config_error([&] {
          config::find_referenced_file("d.yaml", {dir.file("e.yaml"), 4, 3}, "workload.file");
        }) == dir.file("e.yaml") + ":4:3: workload.file: '" + dir.file("d.yaml") +
                  "' is a directory, expected a file");
  CHECK(config_error([&] { workloads::load_scalesim_topology(fifo); }) ==
        fifo + ": is a FIFO, expected a file");
  CHECK(non_regular_kind(dir.file("missing")) == "missing");
  CHECK(non_regular_kind(dir.write("ok.yaml", "a: 1\n")).empty());
}
