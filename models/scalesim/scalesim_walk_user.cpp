// USER-mode memory walk: the read buffers' prefetch windows, the write buffer and the stall
// each demand row adds (double_buffered_scratchpad_mem.py, service_memory_requests).
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "models/scalesim/scalesim_memory.h"
#include "models/scalesim/scalesim_walk.h"

namespace systole::models::scalesim {
namespace {

constexpr std::int64_t kWordsPerKb = 1024;

/// One read operand: its stream, its buffer, and the fold being read. Positions are closed
/// forms, except for an ifmap with windows past the input: those reads have no address, so the
/// prefetch order skips them and positions come from a table built by walking it once.
class ReadSide {
 public:
  ReadSide(const Geometry& g, Operand op, std::int64_t sram_kb, std::int64_t bw,
           const AddressMap& am)
      : s_(g, op),
        am_(am),
        dups_(op == Operand::kIfmap && !am.ifmap_injective()),
        buf_(sram_kb * kWordsPerKb, bw, valid_cells(op), s_.matrix_cells()) {}

  UserReadBuffer& buffer() { return buf_; }

  void begin_fold(std::int64_t fc, std::int64_t fr) {
    f_ = s_.fold(fc, fr);
    check_ = !rest_in_window(f_.first_row);
    clear_until_ = -1;
  }
  /// Rows this fold must still examine (none once the rest of its reads sit in the window).
  bool checking() const { return check_; }
  std::int64_t first_row() const { return f_.first_row; }
  std::int64_t last_row() const { return f_.last_row; }

  /// The first row >= c that may miss (kNone: none in this fold). Rolled streams read rising
  /// positions row after row, so the rows that stay in the window's current segment are
  /// skipped with one binary search per window position.
  std::int64_t next_row(std::int64_t c) {
    if (!check_) return kNone;
    c = std::max(c, f_.first_row);
    if (c > f_.last_row) return kNone;
    if (c < clear_until_) return clear_until_ <= f_.last_row ? clear_until_ : kNone;
    if (!s_.rolled() || !table_.empty()) return c;
    clear_until_ = first_exit(c);
    return clear_until_ <= f_.last_row ? clear_until_ : kNone;
  }
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

  /// Serves the reads of local row c issued at `cycle`; returns the read stall of the row
  /// (last prefetch - cycle - 1) when it missed.
  std::optional<std::int64_t> serve(std::int64_t c, std::int64_t cycle) {
    if (!check_ || c < f_.first_row || c > f_.last_row) return std::nullopt;
    std::int64_t lo = 0, hi = -1, p_lo = 0, p_hi = 0;
    if (!row_span(c, lo, hi, p_lo, p_hi)) return std::nullopt;
    if (buf_.in_window(buf_.line_of(p_lo), buf_.line_of(p_hi))) return std::nullopt;
    bool missed = false;
    if (!dups_) {
      // Reads of a row are consecutive in the prefetch order: walk them line by line.
      for (std::int64_t l = buf_.line_of(p_lo); l <= buf_.line_of(p_hi); ++l) {
        while (!buf_.in_window(l)) {
          buf_.advance();
          missed = true;
        }
      }
    } else {
      for (std::int64_t x = lo; x <= hi; ++x) {
        const std::int64_t p = pos(c, x);
        if (p < 0) continue;
        while (!hit(p, s_.t_of(f_, c, x), x)) {
          buf_.advance();
          missed = true;
        }
      }
    }
    if (!missed) return std::nullopt;
    check_ = !rest_in_window(c + 1);
    clear_until_ = -1;
    return buf_.last_prefetch() - cycle - 1;
  }

 private:
  std::int64_t valid_cells(Operand op) {
    if (op != Operand::kIfmap || !am_.ifmap_holes()) return s_.valid_cells();
    table_.assign(static_cast<size_t>(s_.matrix_cells()), -1);
    std::int64_t n = 0;
    s_.for_each_cell([&](std::int64_t b, std::int64_t t, std::int64_t x) {
      std::int64_t m = 0, k = 0;
      s_.matrix_index(b, t, x, m, k);
      if (am_.ifmap(m, k) >= 0)
        table_[static_cast<size_t>(s_.cell_index(b, t, x))] = static_cast<std::int32_t>(n++);
    });
    return n;
  }

  // Position of lane x's read in local row c; -1 for a read of no address.
  std::int64_t pos(std::int64_t c, std::int64_t x) const {
    const std::int64_t t = s_.t_of(f_, c, x);
    if (table_.empty()) return s_.position(f_.block, t, x);
    return table_[static_cast<size_t>(s_.cell_index(f_.block, t, x))];
  }

