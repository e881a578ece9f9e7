// Validation against the TPU v1 paper (Jouppi et al., "In-Datacenter Performance Analysis of a
// Tensor Processing Unit", ISCA 2017): measured TOPS of its six applications (Table 3; CNN0 and
// CNN1 also in §4 text; FACTS.md §A.1) beside Systole's prediction for layer sets shaped like
// them on the TPU v1-like preset. README.md beside this file explains every error.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "sim/stats/results_file.h"
#include "tests/support/run.h"

using namespace systole;

namespace {

struct Reference {
  double paper_tops;  // measured on TPU v1
  double max_error;   // the error bound this test asserts (README.md: why it is what it is)
};

// Errors measured with this model (README.md): MLP0 -9%, MLP1 -8%, LSTM0 -8%, LSTM1 +71%,
// CNN0 -52%, CNN1 +218%.
const std::map<std::string, Reference> kPaper = {
    {"tpuv1/mlp0.yaml", {12.3, 0.15}}, {"tpuv1/mlp1.yaml", {9.7, 0.15}},
    {"tpuv1/lstm0.yaml", {3.7, 0.15}}, {"tpuv1/lstm1.yaml", {2.8, 0.80}},
    {"tpuv1/cnn0.yaml", {86.0, 0.60}}, {"tpuv1/cnn1.yaml", {14.1, 2.40}},
};

}  // namespace

TEST_CASE("TPU v1: predicted TOPS of the paper's six applications", "[validation]") {
  test::TempDir dir;
  const auto r = test::simrun(test::source_dir() + "/tests/validation/tpuv1.yaml -o v1.h5", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto points = stats::read_points(dir.file("v1.h5"));
  REQUIRE(points.size() == kPaper.size());
  for (const auto& p : points) {
    REQUIRE(p.ok());
    double macs = 0, seconds = 0;
    for (size_t i = 0; i < p.layers.rows().size(); ++i) {
      macs += p.layers.get_number(i, "macs");
      seconds += p.layers.get_number(i, "time");
    }
    REQUIRE(p.assignments.size() == 1);
    const std::string name = p.assignments[0].second;  // the workload file
    const auto& ref = kPaper.at(name);
    const double tops = 2 * macs / seconds / 1e12;
    const double error = tops / ref.paper_tops - 1;
    INFO(name << ": Systole " << tops << " TOPS, paper " << ref.paper_tops << ", error "
              << 100 * error << "%");
    CHECK(tops <= 91.75);  // never above the 65,536 MACs x 2 x 0.7 GHz peak
    CHECK(std::fabs(error) <= ref.max_error);
  }
}
