#include "models/scalesim/scalesim_replay.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/core/error.h"

namespace systole::models::scalesim {
namespace {

using I = std::int64_t;
using Row = std::vector<I>;

I cdiv(I a, I b) { return (a + b - 1) / b; }

// ---- operands (operand_matrix.py) -------------------------------------------------------------

struct Operands {
  ConvLayer l;
  I eh, ew, M, N, K;
  explicit Operands(const ConvLayer& layer)
      : l(layer),
        eh(layer.ofmap_h()),
        ew(layer.ofmap_w()),
        M(eh * ew),
        N(layer.num_filters),
        K(layer.filter_h * layer.filter_w * layer.channels) {}
  I ifmap(I m, I k) const {
    const I ir = (m / ew) * l.stride_h, ic = (m % ew) * l.stride_w;
    const I cr = k / (l.filter_w * l.channels), rest = k % (l.filter_w * l.channels);
    const I cc = rest / l.channels, ch = rest % l.channels;
    if (ir + cr >= l.ifmap_h || ic + cc >= l.ifmap_w) return -1;
    return (ir + cr) * l.ifmap_w * l.channels + (ic + cc) * l.channels + ch;
  }
  I filter(I k, I n) const { return 10000000 + n * K + k; }
};

// ---- compute modules (systolic_compute_{os,ws,is}.py) ------------------------------------------

struct Compute {
  Dataflow df;
  const Operands& op;
  I R, C, Sr, Sc, T, Fr, Fc, per;
  Compute(Dataflow d, const Operands& o, I r, I c) : df(d), op(o), R(r), C(c) {
    if (df == Dataflow::kOs)
      Sr = o.M, Sc = o.N, T = o.K, per = T + R + C - 2;
    else if (df == Dataflow::kWs)
      Sr = o.K, Sc = o.N, T = o.M, per = 2 * R + C + T - 2;
    else
      Sr = o.K, Sc = o.M, T = o.N, per = 2 * R + C + T - 2;
    Fr = cdiv(Sr, R);
    Fc = cdiv(Sc, C);
  }
  I ru(I fr) const { return std::min(R, Sr - fr * R); }
  I cu(I fc) const { return std::min(C, Sc - fc * C); }

  // Demand row c of fold (fc, fr): ifmap, filter and ofmap addresses (-1: none), lane order.
  void demand(I fc, I fr, I c, Row& in, Row& fl, Row& of) const {
    const I r0 = fr * R, c0 = fc * C, u = ru(fr), v = cu(fc);
    if (df == Dataflow::kOs) {
      in.assign(R, -1), fl.assign(C, -1), of.assign(C, -1);
      for (I r = 0; r < R; ++r)
        if (c - r >= 0 && c - r < T && r < u) in[r] = op.ifmap(r0 + r, c - r);
      for (I j = 0; j < C; ++j)
        if (c - j >= 0 && c - j < T && j < v) fl[j] = op.filter(c - j, c0 + j);
      for (I j = 0; j < C; ++j) {
        const I i = c - j - (T - 1), rr = R - 1 - i;
        if (i >= 0 && i < R && rr < u && j < v) of[j] = 20000000 + (r0 + rr) * op.N + c0 + j;
      }
    } else if (df == Dataflow::kWs) {
      in.assign(R, -1), fl.assign(C, -1), of.assign(C, -1);
      for (I r = 0; r < R; ++r) {
        const I t = c - r - R;
        if (t >= 0 && t < T && r < u) in[r] = op.ifmap(t, r0 + r);
      }
      for (I j = 0; j < C; ++j)
        if (c < R && R - 1 - c < u && j < v) fl[j] = op.filter(r0 + R - 1 - c, c0 + j);
      for (I j = 0; j < C; ++j) {
        const I t = c - j - (2 * R - 1);
        if (t >= 0 && t < T && j < v) of[j] = 20000000 + t * op.N + c0 + j;
      }
    } else {
      in.assign(C, -1), fl.assign(R, -1), of.assign(C, -1);
      for (I j = 0; j < C; ++j)
        if (c < R && R - 1 - c < u && j < v) in[j] = op.ifmap(c0 + j, r0 + R - 1 - c);
      for (I r = 0; r < R; ++r) {
        const I t = c - r - R;
        if (t >= 0 && t < T && r < u) fl[r] = op.filter(r0 + r, t);
      }
      for (I j = 0; j < C; ++j) {
        const I t = c - j - (2 * R - 1);
        if (t >= 0 && t < T && j < v) of[j] = 20000000 + (c0 + j) * op.N + t;
      }
    }
  }