  // Lanes of row c trimmed to their first and last fetched read, and those positions (a row's
  // positions grow with the lane); false when the row fetches nothing.
  bool row_span(std::int64_t c, std::int64_t& lo, std::int64_t& hi, std::int64_t& p_lo,
                std::int64_t& p_hi) const {
    s_.row_lanes(f_, c, lo, hi);
    for (p_lo = -1; lo <= hi && (p_lo = pos(c, lo)) < 0;) ++lo;
    for (p_hi = -1; hi >= lo && (p_hi = pos(c, hi)) < 0;) --hi;
    return lo <= hi;
  }

  // All reads of rows >= c inside the window. Positions grow row by row (rolled, skewed) or
  // shrink (burst), so the first and last rows that fetch bound them.
  bool rest_in_window(std::int64_t c) const {
    std::int64_t a = std::max(c, f_.first_row), b = f_.last_row;
    std::int64_t lo = 0, hi = 0, pa_lo = 0, pa_hi = 0, pb_lo = 0, pb_hi = 0;
    while (a <= b && !row_span(a, lo, hi, pa_lo, pa_hi)) ++a;
    while (b >= a && !row_span(b, lo, hi, pb_lo, pb_hi)) --b;
    if (a > b) return true;
    const std::int64_t mn = std::min(pa_lo, pb_lo), mx = std::max(pa_hi, pb_hi);
    return buf_.in_window(buf_.line_of(mn), buf_.line_of(mx));
  }

  // First row in [c, last_row] not inside the contiguous run of window lines holding row c
  // (last_row + 1 if none). Rows' lines rise, so "inside" holds up to some row, then never.
  std::int64_t first_exit(std::int64_t c) const {
    std::int64_t lo = 0, hi = -1, p_lo = 0, p_hi = 0;
    row_span(c, lo, hi, p_lo, p_hi);
    const std::int64_t l0 = buf_.line_of(p_lo);
    if (!buf_.in_window(l0, buf_.line_of(p_hi))) return c;
    std::int64_t seg_lo = 0, seg_hi = 0;
    buf_.segment_of(l0, seg_lo, seg_hi);
    auto inside = [&](std::int64_t r) {
      std::int64_t a = 0, b = -1, q_lo = 0, q_hi = 0;
      row_span(r, a, b, q_lo, q_hi);
      return buf_.line_of(q_lo) >= seg_lo && buf_.line_of(q_hi) < seg_hi;
    };
    std::int64_t in = c, out = f_.last_row + 1;
    while (out - in > 1) {
      const std::int64_t mid = in + (out - in) / 2;
      if (inside(mid))
        in = mid;
      else
        out = mid;
    }
    return out;
  }

  // A read of an ifmap whose windows overlap hits if any copy of its address is in the window.
  bool hit(std::int64_t p, std::int64_t t, std::int64_t x) const {
    if (buf_.in_window(buf_.line_of(p))) return true;
    std::int64_t m = 0, k = 0;
    s_.matrix_index(f_.block, t, x, m, k);
    bool found = false;
    am_.for_each_ifmap_use(am_.ifmap(m, k), [&](std::int64_t m2, std::int64_t k2) {
      std::int64_t b2 = 0, t2 = 0, x2 = 0;
      s_.cell_of(m2, k2, b2, t2, x2);
      const std::int64_t p2 = table_.empty()
                                  ? s_.position(b2, t2, x2)
                                  : table_[static_cast<size_t>(s_.cell_index(b2, t2, x2))];
      found = buf_.in_window(buf_.line_of(p2));
      return found;
    });
    return found;
  }

  OperandStream s_;
  const AddressMap& am_;
  bool dups_;
  std::vector<std::int32_t> table_;
  UserReadBuffer buf_;
  FoldView f_;
  bool check_ = false;
  std::int64_t clear_until_ = -1;  // rows before it hit (valid until the window moves)
};

/// Hands the probes their rows' issue cycles and stalls as the walk passes them. Stalls change
/// only at the rows the walk serves, so a probe the walk skips sees the stalls of the rows
/// served before it and none of its own.
class ProbeCursor {
 public:
  explicit ProbeCursor(std::vector<RowProbe>& probes) : p_(probes) {
    std::sort(p_.begin(), p_.end(),
              [](const RowProbe& a, const RowProbe& b) { return a.row < b.row; });
  }
  /// Row `row` is about to be served with `stall` stalls before it.
  void reach(std::int64_t row, std::int64_t stall) {
    for (; next_ < p_.size() && p_[next_].row <= row; ++next_)
      p_[next_].cycle = p_[next_].row + stall;
  }
  /// The stalls row `row` (just reached) took.
  void served(std::int64_t row, std::int64_t ifmap, std::int64_t filter, std::int64_t write) {
    for (size_t i = next_; i-- > 0 && p_[i].row == row;) {
      p_[i].read_stall[0] = ifmap;
      p_[i].read_stall[1] = filter;
      p_[i].write_stall = write;
    }
  }
  void finish(std::int64_t stall) { reach(std::numeric_limits<std::int64_t>::max(), stall); }

