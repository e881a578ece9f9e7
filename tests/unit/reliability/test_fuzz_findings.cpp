// Regression tests for what the fuzzers (tests/fuzz, tools/fuzz.sh) and the bad-input catalogue
// (tests/e2e/bad_inputs) found: each input here once escaped as an internal error or printed
// raw control bytes.
#include <catch2/catch.hpp>
#include <string>

#include "sim/config/experiment.h"
#include "sim/config/node.h"
#include "sim/core/error.h"
#include "tests/support/config_error.h"
#include "tests/support/temp_dir.h"
#include "workloads/frontends/scalesim_cfg.h"

using namespace systole;
using test::config_error;

TEST_CASE("a path index that is not a number is a ConfigError", "[unit][reliability][fuzz]") {
  // std::stol threw std::invalid_argument: "simrun: internal error: stol", exit 1.
  CHECK(config_error([] { config::split_path("workload.layers[x].m"); }) ==
        "<path>: workload.layers[x].m: index '[x]' is not a list position (0, 1, 2, ...)");
  CHECK(config_error([] { config::split_path("a[-1]"); }) ==
        "<path>: a[-1]: index '[-1]' is not a list position (0, 1, 2, ...)");
  CHECK(config_error([] { config::split_path("a[]"); }) ==
        "<path>: a[]: index '[]' is not a list position (0, 1, 2, ...)");
  CHECK(config_error([] {
          config::split_path("a[99999999999999999999]");
        }).find("is not a list position") != std::string::npos);
  CHECK(config::split_path("a[12].b").at(1).index == 12);
  CHECK(config_error([] {
          config::Node root = config::parse_yaml("layers: [{m: 1}]\n", "e.yaml");
          config::set_path(root, "layers[x].m", config::Node::scalar("8", {"<command line>"}));
        }) == "<command line>: layers[x].m: index '[x]' is not a list position (0, 1, 2, ...)");
}

TEST_CASE("control characters in an error are written as hex escapes",
          "[unit][reliability][fuzz]") {
  const ConfigError e({"a\x1b[2Jb.yaml", 1, 2}, std::string("k\0y", 3),
                      "got '\x01\x7f'\tthen\nmore");
  CHECK(std::string(e.what()) == "a\\x1b[2Jb.yaml:1:2: k\\x00y: got '\\x01\\x7f'\tthen\\x0amore");
  // The usage block a command-line error appends keeps its lines.
  CHECK(std::string(ConfigError({"<command line>"}, "", "bad\nusage: simrun X\n  more\n").what()) ==
        "<command line>: bad\nusage: simrun X\n  more\n");
  // A SCALE-Sim .cfg line of binary bytes: one printable line.
  const std::string msg = config_error(
      [] { workloads::parse_scalesim_cfg(std::string("\x00\x01[general]\x00\n", 13), "s.cfg"); });
  CHECK(msg == "s.cfg:1: expected 'key = value' or 'key: value', got '\\x00\\x01[general]\\x00'");
}

TEST_CASE("a YAML key with a line break is one error line", "[unit][reliability][fuzz]") {
  // fuzz_experiment: a quoted key holding "\n" printed the unknown-key error on two lines.
  test::TempDir dir;
  const std::string path = dir.write("k.yaml", "name: x\n\"a\\nb\": 1\n");
  const std::string msg = config_error([&] { config::load_experiment(path, {}); });
  CHECK(msg == path +
                   ":2:1: a\\x0ab: unknown top-level key; an experiment has name, description, "
                   "system, systems, workload, sweep, output");
}

TEST_CASE("a -p path outside the experiment's keys is an error", "[unit][reliability]") {
  // It was set where nothing reads it and the run kept the file's values, exit 0 (issue 14).
  test::TempDir dir;
  const std::string path = dir.write("e.yaml", "system: {kind: tpu_chip}\nworkload: w.yaml\n");
  CHECK(config_error([&] { config::load_experiment(path, {"sytem.chip.clock=2GHz"}); }) ==
        "<command line -p sytem.chip.clock=2GHz>: sytem.chip.clock: unknown top-level key "
        "'sytem' (did you mean 'system' or 'systems'?); an experiment has name, description, "
        "system, systems, workload, sweep, output");
  CHECK(config_error([&] { config::load_experiment(path, {"chip.mxu.rows=64"}); }) ==
        "<command line -p chip.mxu.rows=64>: chip.mxu.rows: unknown top-level key 'chip' (did you "
        "mean 'system.chip.mxu.rows'?); an experiment has name, description, system, systems, "
        "workload, sweep, output");
  CHECK(config_error([&] { config::load_experiment(path, {"system.chip.mxu.rows=64"}); }) ==
        "<no error>");
}

TEST_CASE("a document yaml-cpp cannot start is a syntax error, not a hang",
          "[unit][reliability][fuzz]") {
  // fuzz_experiment: YAML::LoadAll looped forever on ",]" (jbeder/yaml-cpp issue 1040), taking
  // memory with it.
  CHECK(config_error([] { config::parse_yaml(",]\n", "e.yaml"); }) ==
        "e.yaml:1:1: YAML syntax error: unexpected ',' (no value starts with it)");
  CHECK(config_error([] { config::parse_yaml("#-p a=1\n ,]#2\nb: 1\n", "e.yaml"); }) ==
        "e.yaml:2:2: YAML syntax error: unexpected ',' (no value starts with it)");
  // Still: one document, empty files, a second document.
  CHECK(config::parse_yaml("a: 1\n", "e.yaml").find("a") != nullptr);
  CHECK(config::parse_yaml("", "e.yaml").is_null());
  CHECK(config::parse_yaml("# only a comment\n", "e.yaml").is_null());
  CHECK(config_error([] { config::parse_yaml("a: 1\n---\nb: 2\n", "e.yaml"); }) ==
        "e.yaml:3:1: a second YAML document starts here ('---'); a Systole file holds one");
}
