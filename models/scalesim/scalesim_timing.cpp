#include "models/scalesim/scalesim_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "models/scalesim/scalesim_geometry.h"
#include "models/scalesim/scalesim_walk.h"
#include "sim/core/error.h"

namespace systole::models::scalesim {
namespace {

/// a / b rounded once, like Python's int / int (exact for |a|, |b| < 2^53, the case here).
double ratio(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  if (std::llabs(a) < kExact && std::llabs(b) < kExact)
    return static_cast<double>(a) / static_cast<double>(b);
  return static_cast<double>(static_cast<long double>(a) / static_cast<long double>(b));
}

void check_positive(const char* field, std::int64_t v) {
  if (v <= 0) throw WorkloadError(fmt::format("{}: expected a positive integer, got {}", field, v));
}

// The per-fold loops below and in the walks take time in proportion to the folds: a limit far
// above real layers (GPT-3's largest GEMM on an 8 x 8 array has about 2^19 folds) that still
// ends in minutes, not years.
constexpr std::int64_t kMaxFolds = std::int64_t{1} << 26;

void check_folds(const Geometry& g) {
  if (g.Fr > kMaxFolds / g.Fc)
    throw WorkloadError(
        fmt::format("{} x {} folds on a {}x{} array: more than {} (2^26), the "
                    "most this model runs",
                    g.Fr, g.Fc, g.R, g.C, kMaxFolds));
}

/// SCALE-Sim's SRAM start/stop cycles: a read row is served after the hit latency of 1 and its
/// own read stall, a write row after its write stall; 0 and 0 for an operand with no address.
void sram_windows(const RowSpan (&spans)[3], const std::vector<RowProbe>& probes, LayerResult& r) {
  auto served = [&](int op, std::int64_t row) -> std::int64_t {
    if (row < 0) return 0;
    const auto it = std::find_if(probes.begin(), probes.end(),
                                 [row](const RowProbe& p) { return p.row == row; });
    if (op == 2) return it->cycle + it->write_stall;
    return it->cycle + 1 + std::max<std::int64_t>(it->read_stall[op], 0);
  };
  r.sram_ifmap_start = served(0, spans[0].first), r.sram_ifmap_stop = served(0, spans[0].last);
  r.sram_filter_start = served(1, spans[1].first), r.sram_filter_stop = served(1, spans[1].last);
  r.sram_ofmap_start = served(2, spans[2].first), r.sram_ofmap_stop = served(2, spans[2].last);
}

}  // namespace

const char* to_string(Dataflow d) {
  switch (d) {
    case Dataflow::kOs:
      return "os";
    case Dataflow::kWs:
      return "ws";
    case Dataflow::kIs:
      return "is";
  }
  return "?";
}

ConvLayer ConvLayer::gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k) {
  ConvLayer l;
  l.name = std::move(name);
  l.ifmap_h = m;
  l.ifmap_w = k;
  l.filter_h = 1;
  l.filter_w = k;
  l.channels = 1;
  l.num_filters = n;
  return l;
}

void validate_layer(const ConvLayer& l) {
  check_positive("IFMAP Height", l.ifmap_h);
  check_positive("IFMAP Width", l.ifmap_w);
  check_positive("Filter Height", l.filter_h);
  check_positive("Filter Width", l.filter_w);
  check_positive("Channels", l.channels);
  check_positive("Num Filter", l.num_filters);
  check_positive("Stride Height", l.stride_h);
  check_positive("Stride Width", l.stride_w);
  if (l.filter_h > l.ifmap_h)
    throw WorkloadError(
        fmt::format("Filter Height {} is larger than IFMAP Height {}", l.filter_h, l.ifmap_h));
  if (l.filter_w > l.ifmap_w)
    throw WorkloadError(
        fmt::format("Filter Width {} is larger than IFMAP Width {}", l.filter_w, l.ifmap_w));
}