 private:
  std::vector<RowProbe>& p_;
  size_t next_ = 0;
};

}  // namespace

MemoryOutcome walk_user(const Geometry& g, const ArrayConfig& arch, const ConvLayer& layer,
                        std::vector<RowProbe>& probes) {
  const AddressMap am(layer);
  ProbeCursor probe(probes);
  ReadSide ifmap(g, Operand::kIfmap, arch.ifmap_sram_kb, arch.bandwidth, am);
  ReadSide filter(g, Operand::kFilter, arch.filter_sram_kb, arch.bandwidth, am);
  WriteBuffer wb(arch.ofmap_sram_kb * kWordsPerKb, arch.bandwidth);
  ifmap.buffer().start(0);  // both fill their active half before demand row 0 (cycle 0)
  filter.buffer().start(0);

  std::int64_t stall = 0, row0 = 0, last_oo = -1;
  const std::int64_t last_row = g.folds() * g.fold_cycles - 1;
  for (std::int64_t fc = 0; fc < g.Fc; ++fc) {
    for (std::int64_t fr = 0; fr < g.Fr; ++fr, row0 += g.fold_cycles) {
      ifmap.begin_fold(fc, fr);
      filter.begin_fold(fc, fr);
      std::int64_t w_first = 0, w_last = 0;
      g.ofmap_rows(fc, fr, w_first, w_last);
      for (std::int64_t c = 0;; ++c) {
        // Next row that may stall: a read that may miss or a row that writes outputs.
        const std::int64_t read = std::min(ifmap.next_row(c), filter.next_row(c));
        if (c <= w_last) {
          // Write rows before the next read check that only fill the buffer go in one step.
          const std::int64_t a = std::max(c, w_first), b = std::min(read, w_last + 1);
          if (a < b) {
            const std::int64_t w0 = g.ofmap_writes_before(fc, fr, a);
            const std::int64_t quiet = wb.quiet_rows(row0 + a + stall, b - a, [&](std::int64_t r) {
              return g.ofmap_writes_before(fc, fr, a + r + 1) - w0;
            });
            wb.write_quiet(g.ofmap_writes_before(fc, fr, a + quiet) - w0);
            if (a + quiet > last_row - row0) last_oo = last_row + stall;
            c = a + quiet;
          }
        }
        c = std::min(read, c <= w_last ? std::max(c, w_first) : ReadSide::kNone);
        if (c == ReadSide::kNone) break;
        const std::int64_t cyc = row0 + c + stall;
        probe.reach(row0 + c, stall);
        // Stall of the row: max of the two read stalls and the write stall (>= 0).
        const std::int64_t si = ifmap.serve(c, cyc).value_or(0);
        const std::int64_t sf = filter.serve(c, cyc).value_or(0);
        std::int64_t lo = 0, hi = -1;
        g.ofmap_lanes(fc, fr, c, lo, hi);
        std::int64_t oo = cyc;
        if (hi >= lo) oo = wb.write_row(cyc, hi - lo + 1);
        probe.served(row0 + c, si, sf, oo - cyc);
        const std::int64_t st = std::max({std::int64_t{0}, si, sf, oo - cyc});
        if (row0 + c == last_row) last_oo = oo;
        stall += st;
      }
    }
  }
  probe.finish(stall);
  // The last demand row reads nothing and writes nothing only in degenerate folds.
  if (last_oo < 0) last_oo = last_row + stall;
  MemoryOutcome out;
  out.total_cycles = last_oo;
  out.stall_cycles = stall;
  wb.drain_all(last_oo);
  auto& ib = ifmap.buffer();
  auto& fb = filter.buffer();
  out.ifmap = {ib.dram_reads(), ib.dram_start(), ib.dram_stop()};
  out.filter = {fb.dram_reads(), fb.dram_start(), fb.dram_stop()};
  out.ofmap = {wb.dram_writes(), wb.dram_start(), wb.dram_stop()};
  return out;
}

}  // namespace systole::models::scalesim
