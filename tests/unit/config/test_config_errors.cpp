// The exact one-line messages users see for bad experiment files:
//   file:line:col: yaml.path: what was expected (did you mean ...)
// Each case writes an experiment into a temp dir (on top of the real TPU v4 preset) and runs the
// same validation simrun does: load_experiment, the tpu_chip system schema, the workload frontend.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "models/systems/tpu_chip/tpu_system_config.h"
#include "sim/config/experiment.h"
#include "sim/core/error.h"
#include "tests/support/paths.h"
#include "tests/support/temp_dir.h"
#include "workloads/frontends/yaml_workload.h"

namespace fs = std::filesystem;
using namespace systole;

namespace {

using systole::test::TempDir;

std::string preset() { return test::source_dir() + "/configs/presets/tpuv4_chip.yaml"; }

// "base: <preset>\n" — line 1 of every experiment below.
std::string base_line() { return "base: " + preset() + "\n"; }

// A valid inline workload section (3 lines).
const char* const kWorkload =
    "workload:\n"
    "  layers:\n"
    "    - {m: 8, n: 8, k: 8}\n";

// Validates the experiment at `path` like simrun does.
void validate(const std::string& path) {
  const config::Experiment ex = config::load_experiment(path, {});
  models::TpuSystemConfig::schema().load(*ex.root.find("system"), "system");
  workloads::load_workload(*ex.root.find("workload"));
}

// Writes `text` as exp.yaml in a fresh temp dir; `path` is set to its full path. Returns the
// ConfigError's message, or "<no error>".
struct ExperimentFile {
  TempDir tmp;
  std::string path;
  explicit ExperimentFile(const std::string& text) : path(tmp.write("exp.yaml", text)) {}
  std::string error() const {
    try {
      validate(path);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "<no error>";
  }
};

}  // namespace

TEST_CASE("config errors: the preset experiment itself is valid", "[config][errors]") {
  const ExperimentFile ex(base_line() + kWorkload);
  CHECK(ex.error() == "<no error>");
}

TEST_CASE("config errors: YAML syntax error", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    mxu: {rows: 128\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path + ":5:9: YAML syntax error: end of map flow not found");
}

TEST_CASE("config errors: empty file", "[config][errors]") {
  const ExperimentFile empty("");
  REQUIRE(empty.error() == empty.path + ":1:1: the file is empty: expected a YAML mapping");

  const ExperimentFile comments("# nothing here yet\n");
  REQUIRE(comments.error() == comments.path + ":1:1: the file is empty: expected a YAML mapping");
}

TEST_CASE("config errors: a file that is not a mapping", "[config][errors]") {
  const ExperimentFile ex("- system\n- workload\n");
  REQUIRE(ex.error() ==
          ex.path + ":1:1: expected a mapping with 'system:' and 'workload:', got a list");
}

TEST_CASE("config errors: unknown key deep in the system with a suggestion", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    mxu:\n"
                          "      rowz: 256\n" +
                          kWorkload);
  REQUIRE(ex.error() ==
          ex.path + ":5:7: system.chip.mxu.rowz: unknown key for mxu (did you mean 'rows'?)");
}

TEST_CASE("config errors: unknown key with nothing close lists the allowed keys",
          "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    hbm:\n"
                          "      speed: 2TB/s\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":5:7: system.chip.hbm.speed: unknown key for hbm; allowed keys: "
                            "model, preset, stacks, capacity, channels, pseudo_channels, "
                            "channel_width, bank_groups, banks_per_group, columns, burst_length, "
                            "beats_per_clock, command_buses, data_rate, bandwidth, latency, "
                            "efficiency, t_cl, t_cwl, t_rcd_rd, t_rcd_wr, t_rp, t_ras, t_rc, "
                            "t_wr, t_rtp, t_ccd_s, t_ccd_l, t_rrd_s, t_rrd_l, t_faw, t_wtr_s, "
                            "t_wtr_l, t_refi, t_rfc, t_btr, address_mapping, interleave, "
                            "address_hash, page_policy, "
                            "scheduler, refresh, read_queue, write_queue, transfer_queue, "
                            "write_drain_high, write_drain_low");
}

TEST_CASE("config errors: unknown top-level key", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "systme:\n"
                          "  chip: {}\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":2:1: systme: unknown top-level key (did you mean 'system' or "
                            "'systems'?); an experiment has name, description, system, systems, "
                            "workload, sweep, output");
}

TEST_CASE("config errors: a size where a bandwidth is expected", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    hbm:\n"
                          "      bandwidth: 1.2TB\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":5:18: system.chip.hbm.bandwidth: expected a bandwidth such as "
                            "1.2TB/s, 900GB/s, 64GiB/s, got a size ('1.2TB')");
}

TEST_CASE("config errors: an unknown unit", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    clock: 1.4Ghz\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":4:12: system.chip.clock: expected a frequency such as 1050MHz, "
                            "1.4GHz: unknown unit 'Ghz' in '1.4Ghz'");
}

TEST_CASE("config errors: a number without a unit for a size", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    vmem:\n"
                          "      capacity: 16\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":5:17: system.chip.vmem.capacity: expected a size such as 16MiB, "
                            "512KB, 4096B: '16' has no unit");
}

