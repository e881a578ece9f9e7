// Validation against the TPU v1 paper (N. P. Jouppi et al., "In-Datacenter Performance Analysis
// of a Tensor Processing Unit", ISCA 2017): the measured TOPS and matrix-unit cycle breakdown
// of its six applications (Table 3; CNN0 = 86 and CNN1 = 14.1 TOPS also in the §4 text) beside
// Systole's prediction for layer sets shaped like them (Table 1) on the TPU v1-like preset.
// README.md beside this file has the table, how the MXU's cycle classes map to Table 3's rows,
// and the cause of every error. The targets below were set before measuring (issue 10) and are
// not moved to fit a result; a target the model misses is tagged [!mayfail] with its cause.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;

namespace {

/// Table 3 of the paper: rows 9 (TOPS), 1 (array active), 4 (weight stall), 5 (weight shift),
/// 6 (non-matrix), 7 (RAW stalls) and 8 (input data stalls, known for MLP1, README.md, and for
/// CNN1, "1% PCIe input stalls" in §4; NaN: not transcribed); rows 1, 4, 5 and 6 total 100%.
struct Paper {
  double tops, active, weight_stall, weight_shift, non_matrix, raw, input_stall;
};
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
const std::map<std::string, Paper> kPaper = {
    {"mlp0", {12.3, 12.7, 53.9, 15.9, 17.5, 3.3, kUnknown}},
    {"mlp1", {9.7, 10.6, 44.2, 13.4, 31.9, 8.4, 8.8}},
    {"lstm0", {3.7, 8.2, 58.1, 15.8, 17.9, 14.6, kUnknown}},
    {"lstm1", {2.8, 10.5, 62.1, 17.1, 10.3, 10.6, kUnknown}},
    {"cnn0", {86.0, 78.2, 0.0, 0.0, 21.8, 3.5, kUnknown}},
    {"cnn1", {14.1, 46.2, 28.1, 7.0, 18.7, 22.8, 1.0}},
};

// Targets (issue 10, stated before measuring): MLP0, MLP1, LSTM0, LSTM1 within 15% of the
// paper's TOPS and within 15 percentage points of its weight-stall share; the mean absolute
// TOPS error over all six applications at most 20% (the paper's own model: 8%, Table 7).
constexpr double kTopsError = 0.15;
constexpr double kStallPoints = 15.0;
constexpr double kMeanTopsError = 0.20;

/// One application as simulated: TOPS and Table 3's rows from the MXU's cycle classes, in % of
/// the run's cycles (README.md: the mapping).
struct Simulated {
  double tops = 0, active = 0, weight_stall = 0, weight_shift = 0, non_matrix = 0, raw = 0;
  double input_stall = 0;
};

const std::map<std::string, Simulated>& simulated() {
  static const std::map<std::string, Simulated> runs = [] {
    std::map<std::string, Simulated> out;
    test::TempDir dir;
    const auto r =
        test::simrun(test::source_dir() + "/tests/validation/tpuv1.yaml -o v1.h5 -q", dir);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const auto& p : stats::read_points(dir.file("v1.h5"))) {
      REQUIRE(p.ok());
      REQUIRE(p.assignments.size() == 1);
      std::string name = p.assignments[0].second;  // tpuv1/<app>.yaml
      name = name.substr(name.find('/') + 1);
      name = name.substr(0, name.find('.'));
      double macs = 0, seconds = 0, cycles = 0, busy = 0, shift = 0, weight = 0, waits = 0;
      double host = 0;
      const auto& l = p.layers;
      for (size_t i = 0; i < l.rows().size(); ++i) {
        macs += l.get_number(i, "macs");
        seconds += l.get_number(i, "time");
        cycles += l.get_number(i, "cycles");
        busy += l.get_number(i, "mxu_busy_cycles");
        shift += l.get_number(i, "mxu_load_cycles");
        weight += l.get_number(i, "mxu_stall_weight_cycles");
        host += l.get_number(i, "mxu_stall_host_cycles");
        waits +=
            l.get_number(i, "mxu_stall_input_cycles") + l.get_number(i, "mxu_fill_drain_cycles");
      }
      Simulated s;
      s.tops = 2 * macs / seconds / 1e12;
      s.active = 100 * busy / cycles;
      s.weight_stall = 100 * weight / cycles;
      s.weight_shift = 100 * shift / cycles;
      s.non_matrix = 100 - s.active - s.weight_stall - s.weight_shift;
      s.raw = 100 * (waits - weight - host) / cycles;
      s.input_stall = 100 * host / cycles;
      out[name] = s;
    }
    REQUIRE(out.size() == kPaper.size());
    return out;
  }();
  return runs;
}