LayerResult simulate_layer(const ArrayConfig& arch, const ConvLayer& layer) {
  validate_layer(layer);
  SYSTOLE_ASSERT(arch.rows > 0 && arch.cols > 0 && arch.bandwidth > 0 && arch.ifmap_sram_kb > 0 &&
                     arch.filter_sram_kb > 0 && arch.ofmap_sram_kb > 0,
                 "invalid SCALE-Sim array config");
  const Geometry g = make_geometry(arch, layer);
  check_folds(g);
  LayerResult r;
  r.row_folds = g.Fr;
  r.col_folds = g.Fc;
  r.cycles_per_fold = g.fold_cycles;
  r.compute_cycles = g.folds() * g.fold_cycles - 1;

  // Per-fold averages, summed in SCALE-Sim's fold order so the doubles match bit for bit.
  const std::int64_t pes = g.R * g.C;
  double mapping = 0, compute = 0;
  for (std::int64_t fc = 0; fc < g.Fc; ++fc) {
    for (std::int64_t fr = 0; fr < g.Fr; ++fr) {
      const std::int64_t used = g.rows_used(fr) * g.cols_used(fc);
      mapping += ratio(used, pes);
      compute += ratio(used * g.T, pes * g.util_fold_cycles);
    }
  }
  r.mapping_efficiency_pct = mapping / static_cast<double>(g.folds()) * 100;
  r.compute_util_pct = compute / static_cast<double>(g.folds()) * 100;

  // SRAM accesses as the compute modules count them (os adds R+C per fold to the writes).
  const std::int64_t mk = g.M * g.K, kn = g.K * g.N, mn = g.M * g.N;
  switch (g.dataflow) {
    case Dataflow::kOs:
      r.sram_ifmap_reads = g.Fc * mk;
      r.sram_filter_reads = g.Fr * kn;
      r.sram_ofmap_writes = mn + g.folds() * (g.R + g.C);
      break;
    case Dataflow::kWs:
      r.sram_ifmap_reads = g.Fc * mk;
      r.sram_filter_reads = kn;
      r.sram_ofmap_writes = g.Fr * mn;
      break;
    case Dataflow::kIs:
      r.sram_ifmap_reads = mk;
      r.sram_filter_reads = g.Fc * kn;
      r.sram_ofmap_writes = g.Fr * mn;
      break;
  }

  // The rows whose serviced cycles are SCALE-Sim's SRAM start/stop cycles.
  const RowSpan spans[3] = {address_rows(g, layer, Operand::kIfmap),
                            address_rows(g, layer, Operand::kFilter), ofmap_rows(g)};
  std::vector<RowProbe> probes;
  for (const RowSpan& sp : spans)
    for (std::int64_t row : {sp.first, sp.last}) probes.push_back({row});
  const MemoryOutcome m =
      arch.user_bandwidth ? walk_user(g, arch, layer, probes) : walk_calc(g, arch, layer, probes);
  sram_windows(spans, probes, r);
  r.total_cycles = m.total_cycles;
  r.stall_cycles = m.stall_cycles;
  // SCALE-Sim divides by Total Cycles; it is 0 only for a 1-cycle layer on a 1x1 array.
  const std::int64_t cycles = std::max<std::int64_t>(r.total_cycles, 1);
  r.overall_util_pct = ratio(layer.macs() * 100, cycles * pes);
  r.avg_ifmap_sram_bw = ratio(r.sram_ifmap_reads, cycles);
  r.avg_filter_sram_bw = ratio(r.sram_filter_reads, cycles);
  r.avg_ofmap_sram_bw = ratio(r.sram_ofmap_writes, cycles);

  auto dram = [](const DramTrace& t, std::int64_t& words, std::int64_t& start, std::int64_t& stop,
                 double& bw) {
    words = t.words;
    start = t.start;
    stop = t.stop;
    bw = ratio(t.words, t.stop - t.start + 1);
  };
  dram(m.ifmap, r.dram_ifmap_reads, r.dram_ifmap_start, r.dram_ifmap_stop, r.avg_ifmap_dram_bw);
  dram(m.filter, r.dram_filter_reads, r.dram_filter_start, r.dram_filter_stop,
       r.avg_filter_dram_bw);
  dram(m.ofmap, r.dram_ofmap_writes, r.dram_ofmap_start, r.dram_ofmap_stop, r.avg_ofmap_dram_bw);
  r.cycles_incl_prefetch = r.dram_ofmap_stop - std::min(r.dram_ifmap_start, r.dram_filter_start);
  return r;
}

std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // Shortest round-trip digits, then Python's repr layout: scientific when the decimal exponent
  // is < -4 or >= 16, else positional with at least one fractional digit.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  std::string sign;
  if (s[0] == '-') sign = "-", s.erase(0, 1);
  const size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int n = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 16) {
    std::string mant = digits.substr(0, 1);
    if (n > 1) mant += "." + digits.substr(1);
    return sign + mant + fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', std::abs(exp));
  }
  std::string out;
  if (exp < 0) {
    out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else if (exp + 1 >= n) {
    out = digits + std::string(static_cast<size_t>(exp + 1 - n), '0') + ".0";
  } else {
    out = digits.substr(0, static_cast<size_t>(exp + 1)) + "." +
          digits.substr(static_cast<size_t>(exp + 1));
  }
  return sign + out;
}

}  // namespace systole::models::scalesim
