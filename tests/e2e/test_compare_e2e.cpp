// Several systems in one experiment (`systems:`): each system maps the workload with its own
// compiler, a sweep axis applies to the systems that have its key (and a note says which do
// not), and the comparison (/compare/networks, /compare/layers, printed after the run) holds
// each system's figures and the ratios against the first system, computed from the points'
// own results. Bad `systems:` input is one clear error with exit code 2.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;
using systole::test::TempDir;

namespace {

std::string presets() { return test::source_dir() + "/configs/presets/"; }

/// TPU v4 (MXU rows swept) against H100 on two GEMMs at two sizes.
std::string experiment() {
  return "name: cmp\n"
         "systems:\n"
         "  tpuv4: {base: " +
         presets() +
         "tpuv4_chip.yaml}\n"
         "  h100: {base: " +
         presets() +
         "h100_sxm5.yaml}\n"
         "workload:\n"
         "  params: {m: 512}\n"
         "  layers:\n"
         "    - {name: up, m: m, n: 2048, k: 1024}\n"
         "    - {name: act, op: gelu, rows: m, cols: 2048}\n"
         "    - {name: down, m: m, n: 1024, k: 2048}\n"
         "sweep:\n"
         "  workload.params.m: [512, 1024]\n"
         "  system.chip.mxu.rows: [128, 256]\n";
}

const stats::Table& table(const std::vector<stats::Table>& ts, const std::string& name) {
  for (const auto& t : ts)
    if (t.name() == name) return t;
  FAIL("no /compare/" << name);
  return ts.front();
}

double metric(const stats::PointResult& p, const std::string& name) {
  stats::Table t;
  t.append(p.metrics);
  return t.get_number(0, name);
}

}  // namespace

TEST_CASE("systems: runs every system and compares them against the first", "[e2e][compare]") {
  TempDir dir;
  dir.write("c.yaml", experiment());
  const auto r = test::simrun("c.yaml -o c.h5 -j 2", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("note: sweep.system.chip.mxu.rows does not apply to system h100") !=
        std::string::npos);
  CHECK(r.out.find("comparison: workload.params.m=512 (ratios against tpuv4 "
                   "[system.chip.mxu.rows=128])") != std::string::npos);

  // 2 sizes x (2 TPU variants + 1 H100) points, the system first in every label.
  const auto points = stats::read_points(dir.file("c.h5"));
  REQUIRE(points.size() == 6);
  std::map<std::string, const stats::PointResult*> by_label;
  for (const auto& p : points) {
    REQUIRE(p.ok());
    CHECK(p.assignments.front().first == "system");
    by_label[p.label] = &p;
  }
  const auto* ref = by_label.at("system=tpuv4, workload.params.m=512, system.chip.mxu.rows=128");
  const auto* gpu = by_label.at("system=h100, workload.params.m=512");
  CHECK(metric(*ref, "tdp_watts") == 192);
  CHECK(metric(*gpu, "tdp_watts") == 700);
  CHECK(metric(*ref, "peak_flops") == Approx(2.0 * 8 * 128 * 128 * 1.05e9));
  CHECK(stats::read_sweep(dir.file("c.h5")).column("system") == 2);  // after point_id, index

  const auto compare = stats::read_compare(dir.file("c.h5"));
  const auto& nets = table(compare, "networks");
  const auto& layers = table(compare, "layers");
  REQUIRE(nets.rows().size() == 6);            // 2 cases x 3 runs
  REQUIRE(layers.rows().size() == 2 * 2 * 3);  // cases x layers x runs
  for (size_t i = 0; i < nets.rows().size(); ++i) {
    if (nets.get_string(i, "case") != "workload.params.m=512") continue;
    const std::string sys = nets.get_string(i, "system");
    const auto& p =
        sys == "h100" ? *gpu
                      : *by_label.at("system=tpuv4, workload.params.m=512, " +
                                     sys.substr(sys.find('[') + 1, sys.size() - sys.find('[') - 2));
    INFO(sys);
    const double t = metric(p, "time"), t_ref = metric(*ref, "time");
    CHECK(nets.get_number(i, "time") == Approx(t));
    CHECK(nets.get_number(i, "speedup") == Approx(t_ref / t));
    const double per_peak = (metric(p, "achieved_flops") / metric(p, "peak_flops")) /
                            (metric(*ref, "achieved_flops") / metric(*ref, "peak_flops"));
    CHECK(nets.get_number(i, "per_peak_ratio") == Approx(per_peak));
    const double per_watt = (metric(p, "achieved_flops") / metric(p, "tdp_watts")) /
                            (metric(*ref, "achieved_flops") / metric(*ref, "tdp_watts"));
    CHECK(nets.get_number(i, "per_watt_ratio") == Approx(per_watt));
  }
  // A layer row carries the point's own layer time; the TPU fuses the GELU into the GEMM before
  // it (mapping.fusion: epilogue), so the H100's two kernels are summed into that row.
  const auto gpu_time = [&](const std::string& name) {
    double t = 0;
    const auto& l = gpu->layers;
    for (size_t k = 0; k < l.rows().size(); ++k) {
      const std::string part = l.get_string(k, "layer");
      if (name == part || name.rfind(part + "+", 0) == 0 ||
          name.find("+" + part) != std::string::npos)
        t += l.get_number(k, "time");
    }
    return t;
  };
  int fused = 0;
  for (size_t i = 0; i < layers.rows().size(); ++i) {
    if (layers.get_string(i, "case") != "workload.params.m=512" ||
        layers.get_string(i, "system") != "h100")
      continue;
    const std::string name = layers.get_string(i, "layer");
    INFO(name);
    CHECK(layers.get_number(i, "time") == Approx(gpu_time(name)));
    if (name == "up+act") {
      ++fused;
      CHECK(layers.get_string(i, "note").find("2 kernels here, one fused layer on tpuv4") !=
            std::string::npos);
    }
  }
  CHECK(fused == 1);
}