void check_app(const std::string& app) {
  const Simulated& s = simulated().at(app);
  const Paper& p = kPaper.at(app);
  const double error = s.tops / p.tops - 1;
  INFO(app << ": Systole " << s.tops << " TOPS, paper " << p.tops << ", error " << 100 * error
           << "%; weight stall " << s.weight_stall << "% vs " << p.weight_stall << "%");
  CHECK(std::fabs(error) <= kTopsError);
  CHECK(std::fabs(s.weight_stall - p.weight_stall) <= kStallPoints);
}

}  // namespace

TEST_CASE("TPU v1: the cycle breakdown partitions each run", "[validation]") {
  for (const auto& [app, s] : simulated()) {
    INFO(app << ": active " << s.active << "%, weight stall " << s.weight_stall
             << "%, weight shift " << s.weight_shift << "%, RAW " << s.raw << "%, TOPS " << s.tops);
    // The classes cover disjoint cycles of the run, and the TOPS stay under the peak they imply.
    CHECK(s.non_matrix >= 0);
    CHECK(s.raw >= 0);
    CHECK(s.input_stall >= 0);
    CHECK(s.input_stall <= s.non_matrix + 1e-9);       // part of the non-matrix cycles
    CHECK(s.tops <= 91.75 * s.active / 100 * 1.0001);  // 65,536 MACs x 2 x 0.7 GHz when active
  }
  // The table of README.md, printed for people.
  std::string table;
  for (const auto& [app, s] : simulated()) {
    const Paper& p = kPaper.at(app);
    char line[256];
    std::snprintf(
        line, sizeof line,
        "%-5s TOPS %5.2f (%5.1f, %+5.0f%%) active %4.1f (%4.1f) weight stall %4.1f (%4.1f) "
        "shift %4.1f (%4.1f) non-matrix %4.1f (%4.1f) RAW %4.1f (%4.1f) input %4.1f (%4.1f)\n",
        app.c_str(), s.tops, p.tops, 100 * (s.tops / p.tops - 1), s.active, p.active,
        s.weight_stall, p.weight_stall, s.weight_shift, p.weight_shift, s.non_matrix, p.non_matrix,
        s.raw, p.raw, s.input_stall, p.input_stall);
    table += line;
  }
  WARN("Systole (paper):\n" << table);
}

TEST_CASE("TPU v1 MLP0: TOPS and weight stall within the targets", "[validation]") {
  check_app("mlp0");
}

// Met since the host link (README.md): the batch's input arrives over PCIe before the first
// matmul and its output leaves after the last (8.2% input stalls against Table 3's 8.8%), so
// MLP1 is no longer all weight streaming; it was 16 points above Table 3's 44.2% without it.
// Met at both ends of the link's assumed bandwidth and latency ranges.
TEST_CASE("TPU v1 MLP1: TOPS and weight stall within the targets", "[validation]") {
  check_app("mlp1");
}

// Half missed (README.md): TOPS +12.6% (met since the bank-level DDR3-2133 model; +16% with an
// ideal 34 GB/s), weight stall 16.0 points above Table 3 (missed). At 34 GB/s a batch of 64
// allows 4.35 TOPS; the paper measured 85% of that with 17.9% non-matrix cycles, Systole hides
// the LSTM cells behind the weight FIFO's prefetch (3% non-matrix) and streams at the DDR3's
// rate less its refresh.
TEST_CASE("TPU v1 LSTM0: TOPS and weight stall within the targets", "[validation][!mayfail]") {
  check_app("lstm0");
}

// Missed (README.md): +125% TOPS. The paper's own counters disagree with its 2.8 TOPS: 6.3%
// useful MACs (Table 3 row 2) x 91.75 TOPS = 5.8 TOPS, and 2.8 is 43% of what batch 96 allows
// at 34 GB/s with only 10.3% non-matrix cycles. The weight stall is within the target.
TEST_CASE("TPU v1 LSTM1: TOPS and weight stall within the targets", "[validation][!mayfail]") {
  check_app("lstm1");
}

// Missed (README.md): 47.6%. LSTM1 (+125%) and CNN1 (+118%, unpublished shapes) dominate it.
TEST_CASE("TPU v1: mean absolute TOPS error of the six applications", "[validation][!mayfail]") {
  double sum = 0;
  for (const auto& [app, s] : simulated()) sum += std::fabs(s.tops / kPaper.at(app).tops - 1);
  const double mean = sum / static_cast<double>(kPaper.size());
  INFO("mean absolute TOPS error " << 100 * mean << "%");
  CHECK(mean <= kMeanTopsError);
}
