// ICI benchmark (issue 13 speed target): a 1 GiB all-reduce on a 16x16x16 TPU v4 torus (4096
// chips, the multi-axis torus algorithm) with the flow-level model, and how wall time grows with
// the chip count from 2x2x1 to 16x16x16. Plain C++ (no SystemC); one core. Prints, per slice,
// the schedule's messages, the wall seconds to build and to simulate it (and the CPU seconds of
// both: the machine may be shared), the simulated time,
// nccl-tests' algorithm and bus bandwidths, the alpha-beta time and the rate recomputations.
//   bench_ici [--bytes N] [--op all_reduce|reduce_scatter|all_gather|all_to_all]
//             [--algorithm ring|bidir_ring|torus] [--model flow|packet] [--shape 16x16x16]
//             [--topology torus|mesh|twisted_torus] [--axes xyz] [--scaling]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "models/ici/ici_collective.h"
#include "models/ici/ici_flow_model.h"
#include "sim/config/node.h"

using namespace systole;
using namespace systole::models;

namespace {

double cpu_s() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string topology = "torus";

IciConfig slice(const std::string& shape, IciModel model) {
  config::Node n = config::Node::map();
  n.set("shape", config::Node::scalar(shape));
  n.set("topology", config::Node::scalar(topology));
  IciConfig c = IciConfig::schema().load(n, "ici");
  c.model = model;
  return c;
}

void run(const std::string& shape, const CollectiveSpec& spec, IciModel model) {
  const IciConfig c = slice(shape, model);
  const IciTopology topo(c);
  const auto net = make_ici_network(c, topo);
  const double t0 = now_s(), c0 = cpu_s();
  IciSchedule s;
  const CollectivePlan plan = append_collective(s, topo, spec);
  const double t1 = now_s();
  const IciScheduleResult r = run_schedule(*net, s);
  const double t2 = now_s(), c2 = cpu_s();
  const CollectiveResult res = collective_result(spec, plan, static_cast<double>(r.end_ps) * 1e-12,
                                                 alpha_beta_seconds(topo, net->timing(), spec));
  const auto* flow = dynamic_cast<const IciFlowModel*>(net.get());
  std::printf("%-10s %5d %9zu %8.3f %8.3f %8.3f %8.3f %10.1f %8.1f %8.1f %10.1f %12llu\n",
              shape.c_str(), topo.chips(), s.size(), t1 - t0, t2 - t1, t2 - t0, c2 - c0,
              res.time_s * 1e6, res.algbw / 1e9, res.busbw / 1e9, res.formula_s * 1e6,
              static_cast<unsigned long long>(flow ? flow->recomputations() : 0));
  std::fflush(stdout);
}

void header() {
  std::printf("%-10s %5s %9s %8s %8s %8s %8s %10s %8s %8s %10s %12s\n", "slice", "chips",
              "messages", "build_s", "sim_s", "wall_s", "cpu_s", "time_us", "algbw", "busbw",
              "formula_us", "recomputes");
}

}  // namespace

int main(int argc, char** argv) {
  CollectiveSpec spec;
  spec.op = CollectiveOp::kAllReduce;
  spec.algorithm = CollectiveAlgorithm::kTorus;
  spec.bytes = std::uint64_t{1} << 30;
  IciModel model = IciModel::kFlow;
  std::string shape = "16x16x16";
  bool scaling = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--bytes") {
      spec.bytes = std::stoull(v);
      ++i;
    } else if (a == "--algorithm") {
      const std::string s = v;
      spec.algorithm = s == "ring"         ? CollectiveAlgorithm::kRing
                       : s == "bidir_ring" ? CollectiveAlgorithm::kBidirRing
                                           : CollectiveAlgorithm::kTorus;
      ++i;
    } else if (a == "--op") {
      const std::string s = v;
      spec.op = s == "reduce_scatter" ? CollectiveOp::kReduceScatter
                : s == "all_gather"   ? CollectiveOp::kAllGather
                : s == "all_to_all"   ? CollectiveOp::kAllToAll
                                      : CollectiveOp::kAllReduce;
      ++i;
    } else if (a == "--topology") {
      topology = v;
      ++i;
    } else if (a == "--axes") {
      const std::string s = v;
      for (int d = 0; d < 3; ++d) spec.axes[d] = s.find("xyz"[d]) != std::string::npos;
      ++i;
    } else if (a == "--model") {
      model = std::strcmp(v, "packet") == 0 ? IciModel::kPacket : IciModel::kFlow;
      ++i;
    } else if (a == "--shape") {
      shape = v;
      ++i;
    } else if (a == "--scaling") {
      scaling = true;
    } else {
      std::fprintf(stderr, "bench_ici: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  std::printf("ICI %s %s of %llu B, %s model (TPU v4 links: 50 GB/s, 1 us + 20 ns per hop)\n",
              collective_algorithm_name(spec.algorithm), collective_op_name(spec.op),
              static_cast<unsigned long long>(spec.bytes),
              model == IciModel::kFlow ? "flow" : "packet");
  header();
  if (!scaling) {
    run(shape, spec, model);
    return 0;
  }
  for (const char* s : {"2x2x1", "2x2x2", "4x2x2", "4x4x2", "4x4x4", "8x4x4", "8x8x4", "8x8x8",
                        "16x8x8", "16x16x8", "16x16x16"})
    run(s, spec, model);
  return 0;
}
