#include "models/scalesim/scalesim_walk.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "models/scalesim/scalesim_memory.h"
#include "sim/core/error.h"

namespace systole::models::scalesim {
namespace {

constexpr std::int64_t kWordsPerKb = 1024;  // SCALE-Sim: 1 word = 1 byte, 1 kB = 1024 B

std::int64_t ofmap_writes(const Geometry& g, std::int64_t fc, std::int64_t fr, std::int64_t c) {
  std::int64_t lo = 0, hi = 0;
  g.ofmap_lanes(fc, fr, c, lo, hi);
  return hi >= lo ? hi - lo + 1 : 0;
}

// ---- CALC ------------------------------------------------------------------------------------

/// Cumulative write stalls as a step function of the demand row (empty in practice: a CALC
/// write buffer drains `cols` words per cycle, as fast as the array writes).
class StallSteps {
 public:
  void add(std::int64_t row, std::int64_t total) { steps_.emplace_back(row, total); }
  /// SCALE-Sim's cycle of demand row `row`: the row plus the stalls of the rows before it.
  std::int64_t cycle(std::int64_t row) const {
    auto it = std::lower_bound(steps_.begin(), steps_.end(), std::make_pair(row, std::int64_t{0}));
    return row + (it == steps_.begin() ? 0 : std::prev(it)->second);
  }

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> steps_;
};

/// Feeds the OFMAP writes of every fold to the write buffer; returns total and stall cycles.
void write_side_calc(const Geometry& g, WriteBuffer& wb, StallSteps& steps, MemoryOutcome& out) {
  std::int64_t stall = 0, row0 = 0, last_oo = -1;
  const std::int64_t last_row = g.folds() * g.fold_cycles - 1;
  for (std::int64_t fc = 0; fc < g.Fc; ++fc) {
    for (std::int64_t fr = 0; fr < g.Fr; ++fr, row0 += g.fold_cycles) {
      std::int64_t first = 0, last = 0;
      g.ofmap_rows(fc, fr, first, last);
      for (std::int64_t c = first; c <= last; ++c) {
        // Rows that only fill the buffer go in one step; the next one is served alone.
        const std::int64_t w0 = g.ofmap_writes_before(fc, fr, c);
        const std::int64_t quiet = wb.quiet_rows(
            row0 + c + stall, last - c + 1,
            [&](std::int64_t r) { return g.ofmap_writes_before(fc, fr, c + r + 1) - w0; });
        wb.write_quiet(g.ofmap_writes_before(fc, fr, c + quiet) - w0);
        if (row0 + c + quiet > last_row) last_oo = last_row + stall;
        c += quiet;
        if (c > last) break;
        const std::int64_t w = ofmap_writes(g, fc, fr, c);
        if (w == 0) continue;
        const std::int64_t cyc = row0 + c + stall;
        const std::int64_t oo = wb.write_row(cyc, w);
        if (row0 + c == last_row) last_oo = oo;
        if (oo > cyc) {
          stall += oo - cyc;
          steps.add(row0 + c, stall);
        }
      }
    }
  }
  if (last_oo < 0) last_oo = last_row + stall;
  out.total_cycles = last_oo;
  out.stall_cycles = stall;
}

/// Epoch walk for operands whose folds read distinct addresses and whose blocks are identical
/// or disjoint (every filter; the ifmap when conv windows do not overlap): O(folds + epochs).
void epochs_by_block(const Geometry& g, const OperandStream& s, const StallSteps& steps,
                     EpochEstimator& est) {
  const std::int64_t epoch = est.epoch_size();
  std::vector<std::pair<std::int64_t, std::int64_t>> prev(static_cast<size_t>(s.blocks()),
                                                          {-1, -1});
  std::int64_t open = 0, epoch_start = 0, q = 0, row0 = 0;
  est.first_request(steps.cycle(s.fold(0, 0).first_row));
  for (std::int64_t fc = 0; fc < g.Fc; ++fc) {
    for (std::int64_t fr = 0; fr < g.Fr; ++fr, row0 += g.fold_cycles) {
      const FoldView f = s.fold(fc, fr);
      const std::int64_t q0 = q, n = f.elements;
      // Reads [0, misses) are new to the epoch; the rest were read since the epoch began.
      std::int64_t misses = n;
      if (s.skewed()) {
        const auto [p0, p1] = prev[static_cast<size_t>(f.key)];
        if (p0 >= 0) misses = epoch_start <= p0 ? 0 : epoch_start >= p1 ? n : epoch_start - p0;
        prev[static_cast<size_t>(f.key)] = {q0, q0 + n};
      }
      for (std::int64_t o = 0; o < misses;) {
        const std::int64_t take = std::min(epoch - open, misses - o);
        open += take;
        o += take;
        if (open == epoch) {
          est.epoch_end(steps.cycle(row0 + s.row_of_read(f, o - 1)));
          open = 0;
          epoch_start = q0 + o;
          misses = n;  // what this fold read so far belongs to the finished epoch
        }
      }
      q += n;
    }
  }
  est.finish(open);
}

/// Epoch walk address by address, for an ifmap whose conv windows overlap (an address is read
/// by several (m, k)) or run past the input (reads of no address). A fold that repeats a block
/// read entirely within the epoch is skipped.
void epochs_by_address(const Geometry& g, const OperandStream& s, const AddressMap& am,
                       const StallSteps& steps, EpochEstimator& est) {
  const std::int64_t epoch = est.epoch_size();
  std::vector<std::uint32_t> seen(static_cast<size_t>(am.ifmap_words()), 0);
  std::uint32_t epoch_id = 1;
  std::vector<std::int64_t> prev_start(static_cast<size_t>(s.blocks()), -1);
  std::int64_t open = 0, epoch_start = 0, q = 0, row0 = 0;
  est.first_request(steps.cycle(s.fold(0, 0).first_row));
  const std::int64_t width = s.width();
  for (std::int64_t fc = 0; fc < g.Fc; ++fc) {
    for (std::int64_t fr = 0; fr < g.Fr; ++fr, row0 += g.fold_cycles) {
      const FoldView f = s.fold(fc, fr);
      const std::int64_t q0 = q;
      q += f.elements;
      if (s.skewed()) {
        std::int64_t& p0 = prev_start[static_cast<size_t>(f.key)];
        const bool all_hits = p0 >= 0 && epoch_start <= p0;
        p0 = q0;
        if (all_hits) continue;
      }
      std::int64_t o = q0;
      for (std::int64_t c = f.first_row; c <= f.last_row; ++c) {
        std::int64_t lo = 0, hi = -1;
        s.row_lanes(f, c, lo, hi);
        for (std::int64_t x = lo; x <= hi; ++x, ++o) {
          const std::int64_t lane = f.block * width + x, t = s.t_of(f, c, x);
          const std::int64_t a = s.lane_is_row() ? am.ifmap(lane, t) : am.ifmap(t, lane);
          if (a < 0) continue;  // a window past the input: read, never fetched
          std::uint32_t& mark = seen[static_cast<size_t>(a)];
          if (mark == epoch_id) continue;
          mark = epoch_id;
          if (++open == epoch) {
            est.epoch_end(steps.cycle(row0 + c));
            ++epoch_id;
            open = 0;
            epoch_start = o + 1;
          }
        }
      }
    }
  }
  est.finish(open);
}

DramTrace estimate_reads(const Geometry& g, const ConvLayer& layer, Operand op,
                         std::int64_t sram_kb, const StallSteps& steps) {
  const OperandStream s(g, op);
  EpochEstimator est(sram_kb * kWordsPerKb);
  const AddressMap am(layer);
  if (op == Operand::kIfmap && (!am.ifmap_injective() || am.ifmap_holes()))
    epochs_by_address(g, s, am, steps, est);
  else
    epochs_by_block(g, s, steps, est);
  return {est.dram_reads(), est.dram_start(), est.dram_stop()};
}

/// The first row of fold (fc, fr), searched from the fold's first read row upward (or its last
/// downward), whose lanes hold an address; -1 if none does.
std::int64_t fold_address_row(const OperandStream& s, const AddressMap& am, bool holes,
                              std::int64_t fc, std::int64_t fr, bool from_last) {
  const FoldView f = s.fold(fc, fr);
  for (std::int64_t i = 0; i <= f.last_row - f.first_row; ++i) {
    const std::int64_t c = from_last ? f.last_row - i : f.first_row + i;
    std::int64_t lo = 0, hi = -1;
    s.row_lanes(f, c, lo, hi);
    for (std::int64_t x = lo; x <= hi; ++x) {
      if (!holes) return c;
      std::int64_t m = 0, k = 0;
      s.matrix_index(f.block, s.t_of(f, c, x), x, m, k);
      if (am.ifmap(m, k) >= 0) return c;
    }
  }
  return -1;
}

}  // namespace

RowSpan address_rows(const Geometry& g, const ConvLayer& layer, Operand op) {
  const OperandStream s(g, op);
  const AddressMap am(layer);
  const bool holes = op == Operand::kIfmap && am.ifmap_holes();
  RowSpan span;
  const std::int64_t folds = g.folds();
  for (std::int64_t i = 0; i < folds && span.first < 0; ++i) {
    const std::int64_t c = fold_address_row(s, am, holes, i / g.Fr, i % g.Fr, false);
    if (c >= 0) span.first = i * g.fold_cycles + c;
  }
  for (std::int64_t i = folds - 1; i >= 0 && span.last < 0; --i) {
    const std::int64_t c = fold_address_row(s, am, holes, i / g.Fr, i % g.Fr, true);
    if (c >= 0) span.last = i * g.fold_cycles + c;
  }
  return span;
}

RowSpan ofmap_rows(const Geometry& g) {
  // Every fold writes (its used rows and columns are never empty).
  std::int64_t first = 0, last = 0, unused = 0;
  g.ofmap_rows(0, 0, first, unused);
  g.ofmap_rows(g.Fc - 1, g.Fr - 1, unused, last);
  return {first, (g.folds() - 1) * g.fold_cycles + last};
}

MemoryOutcome walk_calc(const Geometry& g, const ArrayConfig& arch, const ConvLayer& layer,
                        std::vector<RowProbe>& probes) {
  MemoryOutcome out;
  WriteBuffer wb(arch.ofmap_sram_kb * kWordsPerKb, arch.cols);  // drains `cols` words/cycle
  StallSteps steps;
  write_side_calc(g, wb, steps, out);
  for (auto& p : probes) {  // reads never stall here; a row's write stall is a step's rise
    p.cycle = steps.cycle(p.row);
    p.write_stall = steps.cycle(p.row + 1) - p.cycle - 1;
  }
  wb.drain_all(out.total_cycles);
  out.ofmap = {wb.dram_writes(), wb.dram_start(), wb.dram_stop()};
  out.ifmap = estimate_reads(g, layer, Operand::kIfmap, arch.ifmap_sram_kb, steps);
  out.filter = estimate_reads(g, layer, Operand::kFilter, arch.filter_sram_kb, steps);
  return out;
}

}  // namespace systole::models::scalesim