  // Prefetch orders (USER mode): stacked blocks, rolled along anti-diagonals or row-major.
  static Row roll(const std::vector<Row>& p) {
    Row out;
    const I m = static_cast<I>(p.size()), n = static_cast<I>(p[0].size());
    for (I d = 0; d < m + n; ++d)
      for (I row = std::min(d, m - 1); row >= std::max<I>(0, d - n + 1); --row)
        out.push_back(p[static_cast<size_t>(row)][static_cast<size_t>(d - row)]);
    return out;
  }
  void prefetch(Row& in, Row& fl) const {
    std::vector<Row> p;
    auto stack = [&](I blocks, I rows, I width, I span, auto cell) {
      p.clear();
      for (I b = 0; b < blocks; ++b)
        for (I t = 0; t < rows; ++t) {
          Row r(static_cast<size_t>(width), -1);
          for (I x = 0; x < width && b * width + x < span; ++x)
            r[static_cast<size_t>(x)] = cell(b * width + x, t);
          p.push_back(r);
        }
    };
    auto flat = [&]() {
      Row out;
      for (const auto& r : p) out.insert(out.end(), r.begin(), r.end());
      return out;
    };
    const I M = op.M, N = op.N, K = op.K;
    if (df == Dataflow::kOs) {
      stack(Fr, K, R, M, [&](I m, I t) { return op.ifmap(m, t); });
      in = roll(p);
      stack(Fc, K, C, N, [&](I n, I t) { return op.filter(t, n); });
      fl = roll(p);
    } else if (df == Dataflow::kWs) {
      stack(Fr, M, R, K, [&](I k, I t) { return op.ifmap(t, k); });
      in = roll(p);
      stack(Fc, K, C, N, [&](I n, I t) { return op.filter(t, n); });
      fl = flat();
    } else {
      stack(Fc, K, C, M, [&](I m, I t) { return op.ifmap(m, t); });
      in = flat();
      stack(Fr, N, R, K, [&](I k, I t) { return op.filter(k, t); });
      fl = roll(p);
    }
  }
};

// ---- read_buffer.py (USER) ---------------------------------------------------------------------

struct ReadBuffer {
  I active, pf, bw, eps, n = 0, nal = 0, npl = 0, fetch_rows = 0;
  std::vector<std::unordered_set<I>> lines;
  I start = 0, end = 0, last = -1, first = 0, reads = 0;
  bool full = false;
  ReadBuffer(I words, I b)
      : active(static_cast<I>(std::ceil(words * 0.5))),
        pf(words - active),
        bw(b),
        eps(cdiv(words, 100)) {}
  void set_fetch(const Row& order) {
    fetch_rows = cdiv(static_cast<I>(order.size()), bw);
    std::unordered_set<I> cur;
    I ctr = 0;
    for (I e : order) {
      if (e != -1) cur.insert(e), ++ctr;
      if (ctr >= eps) lines.push_back(std::move(cur)), cur.clear(), ctr = 0;
    }
    lines.push_back(cur);
    n = static_cast<I>(lines.size());
    nal = std::min(n, cdiv(active, eps));
    npl = std::min(n - nal, cdiv(pf, eps));
  }
  bool hit(I a) const {
    auto in = [&](I l) { return lines[static_cast<size_t>(l)].count(a) > 0; };
    if (start < end) {
      for (I l = start; l < end; ++l)
        if (in(l)) return true;
    } else {
      for (I l = start; l < n; ++l)
        if (in(l)) return true;
      for (I l = 0; l < end; ++l)
        if (in(l)) return true;
    }
    return false;
  }
  I service(const Row& row, I cycle) {
    if (!full) {
      I nl = cdiv(active, bw);
      if (nl >= fetch_rows) nl = fetch_rows;
      reads += nl * bw;
      first = cycle - nl;
      last = cycle - 1;
      start = 0, end = nal, full = true;
    }
    I off = 1;
    for (I a : row) {
      if (a == -1) continue;
      while (!hit(a)) {
        start = (start + npl) % n;
        end = (start + nal) % n;
        const I nl = cdiv(pf, bw);
        reads += nl * bw;
        last += nl + 1;
        off += std::max<I>(last - (cycle + off), 0);  // read_buffer.py: only a positive stall
      }
    }
    return cycle + off;
  }
};

// ---- read_buffer_estimate_bw.py (CALC) ---------------------------------------------------------

struct Estimator {
  I items, nsa = 50, nsp = 50;
  std::unordered_set<I> cur;
  std::unordered_map<I, I> latest;
  std::vector<I> set_sizes;
  I cur_id = 0, rstart = 0, rend = 49, pstart = -1, pend = -1, lps = -2, lpe = -1, first_cycle = 0;
  bool first_seen = false, active_done = false;
  I reads = 0, trace_first = 0, trace_last = 0;
  bool traced = false;
  explicit Estimator(I words) : items(words / 100) {}
  bool hit(I a) const {
    if (cur.count(a)) return true;
    const auto it = latest.find(a);
    return it != latest.end() && it->second >= rstart && it->second < cur_id;
  }
  void prefetch(I a, I b) {
    for (I i = a; i <= b; ++i) reads += set_sizes[static_cast<size_t>(i)];
    const I rows = lpe - lps + 1;
    if (!traced) trace_first = lps + 1, traced = true;
    trace_last = lps + rows;
  }
  void service(const Row& row, I cycle) {
    if (!first_seen && *std::max_element(row.begin(), row.end()) > -1)
      first_cycle = cycle, first_seen = true;
    for (I a : row) {
      if (a == -1 || hit(a)) continue;
      cur.insert(a);
      latest[a] = cur_id;
      if (static_cast<I>(cur.size()) != items) continue;
      set_sizes.push_back(items);
      cur.clear();
      if (++cur_id != rend + 1) continue;
      if (!active_done) {
        lpe = first_cycle - 2;
        lps = lpe - cdiv(nsp * items, 10) + 1;
        prefetch(0, nsa - 1);
        pstart = rend + 1, pend = pstart + nsp - 1;
        active_done = true;
      } else {
        prefetch(pstart, pend);
        pstart += nsp, pend += nsp;
      }
      rstart += nsp, rend += nsp;
      lps = lpe + 1, lpe = cycle;
    }
  }
  void complete() {
    if (!cur.empty())
      set_sizes.push_back(static_cast<I>(cur.size()));
    else
      --cur_id;
    if (!active_done) {
      lpe = -2;
      lps = lpe - cdiv((cur_id + 1) * items, 10) + 1;
      prefetch(0, cur_id);
    } else {
      prefetch(pstart, cur_id);
    }
  }
};

// ---- write_buffer.py ---------------------------------------------------------------------------

struct WriteBufferLit {
  I total, active, drain, bw, free;
  std::vector<I> lines;  // words per trace line
  I fill = 0, next = 0, drain_end = 0, writes = 0, first = 0, last = 0;
  bool any = false;
  WriteBufferLit(I words, I b)
      : total(words),
        active(static_cast<I>(std::ceil(words * 0.5))),
        drain(words - active),
        bw(b),
        free(words) {}
  void flush() {
    if (fill) lines.push_back(fill), fill = 0;
  }
  I empty_drain(I start) {
    const I e = std::min(next + cdiv(drain, bw), static_cast<I>(lines.size()));
    const I nl = e - next;
    const I words = nl * bw - (bw - lines[static_cast<size_t>(e - 1)]);
    writes += words;
    if (!any) first = start, any = true;
    last = start + nl - 1;
    free += words;
    next = e;
    return start + nl - 1;
  }
  I service(const Row& row, I cycle) {
    I cur = cycle;
    for (I a : row) {
      if (a == -1) continue;
      --free;
      if (++fill == bw) lines.push_back(bw), fill = 0;
      if (cur < drain_end) {
        if (free <= 0) cur = drain_end;
      } else if (free < total - drain) {
        flush();
        drain_end = empty_drain(cur);
      }
    }
    return cur;
  }
  void empty_all(I cycle) {
    flush();
    while (next < static_cast<I>(lines.size())) {
      drain_end = empty_drain(cycle);
      cycle = drain_end + 1;
    }
  }
};

double div(I a, I b) { return static_cast<double>(a) / static_cast<double>(b); }

// get_*_sram_start_stop_cycles (double_buffered_scratchpad_mem.py): the serviced cycle of the
// first and of the last demand row holding an address; 0 and 0 when none does.
struct SramWindow {
  I start = 0, stop = 0;
  bool seen = false;
  void see(const Row& row, I serviced) {
    if (std::all_of(row.begin(), row.end(), [](I a) { return a == -1; })) return;
    if (!seen) start = serviced, seen = true;
    stop = serviced;
  }
};

}  // namespace

LayerResult replay_layer(const ArrayConfig& arch, const ConvLayer& layer) {
  validate_layer(layer);
  const Operands op(layer);
  const Compute cm(arch.dataflow, op, arch.rows, arch.cols);
  const I R = arch.rows, C = arch.cols;
  LayerResult r;
  r.row_folds = cm.Fr, r.col_folds = cm.Fc, r.cycles_per_fold = cm.per;
  r.compute_cycles = cm.Fr * cm.Fc * cm.per - 1;

  const bool user = arch.user_bandwidth;
  ReadBuffer rin(arch.ifmap_sram_kb * 1024, arch.bandwidth),
      rfl(arch.filter_sram_kb * 1024, arch.bandwidth);
  Estimator ein(arch.ifmap_sram_kb * 1024), efl(arch.filter_sram_kb * 1024);
  WriteBufferLit wb(arch.ofmap_sram_kb * 1024, user ? arch.bandwidth : C);
  if (user) {
    Row in, fl;
    cm.prefetch(in, fl);
    rin.set_fetch(in);
    rfl.set_fetch(fl);
  }

  double map_sum = 0, cu_sum = 0;
  const I util_len = arch.dataflow == Dataflow::kOs ? cm.per : cm.per + C - 1;
  I stall = 0, i = 0, last_oo = 0;
  Row in, fl, of;
  SramWindow win, wfl, wof;
  for (I fc = 0; fc < cm.Fc; ++fc) {
    for (I fr = 0; fr < cm.Fr; ++fr) {
      const I used = cm.ru(fr) * cm.cu(fc);
      map_sum += div(used, R * C);
      cu_sum += div(used * cm.T, R * C * util_len);
      // Requests as the compute modules count them (padded lanes excluded, -1 holes included).
      if (arch.dataflow == Dataflow::kOs) {
        r.sram_ifmap_reads += cm.T * cm.ru(fr);
        r.sram_filter_reads += cm.T * cm.cu(fc);
        r.sram_ofmap_writes += used + R + C;
      } else if (arch.dataflow == Dataflow::kWs) {
        r.sram_ifmap_reads += cm.T * cm.ru(fr);
        r.sram_filter_reads += used;
        r.sram_ofmap_writes += cm.T * cm.cu(fc);
      } else {
        r.sram_ifmap_reads += used;
        r.sram_filter_reads += cm.T * cm.ru(fr);
        r.sram_ofmap_writes += cm.T * cm.cu(fc);
      }
      for (I c = 0; c < cm.per; ++c, ++i) {
        cm.demand(fc, fr, c, in, fl, of);
        const I cyc = i + stall;
        I in_at = cyc + 1, fl_at = cyc + 1;  // served after the hit latency of 1
        if (user) {
          in_at = rin.service(in, cyc);
          fl_at = rfl.service(fl, cyc);
        } else {
          ein.service(in, cyc);
          efl.service(fl, cyc);
        }
        const I si = in_at - cyc - 1, sf = fl_at - cyc - 1;
        const I oo = wb.service(of, cyc);
        win.see(in, in_at);
        wfl.see(fl, fl_at);
        wof.see(of, oo);
        stall += std::max({si, sf, oo - cyc});
        last_oo = oo;
      }
    }
  }
  r.mapping_efficiency_pct = map_sum / static_cast<double>(cm.Fr * cm.Fc) * 100;
  r.compute_util_pct = cu_sum / static_cast<double>(cm.Fr * cm.Fc) * 100;
  r.total_cycles = last_oo;
  r.stall_cycles = stall;
  r.sram_ifmap_start = win.start, r.sram_ifmap_stop = win.stop;
  r.sram_filter_start = wfl.start, r.sram_filter_stop = wfl.stop;
  r.sram_ofmap_start = wof.start, r.sram_ofmap_stop = wof.stop;
  wb.empty_all(last_oo);
  if (user) {
    r.dram_ifmap_reads = rin.reads, r.dram_ifmap_start = rin.first, r.dram_ifmap_stop = rin.last;
    r.dram_filter_reads = rfl.reads, r.dram_filter_start = rfl.first, r.dram_filter_stop = rfl.last;
  } else {
    ein.complete();
    efl.complete();
    r.dram_ifmap_reads = ein.reads, r.dram_ifmap_start = ein.trace_first,
    r.dram_ifmap_stop = ein.trace_last;
    r.dram_filter_reads = efl.reads, r.dram_filter_start = efl.trace_first,
    r.dram_filter_stop = efl.trace_last;
  }
  r.dram_ofmap_writes = wb.writes, r.dram_ofmap_start = wb.first, r.dram_ofmap_stop = wb.last;
  const I cycles = std::max<I>(r.total_cycles, 1);
  r.overall_util_pct = div(layer.macs() * 100, cycles * R * C);
  r.avg_ifmap_sram_bw = div(r.sram_ifmap_reads, cycles);
  r.avg_filter_sram_bw = div(r.sram_filter_reads, cycles);
  r.avg_ofmap_sram_bw = div(r.sram_ofmap_writes, cycles);
  r.avg_ifmap_dram_bw = div(r.dram_ifmap_reads, r.dram_ifmap_stop - r.dram_ifmap_start + 1);
  r.avg_filter_dram_bw = div(r.dram_filter_reads, r.dram_filter_stop - r.dram_filter_start + 1);
  r.avg_ofmap_dram_bw = div(r.dram_ofmap_writes, r.dram_ofmap_stop - r.dram_ofmap_start + 1);
  r.cycles_incl_prefetch = r.dram_ofmap_stop - std::min(r.dram_ifmap_start, r.dram_filter_start);
  return r;
}

}  // namespace systole::models::scalesim
