// The SCALE-Sim readers: the .cfg INI and both topology formats, SCALE-Sim's reading quirks,
// and every kind of bad input with the exact message (file:line: field: what was expected).
#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "workloads/frontends/scalesim_cfg.h"
#include "workloads/frontends/scalesim_topology.h"

using namespace systole;
using namespace systole::workloads;
using models::scalesim::Dataflow;

namespace {

const std::string kCfg = R"([general]
run_name = test_run

[architecture_presets]
ArrayHeight:    32
ArrayWidth:     16
IfmapSramSzkB:   64
FilterSramSzkB:  32
OfmapSramSzkB:   8
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : 10
Dataflow : ws
MemoryBanks: 1

[run_presets]
InterfaceBandwidth: CALC
)";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string cfg_error(const std::string& text) {
  try {
    parse_scalesim_cfg(text, "scale.cfg");
  } catch (const ConfigError& e) {
    CHECK(e.exit_code() == 2);
    return e.what();
  }
  FAIL("no error");
  return "";
}

std::string topo_error(const std::string& text) {
  try {
    parse_scalesim_topology(text, "net.csv");
  } catch (const ConfigError& e) {
    CHECK(e.exit_code() == 2);
    return e.what();
  }
  FAIL("no error");
  return "";
}

const std::string kConvHeader =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
    "Strides,\n";

}  // namespace

TEST_CASE("scalesim cfg: the keys SCALE-Sim reads", "[scalesim]") {
  const auto c = parse_scalesim_cfg(kCfg, "scale.cfg");
  CHECK(c.run_name == "test_run");
  CHECK(c.arch.rows == 32);
  CHECK(c.arch.cols == 16);
  CHECK(c.arch.ifmap_sram_kb == 64);
  CHECK(c.arch.filter_sram_kb == 32);
  CHECK(c.arch.ofmap_sram_kb == 8);
  CHECK(c.filter_offset == 10000000);
  CHECK(c.arch.dataflow == Dataflow::kWs);
  CHECK_FALSE(c.arch.user_bandwidth);
  CHECK(c.warnings.empty());
  CHECK(c.to_yaml().find("array_rows: 32") != std::string::npos);

  // USER mode: Bandwidth takes effect (the first of its list, one per memory bank).
  auto u = parse_scalesim_cfg(replace(kCfg, "CALC", "USER"), "scale.cfg");
  CHECK(u.arch.user_bandwidth);
  CHECK(u.arch.bandwidth == 10);
  u = parse_scalesim_cfg(
      replace(replace(replace(kCfg, "CALC", "USER"), "Bandwidth : 10", "Bandwidth : 20, 5"),
              "MemoryBanks: 1", "MemoryBanks: 2"),
      "scale.cfg");
  CHECK(u.arch.bandwidth == 20);

  // configparser: keys case-insensitive, '=' or ':', comment lines, CRLF.
  const auto lc = parse_scalesim_cfg(
      replace(replace(kCfg, "ArrayHeight:    32", "# a comment\narrayheight = 8\r"), "ws", "is"),
      "scale.cfg");
  CHECK(lc.arch.rows == 8);
  CHECK(lc.arch.dataflow == Dataflow::kIs);

  // Keys of other SCALE-Sim versions are accepted; unknown ones are reported, not fatal.
  const auto w = parse_scalesim_cfg(kCfg +
                                        "UseRamulatorTrace: False\nFoo: 1\n[sparsity]\n"
                                        "SparsitySupport : false\n",
                                    "scale.cfg");
  REQUIRE(w.warnings.size() == 1);
  CHECK(w.warnings[0] == "scale.cfg:20: ignoring unknown key 'Foo' in [run_presets]");
}

