// NVLink node benchmark (issue 13 item 5): an nccl-tests-style size sweep of one collective on
// an HGX node preset, NCCL's algorithm and protocol chosen as NCCL would, timed by the
// flow-level (default) or packet-level model. Plain C++; one core. Prints per size NCCL's
// choice, the schedule's messages, simulated time, nccl-tests algbw and busbw, the busbw the
// alpha-beta formula gives, NCCL's own cost-model busbw, and the wall seconds; then the sweep's.
//   bench_nvlink PRESET [--op all_reduce|reduce_scatter|all_gather|all_to_all]
//                [--min BYTES] [--max BYTES] [--model flow|packet]
//                [--algorithm ring|nvls] [--protocol LL|LL128|Simple] [--set key=value]...
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "models/nvlink/nccl_collective.h"
#include "sim/core/error.h"

using namespace systole;
using namespace systole::models;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

CollectiveOp parse_op(const std::string& s) {
  for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                          CollectiveOp::kAllGather, CollectiveOp::kAllToAll})
    if (s == collective_op_name(op)) return op;
  throw ConfigError({}, "--op", "unknown collective '" + s + "'");
}

/// Applies "key=value" to the few numeric keys a sensitivity sweep moves.
void set_key(NvlinkConfig& c, const std::string& kv) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos) throw ConfigError({}, "--set", "write key=value");
  const std::string k = kv.substr(0, eq);
  const double v = std::stod(kv.substr(eq + 1));
  if (k == "link_efficiency")
    c.link_efficiency = v;
  else if (k == "nvls_efficiency")
    c.nvls_efficiency = v;
  else if (k == "link_latency_ns")
    c.link_latency = Picoseconds(static_cast<std::uint64_t>(v * 1000));
  else if (k == "switch_latency_ns")
    c.switch_latency = Picoseconds(static_cast<std::uint64_t>(v * 1000));
  else if (k == "nccl_channels")
    c.nccl_channels = static_cast<std::int64_t>(v);
  else if (k == "nvls_window")
    c.nvls_window = static_cast<std::int64_t>(v);
  else if (k == "packet_size")
    c.packet_size = Bytes(static_cast<std::uint64_t>(v));
  else if (k == "credits")
    c.credits = static_cast<std::int64_t>(v);
  else if (k == "nvls_chunk")
    c.nvls_chunk = Bytes(static_cast<std::uint64_t>(v));
  else
    throw ConfigError({}, "--set", "not a key the benchmark moves: " + k);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: bench_nvlink PRESET [--op OP] [--min B] [--max B] [--model M] "
                 "[--algorithm A] [--protocol P] [--set key=value]\n");
    return 2;
  }
  NvlinkConfig c = load_nvlink_file(argv[1]);
  NcclSpec spec;
  std::uint64_t lo = 1ull << 20, hi = 8ull << 30;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--op")
      spec.op = parse_op(v);
    else if (a == "--min")
      lo = std::stoull(v);
    else if (a == "--max")
      hi = std::stoull(v);
    else if (a == "--model")
      c.model = v == "packet" ? NvlinkModel::kPacket : NvlinkModel::kFlow;
    else if (a == "--algorithm")
      spec.algorithm = v == "nvls" ? NcclAlgorithm::kNvls : NcclAlgorithm::kRing;
    else if (a == "--protocol")
      spec.protocol = v == "LL"      ? NcclProtocol::kLL
                      : v == "LL128" ? NcclProtocol::kLL128
                                     : NcclProtocol::kSimple;
    else if (a == "--set")
      set_key(c, v);
    else
      throw ConfigError({}, a, "unknown option");
  }
  const NvSwitchRoutes routes(static_cast<int>(c.gpus));
  std::printf("# %s: %lld GPUs x %lld links, %.1f GB/s payload per GPU and direction, nvls %s\n",
              collective_op_name(spec.op), static_cast<long long>(c.gpus),
              static_cast<long long>(c.links_per_gpu), c.gpu_bandwidth() / 1e9,
              c.nvls ? "on" : "off");
  std::printf("%12s %6s %7s %3s %9s %11s %8s %8s %9s %9s %8s\n", "bytes", "algo", "proto", "ch",
              "messages", "time_us", "algbw", "busbw", "ab_busbw", "nccl_bus", "wall_s");
  const double w0 = now_s();
  for (std::uint64_t b = lo; b <= hi; b *= 2) {
    spec.bytes = b;
    const auto net = make_nvlink_network(c, routes);
    const double t0 = now_s();
    const NcclResult r = run_nccl(*net, routes, c, spec);
    const double wall = now_s() - t0;
    const double f = bus_factor(spec.op, static_cast<int>(c.gpus));
    const auto& x = r.result;
    std::printf("%12llu %6s %7s %3d %9zu %11.1f %8.1f %8.1f %9.1f %9.1f %8.3f\n",
                static_cast<unsigned long long>(b), nccl_algorithm_name(r.choice.algorithm),
                nccl_protocol_name(r.choice.protocol), r.choice.channels, x.messages,
                x.time_s * 1e6, x.algbw / 1e9, x.busbw / 1e9,
                static_cast<double>(b) / x.formula_s * f / 1e9,
                static_cast<double>(b) / r.choice.model_s * f / 1e9, wall);
    std::fflush(stdout);
  }
  std::printf("# sweep wall time: %.3f s\n", now_s() - w0);
  return 0;
} catch (const Error& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 2;
}
