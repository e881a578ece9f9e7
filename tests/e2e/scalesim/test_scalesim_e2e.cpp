// End to end: `simrun --scalesim-cfg X.cfg --topology Y.csv` writes results.h5 and SCALE-Sim's
// COMPUTE_REPORT.csv / BANDWIDTH_REPORT.csv / DETAILED_ACCESS_REPORT.csv in the cfg's run_name
// folder beside it, with SCALE-Sim's own numbers (from tests/data/scalesim/layers.csv); a second
// run of the same run_name is refused unless --force; bad SCALE-Sim inputs exit 2 naming file
// and line and leave nothing behind.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <tuple>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"
#include "tests/unit/scalesim/scalesim_csv.h"

using namespace systole;
using systole::test::TempDir;

namespace {

std::string data(const std::string& f) { return test::scalesim_data(f); }

std::vector<test::CsvRow> reference(const std::string& config, const std::string& df,
                                    const std::string& topology) {
  std::vector<test::CsvRow> out;
  for (auto& r : test::read_csv(data("layers.csv")))
    if (r["config"] == config && r["dataflow"] == df && r["topology"] == topology)
      out.push_back(std::move(r));
  return out;
}

/// A SCALE-Sim report (", "-separated, a trailing comma), its names and cells trimmed.
std::vector<test::CsvRow> read_report(const std::string& path) {
  auto trim = [](const std::string& t) {
    const size_t a = t.find_first_not_of(' '), b = t.find_last_not_of(' ');
    return a == std::string::npos ? std::string() : t.substr(a, b - a + 1);
  };
  std::vector<test::CsvRow> out;
  for (const auto& row : test::read_csv(path)) {
    test::CsvRow r;
    for (const auto& [k, v] : row.cells)
      if (!trim(k).empty()) r.cells[trim(k)] = trim(v);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

TEST_CASE("simrun --scalesim-cfg writes SCALE-Sim's reports and results.h5", "[e2e][scalesim]") {
  TempDir dir;
  const auto r =
      test::simrun(fmt::format("--scalesim-cfg {} --topology {} -o run/out.h5",
                               data("configs/scale.cfg"), data("topologies/alexnet.csv")),
                   dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Conv5") != std::string::npos);    // the summary table
  CHECK(r.out.find("850,960") != std::string::npos);  // total cycles of the network

  // COMPUTE_REPORT.csv: SCALE-Sim's header and Python's number formatting, line for line.
  const auto ref = reference("scale", "os", "alexnet");
  REQUIRE(ref.size() == 5);
  std::string expected =
      "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util "
      "%,\n";
  std::string expected_bw =
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, Avg "
      "FILTER DRAM BW, Avg OFMAP DRAM BW,\n";
  for (const auto& row : ref) {
    expected += fmt::format("{}, {}, {}, {}, {}, {},\n", row["layer_id"], row["total_cycles"],
                            row["stall_cycles"], row["overall_util_pct"], row["mapping_eff_pct"],
                            row["compute_util_pct"]);
    expected_bw +=
        fmt::format("{}, {}, {}, {}, {}, {}, {},\n", row["layer_id"], row["avg_ifmap_sram_bw"],
                    row["avg_filter_sram_bw"], row["avg_ofmap_sram_bw"], row["avg_ifmap_dram_bw"],
                    row["avg_filter_dram_bw"], row["avg_ofmap_dram_bw"]);
  }
  CHECK(test::slurp(dir.file("run/systole_scale/COMPUTE_REPORT.csv")) == expected);
  CHECK(test::slurp(dir.file("run/systole_scale/BANDWIDTH_REPORT.csv")) == expected_bw);
  CHECK_FALSE(std::filesystem::exists(dir.file("run/COMPUTE_REPORT.csv")));
  CHECK_FALSE(std::filesystem::exists(dir.file("run/.systole_scale.partial")));

  // DETAILED_ACCESS_REPORT.csv: SCALE-Sim v2's header; SRAM and DRAM counts as SCALE-Sim's; each
  // operand's DRAM window gives SCALE-Sim's average DRAM bandwidth.
  const std::string detail = test::slurp(dir.file("run/systole_scale/DETAILED_ACCESS_REPORT.csv"));
  const auto lines = read_report(dir.file("run/systole_scale/DETAILED_ACCESS_REPORT.csv"));
  CHECK(detail.rfind(
            "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM "
            "Filter Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start "
            "Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, DRAM IFMAP Start Cycle, DRAM IFMAP "
            "Stop Cycle, DRAM IFMAP Reads, DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM "
            "Filter Reads, DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n",
            0) == 0);
  REQUIRE(lines.size() == ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    const auto& row = lines[i];
    INFO("layer " << i);
    CHECK(row["LayerID"] == ref[i]["layer_id"]);
    CHECK(row["SRAM IFMAP Reads"] == ref[i]["sram_ifmap_reads"]);
    CHECK(row["SRAM Filter Reads"] == ref[i]["sram_filter_reads"]);
    CHECK(row["SRAM OFMAP Writes"] == ref[i]["sram_ofmap_writes"]);
    CHECK(row["DRAM IFMAP Reads"] == ref[i]["dram_ifmap_reads"]);
    CHECK(row["DRAM Filter Reads"] == ref[i]["dram_filter_reads"]);
    CHECK(row["DRAM OFMAP Writes"] == ref[i]["dram_ofmap_writes"]);
    // os: the first IFMAP demand row is served at cycle 1 (the hit latency), as SCALE-Sim
    // prints it; the last OFMAP write row is served by Total Cycles (exact values against
    // SCALE-Sim's own reports: test_scalesim_reference.cpp, detailed_small.csv).
    CHECK(row["SRAM IFMAP Start Cycle"] == "1.0");
    const double ofmap_stop = std::stod(row["SRAM OFMAP Stop Cycle"]);
    CHECK(ofmap_stop > 0);
    CHECK(ofmap_stop <= std::stod(ref[i]["total_cycles"]));
    for (const auto& [op, words, bw] : {std::tuple{"IFMAP", "Reads", "avg_ifmap_dram_bw"},
                                        std::tuple{"Filter", "Reads", "avg_filter_dram_bw"},
                                        std::tuple{"OFMAP", "Writes", "avg_ofmap_dram_bw"}}) {
      const double start = std::stod(row[fmt::format("DRAM {} Start Cycle", op)]);
      const double stop = std::stod(row[fmt::format("DRAM {} Stop Cycle", op)]);
      const double n = std::stod(row[fmt::format("DRAM {} {}", op, words)]);
      CHECK(models::scalesim::python_float(n / (stop - start + 1)) == ref[i][bw]);
    }
  }

  // results.h5: one point whose layers carry SCALE-Sim's numbers, units and descriptions.
  const auto points = stats::read_points(dir.file("run/out.h5"));
  REQUIRE(points.size() == 1);
  const auto& p = points[0];
  REQUIRE(p.ok());
  CHECK(p.config_yaml.find("run_name: \"systole_scale\"") != std::string::npos);
  CHECK(p.config_yaml.find("array_rows: 32") != std::string::npos);
  const auto& t = p.layers;
  REQUIRE(t.rows().size() == 5);
  for (size_t i = 0; i < t.rows().size(); ++i) {
    CHECK(std::to_string(t.get_int(i, "total_cycles")) == ref[i]["total_cycles"]);
    CHECK(std::to_string(t.get_int(i, "dram_filter_reads")) == ref[i]["dram_filter_reads"]);
    CHECK(models::scalesim::python_float(t.get_number(i, "compute_util")) ==
          ref[i]["compute_util_pct"]);
  }
  for (const auto& c : t.columns()) {
    INFO(c.name);
    CHECK_FALSE(c.description.empty());
  }
  CHECK(t.columns()[static_cast<size_t>(t.column("total_cycles"))].unit == "cycles");
  CHECK(t.columns()[static_cast<size_t>(t.column("avg_ifmap_dram_bw"))].unit == "words/cycle");
  const auto sweep = stats::read_sweep(dir.file("run/out.h5"));
  REQUIRE(sweep.rows().size() == 1);
  CHECK(sweep.get_int(0, "total_cycles") == 850960);
  CHECK(stats::read_meta(dir.file("run/out.h5")).experiment_name == "systole_scale");

  // A second run of the same run_name: refused before simulating, the reports left as they were.
  const std::string again =
      fmt::format("--scalesim-cfg {} --topology {} -o run/second.h5", data("configs/scale.cfg"),
                  data("topologies/test_conv.csv"));
  auto r2 = test::simrun(again, dir);
  CHECK(r2.exit_code == 2);
  CHECK(r2.err == "simrun: error: <command line>: '" + dir.file("run/systole_scale") +
                      "' holds the reports of an earlier run (run_name 'systole_scale'); give "
                      "another run_name in " +
                      data("configs/scale.cfg") + " or add --force to replace them\n");
  CHECK_FALSE(std::filesystem::exists(dir.file("run/second.h5")));
  CHECK(test::slurp(dir.file("run/systole_scale/COMPUTE_REPORT.csv")) == expected);
  // --force replaces the three reports and leaves any other file of the folder alone.
  dir.write("run/systole_scale/notes.txt", "mine\n");
  r2 = test::simrun(again + " --force -q", dir);
  INFO(r2.out << r2.err);
  CHECK(r2.exit_code == 0);
  CHECK(read_report(dir.file("run/systole_scale/COMPUTE_REPORT.csv")).size() == 1);
  CHECK(read_report(dir.file("run/systole_scale/DETAILED_ACCESS_REPORT.csv")).size() == 1);
  CHECK(test::slurp(dir.file("run/systole_scale/notes.txt")) == "mine\n");
  CHECK_FALSE(std::filesystem::exists(dir.file("run/.systole_scale.partial")));
}

TEST_CASE("simrun --scalesim-cfg: USER bandwidth, --dataflow and the GEMM format",
          "[e2e][scalesim]") {
  TempDir dir;
  for (const std::string df : {"os", "ws", "is"}) {
    const auto r = test::simrun(
        fmt::format("--scalesim-cfg {} --topology {} --dataflow {} -o {}.h5 -q --force",
                    data("configs/scale_user_bw10.cfg"), data("topologies/test_conv.csv"), df, df),
        dir);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto ref = reference("scaleUSERbw10", df, "test_conv");
    REQUIRE(ref.size() == 1);
    const auto t = stats::read_points(dir.file(df + ".h5"))[0].layers;
    CHECK(std::to_string(t.get_int(0, "total_cycles")) == ref[0]["total_cycles"]);
    CHECK(std::to_string(t.get_int(0, "stall_cycles")) == ref[0]["stall_cycles"]);
  }
  const auto g =
      test::simrun(fmt::format("--scalesim-cfg {} --topology {} --dataflow is -o g.h5",
                               data("configs/google.cfg"), data("topologies/test_mnk.csv")),
                   dir);
  INFO(g.out << g.err);
  REQUIRE(g.exit_code == 0);
  const auto mnk = reference("google", "is", "test_mnk");
  REQUIRE(mnk.size() == 1);
  CHECK(test::slurp(dir.file("systole_google/COMPUTE_REPORT.csv")) ==
        "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util "
        "%,\n" +
            fmt::format("0, {}, {}, {}, {}, {},\n", mnk[0]["total_cycles"], mnk[0]["stall_cycles"],
                        mnk[0]["overall_util_pct"], mnk[0]["mapping_eff_pct"],
                        mnk[0]["compute_util_pct"]));
}

TEST_CASE("simrun --scalesim-cfg: bad SCALE-Sim input exits 2 naming file and line",
          "[e2e][scalesim]") {
  TempDir dir;
  const std::string net = dir.write(
      "net.csv",
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
      "Strides,\nC1, 8, 8, 3, 3, 4, 1, 1,\nC2, 8, 8, x, 3, 4, 1, 1,\n");
  auto r = test::simrun(
      fmt::format("--scalesim-cfg {} --topology net.csv -o out.h5", data("configs/scale.cfg")),
      dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "simrun: error: net.csv:3: Filter Height: expected a positive integer, got 'x'\n");
  CHECK_FALSE(std::filesystem::exists(dir.file("out.h5")));
  CHECK_FALSE(std::filesystem::exists(dir.file("out.h5.partial")));
  CHECK_FALSE(std::filesystem::exists(dir.file("COMPUTE_REPORT.csv")));
  CHECK_FALSE(std::filesystem::exists(dir.file("systole_scale")));
  CHECK_FALSE(std::filesystem::exists(dir.file(".systole_scale.partial")));

  r = test::simrun("e.yaml --force", dir);  // --force belongs to SCALE-Sim mode only
  CHECK(r.exit_code == 2);
  CHECK(r.err == "simrun: error: <command line>: --force: only valid with --scalesim-cfg\n");

  dir.write("bad.cfg", "[general]\nrun_name = x\n[architecture_presets]\nArrayHeight: 8\n");
  r = test::simrun("--scalesim-cfg bad.cfg --topology net.csv", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "simrun: error: bad.cfg: [run_presets]: missing section (SCALE-Sim reads "
        "InterfaceBandwidth from it)\n");

  r = test::simrun(fmt::format("--scalesim-cfg {} --topology {} --dataflow xs",
                               data("configs/scale.cfg"), data("topologies/test_mnk.csv")),
                   dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--dataflow: expected os, ws or is, got 'xs'") != std::string::npos);

  r = test::simrun(fmt::format("--topology {}", data("topologies/test_mnk.csv")), dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "simrun: error: <command line>: --topology: only valid with --scalesim-cfg\n");

  r = test::simrun(fmt::format("--scalesim-cfg {}", data("configs/scale.cfg")), dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--topology: missing") != std::string::npos);
}
