// Bad input: every malformed experiment prints one clear line and exits 2, leaving no output.
#include <catch2/catch.hpp>

#include "tests/support/run.h"

using systole::test::TempDir;

namespace {

struct Case {
  const char* name;
  std::string yaml;
  std::string expected;  // the whole stderr line after "simrun: error: "
};

std::string preset() { return systole::test::source_dir() + "/configs/presets/tpuv4_chip.yaml"; }
std::string shapes() { return systole::test::source_dir() + "/workloads/gemm_shapes.yaml"; }

void check_rejected(const Case& c) {
  TempDir dir;
  dir.write("bad.yaml", c.yaml);
  const auto r = systole::test::simrun("bad.yaml -o out.h5", dir);
  INFO(c.name << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "simrun: error: " + c.expected + "\n");
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir.file("out.h5")));
  CHECK_FALSE(std::filesystem::exists(dir.file("out.h5.partial")));
}

}  // namespace

TEST_CASE("malformed experiments exit 2 with one line and no output", "[e2e][errors]") {
  const std::string base = "base: " + preset() + "\n";
  const std::string wl = "workload: " + shapes() + "\n";
  const std::vector<Case> cases = {
      {"yaml syntax error", "system:\n  kind: tpu_chip\n  chip: {mxu: {rows: 128\n" + wl,
       "bad.yaml:4:9: YAML syntax error: end of map flow not found"},
      {"empty file", "", "bad.yaml:1:1: the file is empty: expected a YAML mapping"},
      {"unknown key at depth", base + "system:\n  chip:\n    mxu:\n      rowz: 128\n" + wl,
       "bad.yaml:5:7: system.chip.mxu.rowz: unknown key for mxu (did you mean 'rows'?)"},
      {"unknown top-level key", base + wl + "sweeep: {}\n",
       "bad.yaml:3:1: sweeep: unknown top-level key (did you mean 'sweep'?); an experiment has "
       "name, description, system, systems, workload, sweep, output"},
      {"bad unit", base + "system:\n  chip:\n    hbm:\n      bandwidth: 1.2TB\n" + wl,
       "bad.yaml:5:18: system.chip.hbm.bandwidth: expected a bandwidth such as 1.2TB/s, 900GB/s, "
       "64GiB/s, got a size ('1.2TB')"},
      {"unknown unit", base + "system:\n  chip:\n    vmem:\n      capacity: 16Mb\n" + wl,
       "bad.yaml:5:17: system.chip.vmem.capacity: expected a size such as 16MiB, 512KB, 4096B: "
       "unknown unit 'Mb' in '16Mb'"},
      {"zero size", base + "system:\n  chip:\n    mxu:\n      rows: 0\n" + wl,
       "bad.yaml:5:13: system.chip.mxu.rows: expected an integer in [1, 4096], got 0"},
      {"negative dimension", base + "workload:\n  layers:\n    - {m: -4, n: 8, k: 8}\n",
       "bad.yaml:4:11: workload.layers[0].m: expected an integer in [1, 16777216], got -4"},
      {"zero dimension", base + "workload:\n  layers:\n    - {m: 4, n: 0, k: 8}\n",
       "bad.yaml:4:17: workload.layers[0].n: expected an integer in [1, 16777216], got 0"},
      {"huge dimension", base + "workload:\n  layers:\n    - {m: 4, n: 8, k: 99999999999}\n",
       "bad.yaml:4:23: workload.layers[0].k: expected an integer in [1, 16777216], got "
       "99999999999"},
      {"missing workload file", base + "workload: nothere.yaml\n",
       "bad.yaml:2:11: workload.file: file 'nothere.yaml' not found; searched ., the "
       "repository's configs/, configs/presets/, workloads/ and root, SYSTOLE_PATH (unset)"},
      {"missing base file", "base: presets/nothere.yaml\n" + wl,
       "bad.yaml:1:7: base: file 'presets/nothere.yaml' not found; searched ., the repository's "
       "configs/, configs/presets/, workloads/ and root, SYSTOLE_PATH (unset)"},
      {"missing workload section", base, "bad.yaml: workload: missing 'workload:' section"},
      {"unknown system kind", base + "system: {kind: tpu_chp}\n" + wl,
       "bad.yaml:2:16: system.kind: unknown system kind 'tpu_chp' (did you mean 'tpu_chip'?); "
       "known kinds: tpu_chip, gpu_device, tpu_pod, gpu_node"},
      {"unknown layer op", base + "workload:\n  layers:\n    - {op: gemmm, m: 4, n: 8, k: 8}\n",
       "bad.yaml:4:12: workload.layers[0].op: unknown op 'gemmm' (did you mean 'gemm'?); known "
       "ops: gemm, conv2d, attention, softmax, layernorm, rmsnorm, gelu, silu, add, mul, lstm, "
       "all_reduce, reduce_scatter, all_gather, all_to_all"},
      {"a tile that does not fit", base + "system: {chip: {vmem: {capacity: 64KiB}}}\n" + wl,
       shapes() + ":10:5: layer 'square_8k' (8192x8192x8192) fits nowhere: its smallest tiling "
                  "needs 76 KiB of VMEM, the core has 64 KiB (raise system.chip.vmem.capacity)"},
      {"empty sweep list", base + wl + "sweep:\n  system.chip.mxu.rows: []\n",
       "bad.yaml:4:25: sweep.system.chip.mxu.rows: the sweep list is empty"},
      {"bad sweep point", base + wl + "sweep:\n  system.chip.mxu.rows: [128, 0]\n",
       "bad.yaml:4:31: system.chip.mxu.rows: expected an integer in [1, 4096], got 0 [in sweep "
       "point 1: system.chip.mxu.rows=0]"},
  };
  for (const auto& c : cases) check_rejected(c);
}

TEST_CASE("a missing experiment file exits 2", "[e2e][errors]") {
  TempDir dir;
  const auto r = systole::test::simrun("nothere.yaml", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "simrun: error: nothere.yaml: file 'nothere.yaml' does not exist\n");
}

TEST_CASE("bad command-line options exit 2", "[e2e][errors]") {
  TempDir dir;
  auto r = systole::test::simrun("--jobs 0 x.yaml", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--jobs: expected a positive number") != std::string::npos);
  r = systole::test::simrun("--frobnicate", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unrecognised option '--frobnicate'") != std::string::npos);
  r = systole::test::simrun(systole::test::source_dir() + "/configs/tpuv4.yaml -p oops", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("expected key.path=value") != std::string::npos);
}