TEST_CASE("an experiment with one system writes no comparison", "[e2e][compare]") {
  TempDir dir;
  dir.write("one.yaml", "base: " + presets() +
                            "tpuv4_chip.yaml\n"
                            "workload:\n  layers:\n    - {name: g, m: 256, n: 256, k: 256}\n");
  const auto r = test::simrun("one.yaml -q -o one.h5", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(stats::read_compare(dir.file("one.h5")).empty());
}

TEST_CASE("bad systems: input is one clear error with exit code 2", "[e2e][compare][errors]") {
  TempDir dir;
  const std::string work = "workload:\n  layers:\n    - {name: g, m: 256, n: 256, k: 256}\n";
  const std::string tpu = "{base: " + presets() + "tpuv4_chip.yaml}";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"system:\n  kind: tpu_chip\nsystems:\n  a: " + tpu + "\n" + work,
       "give either `system:` (one system) or `systems:`"},
      {"systems: {}\n" + work, "expected a mapping of names to systems"},
      {"systems: [a, b]\n" + work, "expected a mapping of names to systems"},
      {"systems:\n  'a b': " + tpu + "\n" + work, "a system's name may hold letters"},
      {"systems:\n  a: {base: " + presets() + "tpuv4_chip.yaml, workload: {}}\n" + work,
       "systems.a.workload: unknown key"},
      {"systems:\n  a: {name: x}\n" + work, "systems.a.system: missing `system:`"},
  };
  for (const auto& [yaml, expect] : cases) {
    dir.write("bad.yaml", yaml);
    const auto r = test::simrun("bad.yaml -o bad.h5", dir);
    INFO(yaml << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(expect) != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("bad.h5")));
  }
  dir.write("typo.yaml",
            "systems:\n  a: " + tpu + "\n" + work + "sweep:\n  system.chip.mxu.rowz: [128, 256]\n");
  const auto typo = test::simrun("typo.yaml -o typo.h5", dir);
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.find("sweep.system.chip.mxu.rowz: no system of `systems:` has this key") !=
        std::string::npos);
  dir.write("two.yaml", "systems:\n  a: " + tpu + "\n  b: " + tpu + "\n" + work);
  const auto r = test::simrun("two.yaml -p system.chip.clock=2GHz -o two.h5", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("override one of them, e.g. -p systems.a.system.chip.clock") !=
        std::string::npos);
}

TEST_CASE("simrun compare lists the keys that differ and the changed figures", "[e2e][compare]") {
  TempDir dir;
  dir.write("g.yaml", "base: " + presets() +
                          "tpuv4_chip.yaml\n"
                          "workload:\n  params: {m: 512}\n  layers:\n"
                          "    - {name: up, m: m, n: 2048, k: 1024}\n"
                          "    - {name: down, m: m, n: 1024, k: 2048}\n"
                          "sweep:\n  workload.params.m: [512, 1024]\n");
  REQUIRE(test::simrun("g.yaml -q -o a.h5", dir).exit_code == 0);
  REQUIRE(test::simrun("g.yaml -q -o b.h5 -p system.chip.clock=2100MHz", dir).exit_code == 0);
  const auto r = test::simrun("compare a.h5 b.h5", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Exactly one key differs, and it is named with both values.
  const auto keys = r.out.substr(r.out.find("configuration keys that differ:"));
  CHECK(keys.find("  system.chip.clock: 1050MHz -> 2100MHz\n\n") != std::string::npos);
  CHECK(r.out.find("2 matched by their swept values") != std::string::npos);
  // Both points and their layers are listed with the change of time.
  const auto a = stats::read_points(dir.file("a.h5")), b = stats::read_points(dir.file("b.h5"));
  for (size_t i = 0; i < a.size(); ++i) {
    const double ta = a[i].layers.get_number(0, "time"), tb = b[i].layers.get_number(0, "time");
    INFO(a[i].label);
    CHECK(tb < ta);
    CHECK(r.out.find(a[i].label + ":\n") != std::string::npos);
  }
  // The same file against itself: nothing differs.
  const auto same = test::simrun("compare a.h5 a.h5", dir);
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("configuration keys that differ: none") != std::string::npos);
  CHECK(same.out.find("(2 layers unchanged)") != std::string::npos);
  // Bad input: exit 2, a clear message.
  const auto missing = test::simrun("compare a.h5 nope.h5", dir);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("'nope.h5' is not a results file") != std::string::npos);
  CHECK(test::simrun("compare a.h5", dir).exit_code == 2);
}
