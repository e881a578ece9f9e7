// The alpha-beta (Hockney) time of each collective algorithm on an idle network, and the
// nccl-tests bandwidths. alpha = one hop (router + link latency); B = the link bandwidth per
// direction (one packet per packet_ps). Each step of an algorithm costs its hops x alpha plus
// its bytes / B, and the steps of a chain follow one another; for the ring cases these are the
// formulas of the alpha-beta model (Thakur, Rabenseifner and Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 19(1), 2005; NVIDIA/nccl-tests
// doc/PERFORMANCE.md for the (p-1)/p terms), of the bidirectional-ring and multi-axis forms in
// the JAX scaling book (jax-ml/scaling-book sharding.md). Derivations: models/ici/README.md.
#include <algorithm>
#include <cmath>

#include "models/ici/ici_collective.h"

namespace systole::models {

namespace {

enum class Phase { kReduceScatter, kAllGather, kAllToAll };

/// One phase over ring `r` with `m` bytes per member (real: the formula splits evenly).
double phase_seconds(const IciRing& r, Phase ph, bool bidir, double m, double alpha, double bw) {
  const double p = static_cast<double>(r.members.size());
  if (r.members.size() < 2) return 0;
  const double chunk = m / p;
  if (!bidir || !r.closed) {
    // A chain of p-1 steps along the ring (or line); on an open ring (unidirectional) one of
    // them is the closing edge, routed over `closing_hops` hops.
    const double hops = bidir ? p - 1 : p - 2 + std::max(1, r.closing_hops);
    if (ph == Phase::kAllToAll) return hops * alpha + (p - 1) / 2 * m / bw;
    return hops * alpha + (p - 1) * chunk / bw;
  }
  // Bidirectional ring: ceil((p-1)/2) steps each way, each chunk going the shorter way.
  const int n = static_cast<int>(r.members.size());
  const bool even = n % 2 == 0;
  const double a = even ? p / 2 : (p - 1) / 2;
  if (ph == Phase::kAllToAll)
    return a * alpha + chunk * (a * (a + 1) / 2 - (even ? a / 2 : 0)) / bw;
  return a * alpha + (p - 1) / 2 * chunk / bw;
}

/// The direct all-to-all: the farthest pair's hops x alpha plus the busiest link's bytes / B
/// (an estimate, not a bound: max-min sharing may leave that link idle at times, and hops
/// pipeline, so that link's last byte may need fewer than the farthest pair's hops).
double direct_all_to_all_seconds(const IciTopology& topo, const CollectiveSpec& spec, double alpha,
                                 double bw) {
  std::vector<double> load(static_cast<std::size_t>(topo.link_slots()), 0.0);
  int diameter = 0;
  std::vector<LinkId> path;
  for (ChipId c = 0; c < static_cast<ChipId>(topo.chips()); ++c) {
    const IciRing g = group_ring(topo, spec, c);
    if (g.members.front() != c) continue;  // one pass per group, from its first chip
    const double p = static_cast<double>(g.members.size());
    for (std::size_t o = 0; o < g.members.size(); ++o)
      for (std::size_t t = 0; t < g.members.size(); ++t) {
        if (o == t) continue;
        path.clear();
        topo.route(g.members[o], g.members[t], path);
        diameter = std::max(diameter, static_cast<int>(path.size()));
        for (LinkId l : path) load[l] += static_cast<double>(spec.bytes) / p;
      }
  }
  return diameter * alpha + *std::max_element(load.begin(), load.end()) / bw;
}

}  // namespace

double alpha_beta_seconds(const IciTopology& topo, const IciLinkTiming& t,
                          const CollectiveSpec& spec) {
  const std::vector<int> axes = collective_axes(topo, spec);
  if (axes.empty()) return 0;
  const double alpha = static_cast<double>(t.hop_ps()) * 1e-12;
  const double bw = t.bytes_per_second();
  const double s = static_cast<double>(spec.bytes);
  const bool rs = spec.op == CollectiveOp::kAllReduce || spec.op == CollectiveOp::kReduceScatter;
  const bool ag = spec.op == CollectiveOp::kAllReduce || spec.op == CollectiveOp::kAllGather;
  // Groups are alike up to translation; the one at chip 0 stands for all (the slowest ring of
  // a mesh is no different: every line of an axis has the same length).
  if (spec.algorithm != CollectiveAlgorithm::kTorus) {
    const IciRing r = group_ring(topo, spec, 0);
    const bool bidir = spec.algorithm == CollectiveAlgorithm::kBidirRing;
    if (spec.op == CollectiveOp::kAllToAll)
      return phase_seconds(r, Phase::kAllToAll, bidir, s, alpha, bw);
    return (rs ? phase_seconds(r, Phase::kReduceScatter, bidir, s, alpha, bw) : 0) +
           (ag ? phase_seconds(r, Phase::kAllGather, bidir, s, alpha, bw) : 0);
  }
  if (spec.op == CollectiveOp::kAllToAll) return direct_all_to_all_seconds(topo, spec, alpha, bw);
  // Torus: part j of S / k goes along the axes in its rotated order; the parts run side by side
  // on disjoint links (while their phases line up), so the time is the slowest part's.
  const int k = static_cast<int>(axes.size());
  double worst = 0;
  for (int part = 0; part < k; ++part) {
    double m = s / k, total = 0;
    std::vector<double> level_m;
    for (int i = 0; i < k; ++i) {
      const int a = axes[(part + i) % k];
      const IciRing r = axis_ring(topo, a, 0);
      level_m.push_back(m);
      if (rs) total += phase_seconds(r, Phase::kReduceScatter, true, m, alpha, bw);
      if (ag) total += phase_seconds(r, Phase::kAllGather, true, m, alpha, bw);
      m /= topo.shape()[a];
    }
    worst = std::max(worst, total);
  }
  return worst;
}

double bus_factor(CollectiveOp op, int p) {
  if (p < 2) return 0;
  const double n = p;
  return op == CollectiveOp::kAllReduce ? 2 * (n - 1) / n : (n - 1) / n;
}

CollectiveResult collective_result(const CollectiveSpec& spec, const CollectivePlan& plan,
                                   double time_s, double formula_s) {
  CollectiveResult r;
  r.time_s = time_s;
  r.formula_s = formula_s;
  r.group_size = plan.group_size;
  r.messages = plan.end - plan.first;
  if (time_s > 0) {
    r.algbw = static_cast<double>(spec.bytes) / time_s;
    r.busbw = r.algbw * bus_factor(spec.op, plan.group_size);
  }
  return r;
}

CollectiveResult run_collective(IciNetwork& net, const CollectiveSpec& spec) {
  IciSchedule s;
  const CollectivePlan plan = append_collective(s, net.topology(), spec);
  const IciScheduleResult r = run_schedule(net, s);
  return collective_result(spec, plan, static_cast<double>(r.end_ps) * 1e-12,
                           alpha_beta_seconds(net.topology(), net.timing(), spec));
}

double point_to_point_seconds(const IciTopology& topo, const IciLinkTiming& t,
                              const std::vector<std::pair<ChipId, ChipId>>& pairs,
                              std::uint64_t bytes) {
  std::uint64_t worst = 0;
  for (const auto& [src, dst] : pairs)
    worst = std::max(worst, t.transfer_ps(bytes, topo.hops(src, dst)));
  return static_cast<double>(worst) * 1e-12;
}

}  // namespace systole::models