TEST_CASE("config errors: zero and negative integers are out of range", "[config][errors]") {
  const ExperimentFile zero(base_line() +
                            "system:\n"
                            "  chip:\n"
                            "    mxu:\n"
                            "      rows: 0\n" +
                            kWorkload);
  REQUIRE(zero.error() ==
          zero.path + ":5:13: system.chip.mxu.rows: expected an integer in [1, 4096], got 0");

  const ExperimentFile negative(base_line() +
                                "system:\n"
                                "  chip:\n"
                                "    tensor_cores: -2\n" +
                                kWorkload);
  REQUIRE(negative.error() == negative.path +
                                  ":4:19: system.chip.tensor_cores: expected an integer in [1, "
                                  "64], got -2");

  const ExperimentFile layer(base_line() +
                             "workload:\n"
                             "  layers:\n"
                             "    - {m: 8, n: 8, k: 8}\n"
                             "    - {m: -8, n: 8, k: 8}\n");
  REQUIRE(layer.error() == layer.path +
                               ":5:11: workload.layers[1].m: expected an integer in [1, "
                               "16777216], got -8");
}

TEST_CASE("config errors: a mapping where a value is expected", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    clock:\n"
                          "      value: 1GHz\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":5:7: system.chip.clock: expected a frequency such as 1050MHz, "
                            "1.4GHz, got a mapping");
}

TEST_CASE("config errors: a value where a mapping is expected", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    mxu: 128\n" +
                          kWorkload);
  REQUIRE(ex.error() ==
          ex.path + ":4:10: system.chip.mxu: expected a mapping of mxu parameters, got a value");
}

TEST_CASE("config errors: missing workload or system section", "[config][errors]") {
  const ExperimentFile no_workload(base_line());
  REQUIRE(no_workload.error() == no_workload.path + ": workload: missing 'workload:' section");

  const ExperimentFile no_system(kWorkload);
  REQUIRE(no_system.error() ==
          no_system.path +
              ": system: missing 'system:' section (or `systems:` to compare several)");
}

TEST_CASE("config errors: missing base file", "[config][errors]") {
  TempDir other;
  const std::string missing = (other.dir / "missing.yaml").string();
  const ExperimentFile ex("name: x\nbase: " + missing + "\n" + kWorkload);
  // An absolute path is looked for only where it points.
  REQUIRE(ex.error() == ex.path + ":2:7: base: file '" + missing + "' not found");
}

TEST_CASE("config errors: duplicate key", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    mxu:\n"
                          "      rows: 64\n"
                          "      rows: 256\n" +
                          kWorkload);
  REQUIRE(ex.error() ==
          ex.path + ":6:7: system.chip.mxu.rows: duplicate key (first given at line 5)");
}

TEST_CASE("config errors: bad enum value with a suggestion", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    mxu:\n"
                          "      dataflow: wss\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":5:17: system.chip.mxu.dataflow: expected one of ws, os, is, got "
                            "'wss' (did you mean 'ws'?)");

  const ExperimentFile dtype(base_line() +
                             "system:\n"
                             "  chip:\n"
                             "    mxu:\n"
                             "      input_type: bf61\n" +
                             kWorkload);
  REQUIRE(dtype.error() == dtype.path +
                               ":5:19: system.chip.mxu.input_type: expected one of int8, bf16, "
                               "fp8_e4m3, fp8_e5m2, got 'bf61' (did you mean 'bf16'?)");
}

TEST_CASE("config errors: tiled weights on a chip without a weight FIFO", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  mapping:\n"
                          "    weight_layout: tiled\n" +
                          kWorkload);
  REQUIRE(ex.error() == ex.path +
                            ":4:20: system.mapping.weight_layout: tiled weights are laid out as "
                            "the weight FIFO's tiles, and this chip has no weight FIFO "
                            "(chip.mxu.weight_fifo is 0): use weight_layout: row_major, or give "
                            "the MXU a weight FIFO (chip.mxu.weight_fifo: 4, as TPU v1)");
  const ExperimentFile fifo(base_line() +
                            "system:\n"
                            "  chip: {mxu: {weight_fifo: 4}}\n"
                            "  mapping: {weight_layout: tiled}\n" +
                            kWorkload);
  CHECK(fifo.error() == "<no error>");
}

TEST_CASE("config errors: ConfigError exits with code 2", "[config][errors]") {
  const ExperimentFile ex(base_line() +
                          "system:\n"
                          "  chip:\n"
                          "    mxu:\n"
                          "      rows: 0\n" +
                          kWorkload);
  try {
    validate(ex.path);
    FAIL("expected a ConfigError");
  } catch (const Error& e) {
    CHECK(e.exit_code() == 2);
    const auto* ce = dynamic_cast<const ConfigError*>(&e);
    REQUIRE(ce);
    CHECK(ce->origin().file == ex.path);
    CHECK(ce->origin().line == 5);
    CHECK(ce->origin().column == 13);
    CHECK(ce->path() == "system.chip.mxu.rows");
    CHECK(ce->message() == "expected an integer in [1, 4096], got 0");
  }
}