TEST_CASE("scalesim cfg: bad input names file, line and key", "[scalesim]") {
  CHECK(cfg_error(replace(kCfg, "ArrayWidth:     16\n", "")) ==
        "scale.cfg:4: ArrayWidth: missing in [architecture_presets]");
  CHECK(cfg_error(replace(kCfg, "ArrayWidth:     16", "ArrayWidth: x")) ==
        "scale.cfg:6: ArrayWidth: expected a positive integer, got 'x'");
  CHECK(cfg_error(replace(kCfg, "ArrayWidth:     16", "ArrayWidth: 16.0")) ==
        "scale.cfg:6: ArrayWidth: expected a positive integer, got '16.0'");
  CHECK(cfg_error(replace(kCfg, "OfmapSramSzkB:   8", "OfmapSramSzkB: 0")) ==
        "scale.cfg:9: OfmapSramSzkB: expected a positive integer, got '0'");
  CHECK(cfg_error(replace(kCfg, "FilterOffset:   10000000", "FilterOffset: -1")) ==
        "scale.cfg:11: FilterOffset: expected a non-negative integer, got '-1'");
  CHECK(cfg_error(replace(kCfg, "Dataflow : ws", "Dataflow : xs")) ==
        "scale.cfg:14: Dataflow: expected os, ws or is, got 'xs' (did you mean 'os', 'ws' or "
        "'is'?)");
  CHECK(cfg_error(replace(kCfg, "CALC", "AUTO")) ==
        "scale.cfg:18: InterfaceBandwidth: expected USER or CALC, got 'AUTO'");
  CHECK(cfg_error(replace(replace(kCfg, "CALC", "USER"), "Bandwidth : 10", "Bandwidth : ten")) ==
        "scale.cfg:13: Bandwidth: expected a positive integer, got 'ten'");
  CHECK(cfg_error(replace(replace(kCfg, "CALC", "USER"), "Bandwidth : 10\n", "")) ==
        "scale.cfg:4: Bandwidth: missing in [architecture_presets]");
  CHECK(cfg_error(replace(replace(kCfg, "CALC", "USER"), "Bandwidth : 10", "Bandwidth : 10, 20")) ==
        "scale.cfg:13: Bandwidth: expected 1 value (MemoryBanks: 1), got 2");
  CHECK(cfg_error(replace(kCfg, "[general]\nrun_name = test_run\n", "")) ==
        "scale.cfg: [general]: missing section (SCALE-Sim reads run_name from it)");
  CHECK(cfg_error("ArrayHeight: 3\n" + kCfg) ==
        "scale.cfg:1: a key before the first [section] header");
  CHECK(cfg_error(replace(kCfg, "ArrayWidth:     16", "ArrayWidth 16")) ==
        "scale.cfg:6: expected 'key = value' or 'key: value', got 'ArrayWidth 16'");
  CHECK(cfg_error(replace(kCfg, "ArrayWidth:     16", "ArrayWidth: 16\narraywidth: 8")) ==
        "scale.cfg:7: arraywidth: repeated in [architecture_presets] (first at line 6)");
  CHECK(cfg_error(kCfg + "[general]\n") ==
        "scale.cfg:19: [general]: section repeated (first at line 1)");
  CHECK(cfg_error(kCfg + "[sparsity]\nSparsitySupport : true\n") ==
        "scale.cfg:20: SparsitySupport: 'true' is not modelled: Systole's scalesim mode "
        "reproduces SCALE-Sim v2 without sparsity; set it to False");
  CHECK(cfg_error(kCfg + "UseRamulatorTrace: True\n") ==
        "scale.cfg:19: UseRamulatorTrace: 'True' is not modelled: Systole's scalesim mode "
        "reproduces SCALE-Sim v2 without Ramulator traces; set it to False");
  CHECK_THROWS_WITH(load_scalesim_cfg("/nonexistent/x.cfg"),
                    "/nonexistent/x.cfg: cannot open SCALE-Sim config file");
}

TEST_CASE("scalesim topology: conv and GEMM formats, SCALE-Sim's reading rules", "[scalesim]") {
  const auto t = parse_scalesim_topology(kConvHeader +
                                             "Conv1, 224, 224, 11, 11, 3, 96, 4,\n"
                                             "\n"
                                             "Conv2, 27, 20, 5, 3, 96, 256, 1, 2,\n",
                                         "dir/alexnet.csv");
  CHECK_FALSE(t.gemm);
  CHECK(t.name == "alexnet");
  REQUIRE(t.layers.size() == 2);
  const auto& c1 = t.layers[0].layer;
  CHECK(c1.name == "Conv1");
  CHECK(c1.stride_h == 4);
  CHECK(c1.stride_w == 4);    // one stride column: both dimensions
  CHECK(c1.ofmap_h() == 55);  // ceil((224 - 11 + 4) / 4)
  CHECK(c1.gemm_m() == 3025);
  CHECK(c1.gemm_k() == 363);
  const auto& c2 = t.layers[1];
  CHECK(c2.line == 4);
  CHECK(c2.layer.stride_h == 1);
  CHECK(c2.layer.stride_w == 2);  // the optional 9th column
  CHECK(t.warnings.empty());

  // GEMM format, told apart by the header; a row is the conv layer H=M, W=K, R=1, S=K.
  const auto g = parse_scalesim_topology("Layer, M, N, K,\nQKT, 1024, 1024, 64,\n", "gpt2.csv");
  CHECK(g.gemm);
  REQUIRE(g.layers.size() == 1);
  CHECK(g.layers[0].layer.gemm_m() == 1024);
  CHECK(g.layers[0].layer.gemm_n() == 1024);
  CHECK(g.layers[0].layer.gemm_k() == 64);
  CHECK(g.layers[0].layer.ifmap_w == 64);
  CHECK(parse_scalesim_topology("Layer name,m,n,k\nA,1,2,3,\n", "x.csv").gemm);

  // Depthwise: a name containing "DP" becomes one single-channel layer per channel.
  const auto dp = parse_scalesim_topology(kConvHeader + "Conv_DP, 8, 8, 3, 3, 4, 1, 1,\n", "m.csv");
  REQUIRE(dp.layers.size() == 4);
  CHECK(dp.layers[3].layer.name == "Conv_DPChannel_3");
  CHECK(dp.layers[3].layer.channels == 1);

  // The field after the last comma is dropped: a lost 9th column is reported.
  const auto lost = parse_scalesim_topology(kConvHeader + "C, 8, 8, 3, 3, 4, 1, 1, 2\n", "n.csv");
  CHECK(lost.layers[0].layer.stride_w == 1);
  REQUIRE(lost.warnings.size() == 1);
  CHECK(lost.warnings[0] == "n.csv:2: no trailing comma: SCALE-Sim ignores the last field ('2')");
}

TEST_CASE("scalesim topology: bad input names file, line and field", "[scalesim]") {
  CHECK(topo_error(kConvHeader + "C1, 8, 8, 3, 3, 4, 1, 1,\nC2, 8, 8, x, 3, 4, 1, 1,\n") ==
        "net.csv:3: Filter Height: expected a positive integer, got 'x'");
  CHECK(topo_error(kConvHeader + "C1, 8, 8, 3, 3, 4, 0, 1,\n") ==
        "net.csv:2: Num Filter: expected a positive integer, got '0'");
  CHECK(topo_error(kConvHeader + "C1, 8, 8, 3, 3, 4, 1, -2,\n") ==
        "net.csv:2: Strides: expected a positive integer, got '-2'");
  CHECK(topo_error(kConvHeader + "C1, 8, 8, 3, 3, 4, 1,\n") == "net.csv:2: Strides: missing");
  CHECK(topo_error(kConvHeader + "C1, 8, 8, 3, 3, 4, 1, 1\n") ==
        "net.csv:2: Strides: missing (SCALE-Sim ignores the text after the last comma, here '1': "
        "end each row with ',')");
  CHECK(topo_error(kConvHeader + "C1, 3, 8, 5, 3, 4, 1, 1,\n") ==
        "net.csv:2: Filter Height: 5 is larger than IFMAP Height 3");
  CHECK(topo_error(kConvHeader + "C1, 8, 2, 3, 3, 4, 1, 1,\n") ==
        "net.csv:2: Filter Width: 3 is larger than IFMAP Width 2");
  CHECK(topo_error(kConvHeader + "C1, 8, 8, 3, 3, 4, 1, 1, 1, z,\n") ==
        "net.csv:2: column 10: expected an integer, got 'z'");
  CHECK(topo_error("Layer, M, N, K,\nA, 64, 32,\n") == "net.csv:2: K: missing");
  CHECK(topo_error("Layer, M, N, K\nQKT,1024,1024,64\n") ==
        "net.csv:2: K: missing (SCALE-Sim ignores the text after the last comma, here '64': end "
        "each row with ',')");
  CHECK(topo_error("Layer, M, N, K,\nA, 64, 0, 16,\n") ==
        "net.csv:2: N: expected a positive integer, got '0'");
  CHECK(topo_error("Layer, M, N, K,\nA, 64, 1e3, 16,\n") ==
        "net.csv:2: N: expected a positive integer, got '1e3'");
  CHECK(topo_error("Conv1, 224, 224, 11, 11, 3, 96, 4,\n") ==
        "net.csv:1: expected a header line, got a layer (SCALE-Sim always skips line 1; add "
        "'Layer name, IFMAP Height, ...' or 'Layer, M, N, K,')");
  CHECK(topo_error("") == "net.csv: empty topology file (expected a header and layers)");
  CHECK(topo_error(kConvHeader + "\n") == "net.csv:2: no layers after the header");
  CHECK_THROWS_WITH(load_scalesim_topology("/nonexistent/net.csv"),
                    "/nonexistent/net.csv: cannot open topology file");
}
